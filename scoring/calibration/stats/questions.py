"""Questions: how well a question's rating separates strong from weak candidates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.calibration.stats._arrays import (
    FloatArray,
    IntArray,
    as_codes,
    as_floats,
    code_count,
    kept_where,
    safe_div,
    same_length,
    unique_inverse,
)

# Below 10 pairs a correlation is too unstable to show at all.
MIN_CORRELATION_PAIRS = 10


def _grouped_pearson(
    key: IntArray, x: FloatArray, y: FloatArray, n_keys: int
) -> tuple[FloatArray, IntArray]:
    """Return the Pearson correlation of x and y within each key, and pair counts."""
    count = np.bincount(key, minlength=n_keys)
    mx = safe_div(np.bincount(key, x, minlength=n_keys), count)
    my = safe_div(np.bincount(key, y, minlength=n_keys), count)
    dx = x - mx[key]
    dy = y - my[key]
    sxx = np.bincount(key, dx * dx, minlength=n_keys)
    syy = np.bincount(key, dy * dy, minlength=n_keys)
    sxy = np.bincount(key, dx * dy, minlength=n_keys)
    denom = np.sqrt(sxx * syy)
    # Relative tolerance: a constant column leaves round-off, not variance.
    scale_x = np.bincount(key, x * x, minlength=n_keys)
    scale_y = np.bincount(key, y * y, minlength=n_keys)
    degenerate = (sxx <= 1e-12 * np.maximum(scale_x, 1e-300)) | (
        syy <= 1e-12 * np.maximum(scale_y, 1e-300)
    )
    r = safe_div(sxy, np.where(degenerate, 0.0, denom))
    return np.clip(r, -1.0, 1.0), count.astype(np.int64)


@dataclass(frozen=True)
class DiscriminationResult:
    """Per-question correlations with the rest of the loop and with the decision."""

    with_rest: FloatArray
    with_rest_pairs: IntArray
    with_decision: FloatArray
    with_decision_pairs: IntArray


def question_discrimination(
    group: npt.ArrayLike,
    question: npt.ArrayLike,
    rating: npt.ArrayLike,
    *,
    n_questions: int | None = None,
    group_decision: npt.ArrayLike | None = None,
    min_pairs: int = MIN_CORRELATION_PAIRS,
) -> DiscriminationResult:
    """Return each question's discrimination (rest-of-loop and decision correlations).

    1. A question's score in a loop (``group``) is the mean of its ratings
       there; the rest score is the mean of all the loop's ratings on OTHER
       questions (a corrected item-total correlation, so the question does
       not correlate with itself).
    2. Pearson correlation over loops per question; NaN under ``min_pairs``.
    3. With ``group_decision`` (1 hire, 0 no hire, NaN unknown, indexed by
       group code), also the point-biserial correlation with the decision.
    """
    g = as_codes(group, "group")
    qu = as_codes(question, "question")
    y = as_floats(rating, "rating")
    same_length(group=g, question=qu, rating=y)
    g, qu, y = kept_where(~np.isnan(y), g, qu, y)
    n_q = code_count(qu, n_questions)
    empty_f = np.full(n_q, np.nan)
    empty_i = np.zeros(n_q, dtype=np.int64)
    if y.size == 0:
        return DiscriminationResult(empty_f, empty_i, empty_f.copy(), empty_i.copy())
    n_g = int(g.max()) + 1
    key, inverse = unique_inverse(g * n_q + qu, n_g * n_q)
    cell_n = np.bincount(inverse).astype(np.float64)
    cell_sum = np.bincount(inverse, y)
    cell_g, cell_q = key // n_q, key % n_q
    g_n = np.bincount(g, minlength=n_g).astype(np.float64)
    g_sum = np.bincount(g, y, minlength=n_g)
    rest_n = g_n[cell_g] - cell_n
    has_rest = rest_n > 0
    x = cell_sum[has_rest] / cell_n[has_rest]
    rest = (g_sum[cell_g][has_rest] - cell_sum[has_rest]) / rest_n[has_rest]
    r_rest, n_rest = _grouped_pearson(cell_q[has_rest], x, rest, n_q)
    r_rest[n_rest < min_pairs] = np.nan

    r_dec, n_dec = np.full(n_q, np.nan), np.zeros(n_q, dtype=np.int64)
    if group_decision is not None:
        dec = as_floats(group_decision, "group_decision")
        if dec.size < n_g:
            raise ValueError("group_decision must cover every group code")
        d = dec[cell_g]
        known = ~np.isnan(d)
        r_dec, n_dec = _grouped_pearson(
            cell_q[known], cell_sum[known] / cell_n[known], d[known], n_q
        )
        r_dec[n_dec < min_pairs] = np.nan
    return DiscriminationResult(r_rest, n_rest, r_dec, n_dec)
