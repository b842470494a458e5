"""The scorecard halo: ratings on one card share the interviewer's overall impression.

The additive model's least-squares estimates stay unbiased when a card's
ratings share a random effect, but their standard errors, computed as if
every rating were independent, come out too small: intervals that claim 95%
covered about 90% in simulation. This module estimates the two variances
(card and within-card) and the covariance of the estimates under them.

With y = X b + candidate + card + e, card ~ (0, s2_card), e ~ (0, s2_within),
M the within-candidate demeaning, C = X'MX and Z the card indicators, the
estimate b = C+ X'M y has covariance
``s2_within C+ + s2_card C+ W'W C+`` with ``W = Z'MX``: row s of W is card
s's count of each level minus its size times its candidate's mean row.

References
----------
Henderson, C. R. (1953). Estimation of variance and covariance components.
Biometrics, 9(2), 226-252 (method III: fitting constants).
Searle, S. R., Casella, G., and McCulloch, C. E. (1992). Variance
Components. Wiley, chapter 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from scoring.calibration.stats._arrays import FloatArray, IntArray
from scoring.calibration.stats._least_squares import _absorbed_fit, _AbsorbedFit


@dataclass(frozen=True)
class _Halo:
    within: float  # variance of a rating around its card's level
    card: float  # variance of the card halo (0 when the data show none)
    sandwich: FloatArray | None  # C+ W'W C+, None on the large-problem path
    wtw_diag: FloatArray  # diag(W'W), for the large-problem path
    card_weighted: sparse.csr_matrix  # per candidate: sum over its cards of size x W row
    card_sq_per_cand: FloatArray  # per candidate: sum over its cards of size^2


def _halo_components(
    cand: IntArray,
    n_cand: int,
    card: IntArray,
    design: list[IntArray],
    question: IntArray,
    n_q: int,
    y: FloatArray,
    fit: _AbsorbedFit,
    df: int,
) -> _Halo:
    """Return the card and within-card variances and what the covariances need.

    ``design`` holds the stacked column of each factor per rating, as in
    ``fit`` (interviewers then questions), ``card`` compact card codes.

    1. s2_within from y = card + question: within a card the candidate and
       the interviewer are constant, so the card effects absorb both and the
       halo, and SSE / (n - cards - rank) estimates s2_within alone.
    2. The full model's SSE has expectation df s2_within + t s2_card with
       t = tr(Z' M1 Z), M1 = M - M X C+ X'M its residual projector:
       t = sum_s (n_s - n_s^2 / n_c(s)) - tr(C+ W'W). Hence s2_card =
       max(0, (SSE - df s2_within) / t) (Henderson's method III).
    3. Without within-card replication (every card one rating) or residual
       degrees of freedom the two cannot be told apart: s2_card is 0 and
       s2_within the full model's residual variance, as before.
    """
    p = fit.beta.size
    n_cards = int(card.max()) + 1 if card.size else 0
    card_n = np.bincount(card, minlength=n_cards).astype(np.float64)
    card_cand = np.zeros(n_cards, dtype=np.int64)
    card_cand[card] = cand
    cand_n = np.bincount(cand, minlength=n_cand).astype(np.float64)
    card_sq = np.bincount(card_cand, card_n**2, minlength=n_cand).astype(np.float64)

    counts = sparse.csr_matrix(
        (np.ones(y.size * len(design)), (np.tile(card, len(design)), np.concatenate(design))),
        shape=(n_cards, p),
    )
    # B: per candidate, its cards' level counts weighted by card size. With W = A -
    # N G xbar (A the cards' counts, N their sizes, G cards -> candidates),
    # W'W = A'A - B'xbar - xbar'B + xbar' D xbar (D = diag(sum n_s^2)) = A'A - F'xbar
    # - xbar'F with F = B - D xbar / 2: one product over candidates, rather than
    # forming W over cards (three times the work).
    by_cand = sparse.csr_matrix((card_n, (card_cand, np.arange(n_cards))), shape=(n_cand, n_cards))
    weighted = (by_cand @ counts).tocsr()
    spread = sparse.diags(card_sq) @ fit.xbar
    card_weighted = (weighted - spread).tocsr()
    half = ((weighted - 0.5 * spread).T @ fit.xbar).tocsr()
    wtw = ((counts.T @ counts) - half - half.T).tocsr()
    wtw_diag = wtw.diagonal()

    full = fit.sse / df if df > 0 else math.nan
    within_fit = _absorbed_fit(card, n_cards, [question], [n_q], y, null_space=[np.arange(n_q)])
    df_within = int(y.size - n_cards - within_fit.rank)
    none = _Halo(full, 0.0, None, wtw_diag, card_weighted, card_sq)
    if df <= 0 or df_within <= 0:
        return none
    within = within_fit.sse / df_within
    if fit.cov_unscaled is not None:
        dense = wtw.toarray()
        trace = float(np.sum(fit.cov_unscaled * dense))
    else:
        dense = None
        trace = float(np.sum(wtw_diag / np.where(fit.reduced_diag > 0, fit.reduced_diag, np.inf)))
    t = float(np.sum(card_n - card_n**2 / cand_n[card_cand])) - trace
    card_var = max(0.0, (fit.sse - df * within) / t) if t > 0 else 0.0
    sandwich = None
    if dense is not None and fit.cov_unscaled is not None:
        sandwich = fit.cov_unscaled @ dense @ fit.cov_unscaled
    return _Halo(within, card_var, sandwich, wtw_diag, card_weighted, card_sq)


def _row_bilinear(
    left: sparse.csr_matrix, matrix: FloatArray, right: sparse.csr_matrix, chunk: int = 8192
) -> FloatArray:
    """Return l_r' A x_r for every row r of two sparse matrices and a dense A.

    Rows of ``left`` without entries (a candidate whose cards are all one
    size) are zero and skipped.
    """
    out = np.zeros(left.shape[0])
    rows = np.flatnonzero(np.diff(left.indptr))
    for start in range(0, rows.size, chunk):
        which = rows[start : start + chunk]
        product = left[which] @ matrix
        part = right[which]
        owner = np.repeat(np.arange(which.size), np.diff(part.indptr))
        out[which] = np.bincount(
            owner, part.data * product[owner, part.indices], minlength=which.size
        )
    return out
