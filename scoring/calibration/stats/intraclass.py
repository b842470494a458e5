"""Intraclass correlations of a complete candidates x interviewers grid.

References
----------
Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in
assessing rater reliability. Psychological Bulletin, 86(2), 420-428.

McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
correlation coefficients. Psychological Methods, 1(1), 30-46.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from scoring.calibration.stats._arrays import (
    CONFIDENCE,
    FloatArray,
    IntArray,
    compact_codes,
    distinct_per,
)

ICC_FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")


@dataclass(frozen=True)
class IccResult:
    """Six Shrout & Fleiss (1979) ICCs, their 95% CIs and the ANOVA mean squares."""

    values: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    n_targets: int
    n_raters: int
    mean_squares: dict[str, float]


def _f_ppf(q: float, dfn: float, dfd: float) -> np.float64:
    """Return the F distribution's q quantile, NaN unless both df are positive.

    What scipy.stats.f.ppf computes (it calls the same fdtri), without importing
    scipy.stats, which costs most of a second at start-up. A numpy float, so
    that dividing by a zero quantile gives inf as before, not ZeroDivisionError.
    """
    if not (dfn > 0 and dfd > 0):
        return np.float64(np.nan)
    return np.float64(special.fdtri(dfn, dfd, q))


def icc(grid: npt.ArrayLike, confidence: float = CONFIDENCE) -> IccResult:
    """Return the six Shrout & Fleiss ICCs of a complete targets x raters grid.

    1. Two-way ANOVA: mean squares for targets (MSR), raters (MSC), residual
       (MSE) and the one-way within-target mean square (MSW).
    2. ICC1/ICC1k (one-way random), ICC2/ICC2k (two-way random, absolute
       agreement), ICC3/ICC3k (two-way mixed, consistency) as in Shrout &
       Fleiss (1979) Table 2.
    3. Confidence intervals from the F distribution: exact F bounds for cases
       1 and 3, Satterthwaite's approximate df for case 2 (McGraw & Wong 1996,
       Table 7), the same formulas pingouin and R's psych::ICC use.

    Values are NaN where a mean square is zero (e.g. all ratings equal).
    """
    x = np.asarray(grid, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError("grid must be at least 2 targets x 2 raters")
    if not np.all(np.isfinite(x)):
        raise ValueError("grid must be complete (no NaN)")
    n, k = x.shape
    grand = x.mean()
    row = x.mean(axis=1)
    col = x.mean(axis=0)
    ss_r = k * float(np.sum((row - grand) ** 2))
    ss_c = n * float(np.sum((col - grand) ** 2))
    ss_e = float(np.sum((x - row[:, None] - col[None, :] + grand) ** 2))
    ss_w = float(np.sum((x - row[:, None]) ** 2))
    df_r, df_c, df_e, df_w = n - 1, k - 1, (n - 1) * (k - 1), n * (k - 1)
    msr, msc, mse, msw = ss_r / df_r, ss_c / df_c, ss_e / df_e, ss_w / df_w

    # A denominator that is zero up to rounding (e.g. MSC = MSE - n*MSR/k) gives
    # no ICC, not a number of 1e16.
    tiny = 1e-9 * (abs(msr) + abs(msc) + abs(mse) + abs(msw))

    def ratio(a: float, b: float) -> float:
        return a / b if abs(b) > tiny else math.nan

    values = {
        "ICC1": ratio(msr - msw, msr + (k - 1) * msw),
        "ICC2": ratio(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC3": ratio(msr - mse, msr + (k - 1) * mse),
        "ICC1k": ratio(msr - msw, msr),
        "ICC2k": ratio(msr - mse, msr + (msc - mse) / n),
        "ICC3k": ratio(msr - mse, msr),
    }

    q = 1.0 - (1.0 - confidence) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = ratio(msr, msw)
        f1_lo = f1 / _f_ppf(q, df_r, df_w)
        f1_hi = f1 * _f_ppf(q, df_w, df_r)
        f3 = ratio(msr, mse)
        f3_lo = f3 / _f_ppf(q, df_r, df_e)
        f3_hi = f3 * _f_ppf(q, df_e, df_r)
        icc2 = values["ICC2"]
        fj = ratio(msc, mse)
        a = k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2
        v = ratio(
            df_e * a**2, df_r * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        )
        f2_hi = _f_ppf(q, n - 1, v)
        f2_lo = _f_ppf(q, v, n - 1)
        base = k * msc + (k * n - k - n) * mse
        l2 = ratio(n * (msr - f2_hi * mse), f2_hi * base + n * msr)
        u2 = ratio(n * (f2_lo * msr - mse), base + n * f2_lo * msr)
        ci = {
            "ICC1": ((f1_lo - 1) / (f1_lo + k - 1), (f1_hi - 1) / (f1_hi + k - 1)),
            "ICC2": (l2, u2),
            "ICC3": ((f3_lo - 1) / (f3_lo + k - 1), (f3_hi - 1) / (f3_hi + k - 1)),
            "ICC1k": (1 - 1 / f1_lo, 1 - 1 / f1_hi),
            "ICC2k": (l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1))),
            "ICC3k": (1 - 1 / f3_lo, 1 - 1 / f3_hi),
        }
    clean = {
        name: (
            float(lo) if np.isfinite(lo) else math.nan,
            float(hi) if np.isfinite(hi) else math.nan,
        )
        for name, (lo, hi) in ci.items()
    }
    return IccResult(
        values={
            name: float(val) if math.isfinite(val) else math.nan for name, val in values.items()
        },
        ci95=clean,
        n_targets=n,
        n_raters=k,
        mean_squares={"MSR": msr, "MSC": msc, "MSE": mse, "MSW": msw},
    )


# --------------------------------------------------------------------------
# ICC grid search
# --------------------------------------------------------------------------


def largest_complete_grid(
    candidate: IntArray,
    interviewer: IntArray,
    question: IntArray,
    rating: FloatArray,
    n_questions: int,
) -> tuple[int, FloatArray] | None:
    """Return (question, grid) for the question whose ratings form the largest complete grid.

    A question's ratings form a complete grid when every candidate rated on it
    was rated by every interviewer who rated it (at least 2 x 2): the
    calibration exercise where everyone scores the same answers. Repeated
    ratings of a cell are averaged. None when no question qualifies.
    """
    if rating.size == 0:
        return None
    n_c = int(candidate.max()) + 1
    n_i = int(interviewer.max()) + 1
    # A question can be complete only if it has at least as many ratings as
    # its candidates times its interviewers: keep only those before sorting.
    per_question = np.bincount(question, minlength=n_questions)
    n_cand = distinct_per(question, candidate, n_questions, n_c)
    n_int = distinct_per(question, interviewer, n_questions, n_i)
    possible = (per_question >= n_cand * n_int) & (n_cand >= 2) & (n_int >= 2)
    if not possible.any():
        return None
    if not possible.all():
        mine = possible[question]
        candidate, interviewer = candidate[mine], interviewer[mine]
        question, rating = question[mine], rating[mine]
    cell_key, cell_inverse = np.unique(
        (question * n_c + candidate) * n_i + interviewer, return_inverse=True
    )
    cell_q = cell_key // (n_c * n_i)
    cells = np.bincount(cell_q, minlength=n_questions)
    # Cell keys are sorted by (question, candidate), so distinct candidates
    # per question are the key changes; no second sort needed.
    qc = cell_key // n_i
    first_qc = np.r_[True, qc[1:] != qc[:-1]]
    n_cand = np.bincount(cell_q[first_qc], minlength=n_questions)
    qi = cell_q * n_i + cell_key % n_i
    if n_questions * n_i <= 20_000_000:
        seen = np.bincount(qi, minlength=n_questions * n_i) > 0
        n_int = seen.reshape(n_questions, n_i).sum(axis=1)
    else:
        n_int = np.bincount(np.unique(qi) // n_i, minlength=n_questions)
    complete = (cells == n_cand * n_int) & (n_cand >= 2) & (n_int >= 2)
    if not complete.any():
        return None
    best = int(np.argmax(np.where(complete, cells, -1)))
    mean = np.bincount(cell_inverse, rating) / np.bincount(cell_inverse)
    mine = cell_q == best
    key, value = cell_key[mine], mean[mine]
    rows, _ = compact_codes((key // n_i) % n_c, n_c)
    cols, _ = compact_codes(key % n_i, n_i)
    grid = np.full((int(rows.max()) + 1, int(cols.max()) + 1), np.nan)
    grid[rows, cols] = value
    return best, grid
