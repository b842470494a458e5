"""A persistent interviewer x question deviation, and what it adds to a severity's error.

An interviewer who always rates one question half a point lower (a favourite
follow-up, a stricter private rubric) leaves the additive model's residuals
correlated across all the candidates they asked it of. The model's standard
error ignores that, so flags fire too often near neutral. This estimates the
variance of such deviations, sigma²_iq, from the additive fit's residuals by
the method of moments (Henderson III in spirit) and widens each severity's
standard error by what it would add to the interviewer's mean rating.

1. Residuals r of the additive fit; cells k = (interviewer, question) with
   n_k ratings; S = sum_k n_k mean_k(r)², the between-cell residual sum of
   squares, and W = SSE - S, the within-cell one.
2. Under rating = ... + g_k + e, with the fitted effects' leverage on cells
   approximated (each candidate's share of a cell, each factor's share):
   E[S] = s2_e a + s2_iq b and E[W] = s2_e (df - a), where
   a = K - (I + Q - 1) - sum_{c,k} n_ck² / (n_c n_k) and
   b = N - sum_{c,k} n_ck² / n_c - sum_k n_k² (1 / n_i(k) + 1 / n_q(k)).
3. s2_iq = max(0, (S - a W / (df - a)) / b): 0 when the design has no
   replication within cells or no degrees of freedom to tell them apart.
4. An interviewer's severity, roughly their mean residualised rating, gains
   s2_iq sum_q n_iq² / n_i² of variance (a little conservative: question
   effects absorb part of each deviation).
"""

from __future__ import annotations

import math

import numpy as np

from scoring.calibration.stats._arrays import FloatArray, IntArray


def interaction_variance(
    candidate: IntArray,
    interviewer: IntArray,
    question: IntArray,
    residual: FloatArray,
    n_i: int,
    n_q: int,
    df: int,
) -> tuple[float, FloatArray]:
    """Return s2_iq and, per interviewer, the factor sum_q n_iq² / n_i² it multiplies."""
    n = residual.size
    share = np.zeros(n_i)
    if n == 0 or df <= 0:
        return 0.0, share
    cell_key = interviewer.astype(np.int64) * n_q + question
    if n_i * n_q <= 4 * n + 1_000_000:  # dense keys: a bincount instead of a sort
        present = np.bincount(cell_key, minlength=n_i * n_q) > 0
        cells = np.flatnonzero(present)
        code = np.cumsum(present) - 1
        cell = code[cell_key]
    else:
        cells, cell = np.unique(cell_key, return_inverse=True)
    n_k = np.bincount(cell).astype(np.float64)
    sums = np.bincount(cell, residual)
    between = float(np.sum(sums * sums / n_k))
    within = max(float(residual @ residual) - between, 0.0)
    cell_i, cell_q = cells // n_q, cells % n_q
    n_int = np.bincount(interviewer, minlength=n_i).astype(np.float64)
    n_que = np.bincount(question, minlength=n_q).astype(np.float64)
    n_c = np.bincount(candidate).astype(np.float64)
    pair, pair_n = np.unique(candidate.astype(np.int64) * cells.size + cell, return_counts=True)
    pair_c, pair_k = pair // cells.size, pair % cells.size
    pair_sq = pair_n.astype(np.float64) ** 2
    a = float(cells.size - (np.count_nonzero(n_int) + np.count_nonzero(n_que) - 1))
    a -= float(np.sum(pair_sq / (n_c[pair_c] * n_k[pair_k])))
    b = n - float(np.sum(pair_sq / n_c[pair_c]))
    b -= float(np.sum(n_k**2 * (1.0 / n_int[cell_i] + 1.0 / n_que[cell_q])))
    share = np.bincount(cell_i, n_k**2, minlength=n_i) / np.maximum(n_int, 1.0) ** 2
    if df - a <= 0 or b <= 0 or a <= 0:
        return 0.0, share
    s2_e = within / (df - a)
    s2 = (between - a * s2_e) / b
    return (s2 if math.isfinite(s2) and s2 > 0 else 0.0), share
