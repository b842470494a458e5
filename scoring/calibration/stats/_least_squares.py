"""Absorbed least squares, shared by G(q,k)'s variance components and the additive model.

The design is y = group + sum of factor effects with many groups (candidates,
loops) and a few hundred factor levels (interviewers, questions): the group
effects are absorbed and the reduced normal equations solved densely, or
iteratively for the largest designs.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg, sparse
from threadpoolctl import ThreadpoolController

from scoring.calibration.stats._arrays import (
    FloatArray,
    IntArray,
    counts_matrix,
    nan_to_zero,
    safe_div,
)


@functools.cache
def _blas() -> ThreadpoolController:
    """The BLAS libraries loaded in this process (numpy's and scipy's), found once.

    The dense systems here are a few hundred wide: one thread factorises one in
    tens of milliseconds, while OpenBLAS's worker threads, each waiting for the
    others at every block step, took from 0.1 to 6 seconds for the same
    factorisation on a busy two-core machine. So they run on one thread.
    """
    return ThreadpoolController()


# Reduced normal equations up to this size are solved densely (eigh), which
# also gives exact standard errors; larger ones use an iterative solver.
MAX_DENSE_PARAMETERS = 4000


@dataclass(frozen=True)
class AbsorbedFit:
    """Least-squares fit of y = group + sum of factor effects, group absorbed."""

    beta: FloatArray  # stacked factor effects, minimum-norm (sum-to-zero per factor)
    cov_unscaled: FloatArray | None  # pseudo-inverse of the reduced normal matrix
    reduced_diag: FloatArray  # its diagonal, for the large-problem SE fallback
    rank: int
    sse: float
    group_mean: FloatArray
    xbar: sparse.csr_matrix  # per-group mean of the factor design rows
    # With weights w per group: sum over groups of w_g n_g xbar_g xbar_g' (see _grams).
    weighted_between: sparse.csr_matrix | None = None
    # With find_aliases and a dense solve: an orthonormal basis of the reduced
    # normal matrix's whole null space (None when it is only the expected one,
    # or was not looked for).
    null_basis: FloatArray | None = None


def absorbed_fit(
    group: IntArray,
    n_groups: int,
    factors: list[IntArray],
    sizes: list[int],
    y: FloatArray,
    null_space: list[IntArray],
    weights: FloatArray | None = None,
    find_aliases: bool = False,
) -> AbsorbedFit:
    """Fit the additive model by absorbing the (many) group effects.

    1. Subtract group means (the within transformation M): the group effects
       drop out and only the P = sum(sizes) factor effects remain.
    2. Form the reduced normal equations C b = r with C = X'MX = X'X - X'Z
       (Z'Z)^-1 Z'X (P x P): X'X from counts of each level and of each pair
       of levels, X'Z (Z'Z)^-1 Z'X from the sparse per-group counts of each
       level (never a dense n x P design), r = X'My from sums per level.
    3. Solve with the Moore-Penrose pseudo-inverse: its solution is orthogonal
       to C's null space, which for a connected design is spanned by the
       all-ones vector of each factor, so every factor's effects sum to zero,
       and the covariance of that constrained estimator is sigma^2 C^+ (see
       _pseudo_inverse). ``null_space`` lists, per expected null vector, the
       stacked parameters it holds (a factor, or a factor's levels in one
       connected component). Above MAX_DENSE_PARAMETERS use MINRES and
       centre each factor instead.
    4. SSE = y'My - b'r.

    With ``weights`` (one per group) the fit also returns the between-group
    matrix X'Z (Z'Z)^-1 Z'X with group g's term weighted by w_g, from the same
    pass over the groups (see _grams).

    With ``find_aliases``, when the dense solve finds C's rank below P less the
    expected null vectors, the fit also returns a basis of C's null space
    (see stats.estimability): effects the design cannot tell apart.
    """
    offsets = [int(off) for off in np.cumsum([0, *sizes[:-1]])]
    p = int(sum(sizes))
    stacked = [f + off for f, off in zip(factors, offsets, strict=True)]
    n_g = np.bincount(group, minlength=n_groups).astype(np.float64)
    inv_n = nan_to_zero(safe_div(np.ones(n_groups), n_g))
    group_mean = safe_div(np.bincount(group, y, minlength=n_groups), n_g)
    within = y - group_mean[group]
    # Per-group count of each level; the CSR conversion sums repeated entries.
    zx = counts_matrix(
        np.tile(group.astype(np.int32, copy=False) if n_groups < 2**31 else group, len(factors)),
        np.concatenate(stacked),
        (n_groups, p),
    )
    xbar = zx.copy()
    xbar.data *= np.repeat(inv_n, np.diff(zx.indptr))
    r = np.concatenate(
        [np.bincount(f, within, minlength=size) for f, size in zip(factors, sizes, strict=True)]
    )
    between, weighted_between = _grams(zx, xbar, weights)

    cov: FloatArray | None
    null_basis: FloatArray | None = None
    if p == 0:
        beta = np.zeros(0)
        cov = np.zeros((0, 0))
        rank = 0
        reduced_diag = np.zeros(0)
    elif p <= MAX_DENSE_PARAMETERS:
        reduced = _cross_counts(factors, sizes, offsets) - between.toarray()
        reduced_diag = np.diag(reduced).copy()
        with _blas().limit(limits=1, user_api="blas"):
            cov, rank = _pseudo_inverse(reduced, null_space)
            beta = cov @ r
            if find_aliases and rank < p - len(null_space):
                null_basis = _null_vectors(reduced)
    else:
        from scipy.sparse.linalg import minres  # only for the largest designs

        rows = np.tile(np.arange(y.size, dtype=np.int64), len(factors))
        x = counts_matrix(rows, np.concatenate(stacked), (y.size, p))
        reduced_sparse = (x.T @ x - between).tocsr()
        reduced_diag = reduced_sparse.diagonal()
        beta = minres(reduced_sparse, r, rtol=1e-10, maxiter=10 * p)[0]
        for size, off in zip(sizes, offsets, strict=True):
            beta[off : off + size] -= beta[off : off + size].mean()
        cov = None
        rank = p - len(null_space)
    sse = max(float(within @ within) - float(beta @ r), 0.0)
    return AbsorbedFit(
        beta, cov, reduced_diag, rank, sse, group_mean, xbar, weighted_between, null_basis
    )


# A weight shared by at least this share of the groups gets a product of its own
# in _grams (at most MAX_SHARED_WEIGHTS of them); the other groups take two.
SHARED_WEIGHT_SHARE = 1 / 16
MAX_SHARED_WEIGHTS = 8


def _grams(
    counts: sparse.csr_matrix, means: sparse.csr_matrix, weights: FloatArray | None
) -> tuple[sparse.csr_matrix, sparse.csr_matrix | None]:
    """Return sum_g counts_g means_g' and, with ``weights``, sum_g w_g counts_g means_g'.

    ``counts`` holds each group's count of each level, ``means`` the same
    divided by the group's size. The products over the groups are most of an
    absorbed fit's time on a large design, so groups sharing a weight share
    one product, which serves both sums: where a design repeats itself (every
    scorecard the same number of questions) both cost one pass. Groups whose
    weight is rare take a product for each sum.
    """
    if weights is None:
        return counts.T.tocsr() @ means, None
    values, which, how_many = np.unique(weights, return_inverse=True, return_counts=True)
    if values.size == 1:  # one product, and no copies of the rows
        product = counts.T.tocsr() @ means
        return product, values[0] * product
    shared = np.argsort(-how_many, kind="stable")[:MAX_SHARED_WEIGHTS]
    shared = shared[how_many[shared] >= SHARED_WEIGHT_SHARE * weights.size]
    p = counts.shape[1]
    between = sparse.csr_matrix((p, p))
    weighted = sparse.csr_matrix((p, p))
    for value in shared:
        rows = np.flatnonzero(which == value)
        product = counts[rows].T.tocsr() @ means[rows]
        between = between + product
        weighted = weighted + values[value] * product
    rest = np.flatnonzero(~np.isin(which, shared))
    if rest.size:
        some, their_means = counts[rest].T.tocsr(), means[rest]
        between = between + some @ their_means
        weighted = weighted + some @ (sparse.diags(weights[rest]) @ their_means)
    return between.tocsr(), weighted.tocsr()


def _cross_counts(factors: list[IntArray], sizes: list[int], offsets: list[int]) -> FloatArray:
    """Return X'X of the stacked indicator design: level counts and counts of level pairs."""
    p = int(sum(sizes))
    out = np.zeros((p, p))
    for a, (fa, size_a, off_a) in enumerate(zip(factors, sizes, offsets, strict=True)):
        block = slice(off_a, off_a + size_a)
        out[block, block] = np.diag(np.bincount(fa, minlength=size_a).astype(np.float64))
        for fb, size_b, off_b in zip(
            factors[a + 1 :], sizes[a + 1 :], offsets[a + 1 :], strict=True
        ):
            cross = np.bincount(fa * size_b + fb, minlength=size_a * size_b).reshape(size_a, size_b)
            out[block, off_b : off_b + size_b] = cross
            out[off_b : off_b + size_b, block] = cross.T
    return out


# Above this 1-norm condition number of C + s N N' (which bounds the ratio of
# C's largest to smallest non-zero eigenvalue), _pseudo_inverse lets an
# eigendecomposition decide C's rank with its 1e-9 relative tolerance.
MAX_CONDITION_FOR_CHOLESKY = 1e8


def _pseudo_inverse(c: FloatArray, null_space: list[IntArray]) -> tuple[FloatArray, int]:
    """Return (C^+, rank) of a symmetric positive semi-definite C.

    1. If the normalised indicator vectors N of ``null_space`` are null
       vectors of C and span its whole null space, then for s > 0
       C^+ = (C + s N N')^-1 - N N' / s: one Cholesky factorisation, several
       times faster than an eigendecomposition and free of the thread
       contention LAPACK's eigensolver shows on a busy machine.
    2. s = max diag(C) <= C's largest eigenvalue, so C + s N N' is as well
       conditioned as C on its range; a condition number above
       MAX_CONDITION_FOR_CHOLESKY (or a failed factorisation) means C has
       more null directions (effects confounded in the design).
    3. Otherwise, and whenever step 1's premise fails, eigendecompose C and
       invert the eigenvalues above 1e-9 times the largest.
    """
    p = c.shape[0]
    scale = float(np.max(np.diag(c))) if p else 0.0
    if scale > 0 and null_space and all(members.size for members in null_space):
        basis = np.zeros((p, len(null_space)))
        for j, members in enumerate(null_space):
            basis[members, j] = 1.0 / math.sqrt(members.size)
        if float(np.abs(c @ basis).max()) <= 1e-9 * scale:
            augmented = c + scale * (basis @ basis.T)
            inverse = _spd_inverse(augmented)
            if inverse is not None:
                condition = float(np.abs(augmented).sum(axis=0).max()) * float(
                    np.abs(inverse).sum(axis=0).max()
                )
                if condition <= MAX_CONDITION_FOR_CHOLESKY:
                    return inverse - (basis @ basis.T) / scale, p - len(null_space)
    w, vecs = np.linalg.eigh(c)
    tol = max(float(w.max()), 0.0) * 1e-9 if p else 0.0
    keep = w > tol
    vk = vecs[:, keep]
    return (vk / w[keep]) @ vk.T, int(keep.sum())


def _null_vectors(c: FloatArray) -> FloatArray:
    """Return an orthonormal basis of the null space of a symmetric PSD C.

    The eigenvectors whose eigenvalues are at most 1e-9 times the largest: the
    tolerance _pseudo_inverse uses to decide the rank, so the two agree.
    """
    w, vecs = np.linalg.eigh(c)
    tol = max(float(w.max()), 0.0) * 1e-9 if c.shape[0] else 0.0
    return np.ascontiguousarray(vecs[:, w <= tol])


def _spd_inverse(a: FloatArray) -> FloatArray | None:
    """Return the inverse of a symmetric positive definite matrix, None if not definite.

    LAPACK's potrf/potri: a third of the work of solving against the identity.
    """
    factor, info = linalg.lapack.dpotrf(a, lower=True, clean=True)
    if info != 0:
        return None
    inverse, info = linalg.lapack.dpotri(factor, lower=True)
    if info != 0:
        return None
    lower = np.tril(inverse)
    return lower + np.tril(inverse, -1).T
