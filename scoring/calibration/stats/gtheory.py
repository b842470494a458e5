"""G(q,k): the reliability of a panel's mean score in ill-structured designs.

Real panels are neither fully crossed with candidates nor nested in them;
G(q,k) takes the variance components of the crossed targets x raters model
and charges only the part of rater variance that does not cancel between
targets sharing raters.

References
----------
Putka, D. J., Le, H., McCloy, R. A., & Diaz, T. (2008). Ill-structured
measurement designs in organizational research: implications for estimating
interrater reliability. Journal of Applied Psychology, 93(5), 959-981.

Henderson, C. R. (1953). Estimation of variance and covariance components.
Biometrics, 9(2), 226-252.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse, special
from scipy.sparse.csgraph import connected_components

from scoring.calibration.stats._arrays import (
    FloatArray,
    IntArray,
    as_codes,
    as_floats,
    compact_codes,
    distinct_pairs,
    label_members,
    same_length,
)
from scoring.calibration.stats._least_squares import absorbed_fit


@dataclass(frozen=True)
class VarianceComponents:
    """Variance components of the crossed targets x raters model.

    ``rater`` is None when rater and residual variance are confounded (raters
    nested in targets); ``residual`` then holds their sum.
    """

    target: float
    rater: float | None
    residual: float
    n_targets: int
    n_raters: int
    n_cells: int
    method: str


@dataclass(frozen=True)
class GqkResult:
    """G(q,k) with the ingredients that produced it."""

    g: float | None
    q: float
    k_harmonic: float
    components: VarianceComponents | None


def rating_cells(
    targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike | None = None
) -> tuple[IntArray, IntArray, FloatArray, int, int]:
    """Return one row per (target, rater) cell with compact codes and the mean score."""
    t = as_codes(targets, "targets")
    r = as_codes(raters, "raters")
    s = np.zeros(t.size) if scores is None else as_floats(scores, "scores")
    same_length(targets=t, raters=r, scores=s)
    keep = ~np.isnan(s)
    t, r, s = t[keep], r[keep], s[keep]
    if t.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), 0, 0
    return cells_from(*distinct_pairs(t, r, int(r.max()) + 1), s)


def cells_from(
    pair_t: IntArray, pair_r: IntArray, inverse: IntArray, scores: FloatArray
) -> tuple[IntArray, IntArray, FloatArray, int, int]:
    """Return rating_cells' result from the distinct (target, rater) pairs of non-empty data."""
    cell_t, targets = compact_codes(pair_t, int(pair_t.max()) + 1)
    cell_r, raters = compact_codes(pair_r, int(pair_r.max()) + 1)
    mean = np.bincount(inverse, scores) / np.bincount(inverse)
    return cell_t, cell_r, mean, int(targets.size), int(raters.size)


def _putka_q_cells(cell_t: IntArray, cell_r: IntArray, n_t: int, n_r: int) -> tuple[float, float]:
    k_i = np.bincount(cell_t, minlength=n_t).astype(np.float64)
    k_h = n_t / float(np.sum(1.0 / k_i))
    if n_t < 2:
        return 1.0 / k_h, k_h
    # sum_{i != i'} c_ii' / (k_i k_i') = sum_r [(sum_i A_ri / k_i)^2 - sum_i A_ri / k_i^2]
    # for the rater x target incidence A: O(cells) instead of O(targets^2).
    inv = 1.0 / k_i[cell_t]
    per_rater = np.bincount(cell_r, inv, minlength=n_r)
    pair_sum = float(np.sum(per_rater**2) - np.sum(inv**2))
    return 1.0 / k_h - pair_sum / (n_t * (n_t - 1.0)), k_h


def putka_q(targets: npt.ArrayLike, raters: npt.ArrayLike) -> tuple[float, float]:
    """Return Putka et al.'s q multiplier and the harmonic mean k of raters per target.

    q = 1/k_h - [sum_{i != i'} c_ii' / (k_i k_i')] / [N_t (N_t - 1)], where
    c_ii' counts raters shared by targets i and i' and k_i counts target i's
    raters. q = 0 when fully crossed and 1/k when raters are nested in targets.
    """
    cell_t, cell_r, _, n_t, n_r = rating_cells(targets, raters)
    if n_t == 0:
        return math.nan, math.nan
    return _putka_q_cells(cell_t, cell_r, n_t, n_r)


def _components_from_cells(
    cell_t: IntArray, cell_r: IntArray, y: FloatArray, n_t: int, n_r: int
) -> VarianceComponents | None:
    """Estimate sigma^2_T, sigma^2_R and sigma^2_TR,e by Henderson's Method 3.

    Method 3 (fitting constants) equates reductions in sums of squares from
    the additive model y = mu + t_i + r_j + e to their expectations under the
    random model, so each estimate is free of the other factor's effects even
    when raters are not randomly spread over targets:

    1. sigma^2_e = SSE(T+R) / (N - N_T - N_R + c), c = connected components.
    2. R(R|T) = SSE(T) - SSE(T+R) has expectation
       (N_R - c) sigma^2_e + (N - N_T) sigma^2_R   (one observation per cell).
    3. R(T|R) = SSE(R) - SSE(T+R) has expectation
       (N_T - c) sigma^2_e + (N - N_R) sigma^2_T.
    4. Negative estimates are truncated to zero.

    If the design leaves no residual degrees of freedom (raters nested in
    targets), rater and residual variance are confounded: fall back to the
    one-way random ANOVA, whose within-target variance is their sum.
    On balanced data Method 3 equals the ANOVA estimators.
    """
    n = y.size
    if n_t < 2 or n == 0:
        return None
    graph = sparse.csr_matrix((np.ones(n), (cell_t, cell_r + n_t)), shape=(n_t + n_r, n_t + n_r))
    n_comp, labels = connected_components(graph, directed=False)
    n_comp = int(n_comp)
    df_e = n - n_t - n_r + n_comp
    n_i = np.bincount(cell_t, minlength=n_t).astype(np.float64)
    mean_t = np.bincount(cell_t, y, minlength=n_t) / n_i
    ss_within_t = float(np.sum((y - mean_t[cell_t]) ** 2))

    if df_e <= 0 or n == n_r:
        if n == n_t:
            return None
        msw = ss_within_t / (n - n_t)
        msb = float(np.sum(n_i * (mean_t - y.mean()) ** 2)) / (n_t - 1)
        n0 = (n - float(np.sum(n_i**2)) / n) / (n_t - 1)
        return VarianceComponents(
            target=max((msb - msw) / n0, 0.0),
            rater=None,
            residual=msw,
            n_targets=n_t,
            n_raters=n_r,
            n_cells=n,
            method=(
                "one-way ANOVA (raters nested in targets: rater and residual variance confounded)"
            ),
        )

    # Absorb the larger factor so the dense reduced system stays small.
    # The kept factor's effects are determined up to a constant per component.
    if n_r <= n_t:
        per_comp = label_members(labels[n_t:], n_comp)
        fit = absorbed_fit(cell_t, n_t, [cell_r], [n_r], y, per_comp)
    else:
        per_comp = label_members(labels[:n_t], n_comp)
        fit = absorbed_fit(cell_r, n_r, [cell_t], [n_t], y, per_comp)
    sse = fit.sse
    n_j = np.bincount(cell_r, minlength=n_r).astype(np.float64)
    mean_r = np.bincount(cell_r, y, minlength=n_r) / n_j
    ss_within_r = float(np.sum((y - mean_r[cell_r]) ** 2))
    sigma_e = sse / df_e
    sigma_r = (ss_within_t - sse - (n_r - n_comp) * sigma_e) / (n - n_t) if n > n_t else 0.0
    sigma_t = (ss_within_r - sse - (n_t - n_comp) * sigma_e) / (n - n_r)
    return VarianceComponents(
        target=max(sigma_t, 0.0),
        rater=max(sigma_r, 0.0),
        residual=max(sigma_e, 0.0),
        n_targets=n_t,
        n_raters=n_r,
        n_cells=n,
        method="Henderson method 3 on (target, rater) cell means",
    )


def variance_components(
    targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike
) -> VarianceComponents | None:
    """Return the crossed-model variance components (see _components_from_cells).

    Several scores for one (target, rater) are averaged first: the model's
    observation is a rater's score for a target (e.g. a scorecard's mean over
    its questions). None with fewer than two targets.
    """
    cell_t, cell_r, y, n_t, n_r = rating_cells(targets, raters, scores)
    return _components_from_cells(cell_t, cell_r, y, n_t, n_r)


def g_qk(targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike) -> GqkResult:
    """Return Putka et al. (2008) G(q,k) for ill-structured rating designs.

    G(q,k) = s2_T / (s2_T + q s2_R + s2_TR,e / k_h): the reliability of a
    target's mean score over its own k_h raters, where q (see putka_q)
    charges only the part of rater variance that does not cancel between
    targets sharing raters. Fully crossed (q = 0) it equals the consistency
    ICC(3,k); fully nested (q = 1/k) it equals ICC(1,k).
    """
    return gqk_from_cells(*rating_cells(targets, raters, scores))


def gqk_from_cells(
    cell_t: IntArray, cell_r: IntArray, y: FloatArray, n_t: int, n_r: int
) -> GqkResult:
    """Return g_qk's result from rating_cells' (target, rater) cells and their mean scores."""
    if n_t == 0:
        return GqkResult(None, math.nan, math.nan, None)
    q, k_h = _putka_q_cells(cell_t, cell_r, n_t, n_r)
    comp = _components_from_cells(cell_t, cell_r, y, n_t, n_r)
    if comp is None:
        return GqkResult(None, q, k_h, None)
    rater = comp.rater if comp.rater is not None else 0.0
    denominator = comp.target + q * rater + comp.residual / k_h
    g = comp.target / denominator if denominator > 0 else None
    return GqkResult(g, q, k_h, comp)


# A grouped jackknife of G(q,k) refits the components once per group; beyond this
# many targets it runs on a random subset of them and scales the standard error by
# sqrt(subset / targets), as G's sampling error shrinks with the square root of
# the number of targets (a million ratings would otherwise take seconds).
JACKKNIFE_GROUPS = 10
JACKKNIFE_MAX_TARGETS = 2000


def g_qk_interval(
    cell_t: IntArray,
    cell_r: IntArray,
    y: FloatArray,
    n_t: int,
    n_r: int,
    *,
    seed: int = 0,
    confidence: float = 0.95,
    whole: float | None = None,
) -> tuple[float, float] | None:
    """Return a grouped-jackknife interval for G(q,k) from rating_cells' cells, or None.

    ``whole``, G(q,k) of these cells when already computed, spares computing it again.

    1. Split the targets (loops) at random into JACKKNIFE_GROUPS groups (one
       per target below that, from 5), on a random subset of
       JACKKNIFE_MAX_TARGETS when there are more.
    2. Recompute G(q,k) without each group in turn: pseudo-values
       G_j = g G - (g - 1) G_(-j) give the standard error sd(G_j) / sqrt(g).
    3. Interval: G +- t(g - 1) x SE (scaled back to all targets), kept to 0..1.

    Resampling targets keeps each target's raters and ratings together; the
    raters themselves are held fixed, so the interval describes this panel
    pool's reliability for new candidates. None when G is undefined on the
    whole or on any part.
    """
    groups = min(JACKKNIFE_GROUPS, n_t)  # delete-one below JACKKNIFE_GROUPS targets
    if groups < 5:
        return None
    rng = np.random.default_rng(seed)
    if whole is None:
        whole = gqk_from_cells(cell_t, cell_r, y, n_t, n_r).g
    if whole is None:
        return None
    used = n_t
    if n_t > JACKKNIFE_MAX_TARGETS:
        chosen = np.zeros(n_t, dtype=bool)
        chosen[rng.choice(n_t, JACKKNIFE_MAX_TARGETS, replace=False)] = True
        keep = chosen[cell_t]
        cell_t, cell_r, y, used = cell_t[keep], cell_r[keep], y[keep], JACKKNIFE_MAX_TARGETS
    group = rng.permutation(np.arange(n_t) % groups)
    base = _subset_g(cell_t, cell_r, y, np.ones(cell_t.size, dtype=bool), n_t, n_r)
    if base is None:
        return None
    pseudo = []
    for j in range(groups):
        left_out = _subset_g(cell_t, cell_r, y, group[cell_t] != j, n_t, n_r)
        if left_out is None:
            return None
        pseudo.append(groups * base - (groups - 1) * left_out)
    se = float(np.std(pseudo, ddof=1)) / math.sqrt(groups) * math.sqrt(used / n_t)
    half = float(special.stdtrit(groups - 1, 0.5 + confidence / 2)) * se
    return max(0.0, whole - half), min(1.0, whole + half)


def _subset_g(
    cell_t: IntArray,
    cell_r: IntArray,
    y: FloatArray,
    keep: npt.NDArray[np.bool_],
    n_t: int,
    n_r: int,
) -> float | None:
    t, _ = compact_codes(cell_t[keep], n_t)
    r, _ = compact_codes(cell_r[keep], n_r)
    sub_t = int(t.max()) + 1 if t.size else 0
    sub_r = int(r.max()) + 1 if r.size else 0
    return gqk_from_cells(t, r, y[keep], sub_t, sub_r).g
