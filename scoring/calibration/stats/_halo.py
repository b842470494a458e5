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

from scoring.calibration.stats._arrays import FloatArray, IntArray, counts_matrix
from scoring.calibration.stats._least_squares import AbsorbedFit, absorbed_fit


@dataclass(frozen=True)
class HaloCards:
    """The scorecards of the ratings in a fit: their sizes and candidates.

    ``mean_size`` is, per candidate, the mean size of its cards weighted by
    size (sum of n_s^2 over sum of n_s): the weight of the candidate's term in
    W'W (see halo_components), which absorbed_fit forms with its own.
    """

    code: IntArray  # per rating: its card, 0..n_cards-1
    size: FloatArray  # per card: its ratings
    candidate: IntArray  # per card
    interviewer: IntArray  # per card
    squares: FloatArray  # per candidate: sum over its cards of size^2
    ratings: FloatArray  # per candidate
    mean_size: FloatArray  # per candidate: squares / ratings

    @classmethod
    def of(cls, card: IntArray, cand: IntArray, n_cand: int, interviewer: IntArray) -> HaloCards:
        """Return the cards of ratings with compact ``card`` codes, each on one
        candidate and interviewer (ValueError otherwise)."""
        n_cards = int(card.max()) + 1 if card.size else 0
        size = np.bincount(card, minlength=n_cards).astype(np.float64)
        card_cand = np.zeros(n_cards, dtype=np.int64)
        card_cand[card] = cand
        card_int = np.zeros(n_cards, dtype=np.int64)
        card_int[card] = interviewer
        if np.any(card_cand[card] != cand) or np.any(card_int[card] != interviewer):
            raise ValueError("a scorecard's ratings must share one candidate and one interviewer")
        # Weighted counts are float64 already (numpy's stubs say intp): no copy is made.
        squares = np.bincount(card_cand, size**2, minlength=n_cand).astype(np.float64, copy=False)
        cand_n = np.bincount(cand, minlength=n_cand).astype(np.float64)
        mean_size = np.divide(squares, cand_n, out=np.zeros(n_cand), where=cand_n > 0)
        return cls(card, size, card_cand, card_int, squares, cand_n, mean_size)


@dataclass(frozen=True)
class _Halo:
    within: float  # variance of a rating around its card's level
    card: float  # variance of the card halo (0 when the data show none)
    sandwich: FloatArray | None  # C+ W'W C+, None on the large-problem path
    wtw_diag: FloatArray  # diag(W'W), for the large-problem path
    card_weighted: sparse.csr_matrix  # per candidate: sum over its cards of size x W row
    card_sq_per_cand: FloatArray  # per candidate: sum over its cards of size^2


def halo_components(
    cards: HaloCards,
    interviewer: IntArray,
    n_i: int,
    question: IntArray,
    n_q: int,
    y: FloatArray,
    fit: AbsorbedFit,
    df: int,
) -> _Halo:
    """Return the card and within-card variances and what the covariances need.

    ``fit`` is the full model's, over candidates with interviewers then
    questions as factors, weighted by ``cards.mean_size``.

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

    W'W, with A the cards' counts of each level, m_c a candidate's
    size-weighted mean card size and E_c = sum over its cards of
    (n_s - m_c) A_s (zero when its cards are all one size), is
    A'A - E'xbar - xbar'E - sum_c m_c n_c xbar_c xbar_c': the last term is
    the fit's weighted between-candidate matrix, and A'A comes from the
    within-card fit's (questions) and counts per interviewer, so no product
    over cards or candidates is formed for it alone.
    """
    card, card_n = cards.code, cards.size
    n_cand = cards.squares.size
    p = n_i + n_q
    within_fit = absorbed_fit(
        card, card_n.size, [question], [n_q], y, null_space=[np.arange(n_q)], weights=card_n
    )
    assert fit.weighted_between is not None and within_fit.weighted_between is not None
    # A'A: an interviewer holds the whole card (A_s = n_s e_i + the card's questions).
    by_pair = np.bincount(interviewer * n_q + question, card_n[card], minlength=n_i * n_q)
    both = sparse.csr_matrix(by_pair.reshape(n_i, n_q))
    alone = sparse.diags(np.bincount(cards.interviewer, card_n**2, minlength=n_i))
    ata = sparse.csr_matrix(
        sparse.vstack(
            [sparse.hstack([alone, both]), sparse.hstack([both.T, within_fit.weighted_between])]
        )
    )
    # E: each rating adds its card's size less its candidate's mean card size.
    cand = cards.candidate[card]
    gap = card_n[card] - cards.mean_size[cand]
    uneven = np.flatnonzero(gap)
    columns = np.concatenate([interviewer[uneven], n_i + question[uneven]])
    card_weighted = counts_matrix(
        np.tile(cand[uneven], 2), columns, (n_cand, p), weights=np.tile(gap[uneven], 2)
    )
    half = (card_weighted.T @ fit.xbar).tocsr()
    wtw = (ata - fit.weighted_between - half - half.T).tocsr()
    wtw_diag = wtw.diagonal()

    full = fit.sse / df if df > 0 else math.nan
    df_within = int(y.size - card_n.size - within_fit.rank)
    none = _Halo(full, 0.0, None, wtw_diag, card_weighted, cards.squares)
    if df <= 0 or df_within <= 0:
        return none
    within = within_fit.sse / df_within
    if fit.cov_unscaled is not None:
        dense = wtw.toarray()
        trace = float(np.sum(fit.cov_unscaled * dense))
    else:
        dense = None
        trace = float(np.sum(wtw_diag / np.where(fit.reduced_diag > 0, fit.reduced_diag, np.inf)))
    t = float(np.sum(card_n - card_n**2 / cards.ratings[cards.candidate])) - trace
    card_var = max(0.0, (fit.sse - df * within) / t) if t > 0 else 0.0
    sandwich = None
    if dense is not None and fit.cov_unscaled is not None:
        sandwich = fit.cov_unscaled @ dense @ fit.cov_unscaled
    return _Halo(within, card_var, sandwich, wtw_diag, card_weighted, cards.squares)


def row_bilinear(
    left: sparse.csr_matrix, matrix: FloatArray, right: sparse.csr_matrix, chunk: int = 2048
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
