"""Severities for stated periods, and their change: the hook for time (issue 33, item 2).

Not wired yet: the read does not carry ``interviewed_at`` to the statistics.
Once it does, the caller codes each rating's period (0 = earliest, the last
= the stated period, by default the last 12 months) and reports the last
period's severities and flags (a harshness that ended before it is not a
flag today; one that began within it is), and the change from the period
before it.

Each period is fitted on its own (stats.raters.fit_additive), so a period's
severities are relative to that period's interviewers; the change between
two periods is the difference of two independent estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.calibration.stats._arrays import FloatArray, as_codes, code_count
from scoring.calibration.stats.raters import AdditiveFit, fit_additive

__all__ = ["PeriodSeverities", "period_severities"]


@dataclass(frozen=True)
class PeriodSeverities:
    """Per period and interviewer (rows: periods): severity and its robust SE.

    NaN where an interviewer has no estimable severity in a period. ``change``
    is the last period's severity less the one before, ``change_se`` its SE
    (the two periods' estimates are independent). ``fits`` holds each
    period's whole fit, for flags and intervals of the stated period.
    """

    severity: FloatArray
    severity_se: FloatArray
    change: FloatArray
    change_se: FloatArray
    fits: tuple[AdditiveFit, ...]


def period_severities(
    candidate: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    question: npt.ArrayLike,
    rating: npt.ArrayLike,
    period: npt.ArrayLike,
    *,
    n_periods: int | None = None,
    n_interviewers: int | None = None,
    scorecard: npt.ArrayLike | None = None,
) -> PeriodSeverities:
    """Return each period's severities (fitted on that period's ratings) and the last change.

    ``period`` is each rating's period code (0 .. n_periods - 1, the last the
    stated period). Only separable interviewers (stats.estimability) keep a
    severity; with fewer than two periods the change is NaN.
    """
    p = as_codes(period, "period")
    i = as_codes(interviewer, "interviewer")
    c, q = np.asarray(candidate), np.asarray(question)
    y = np.asarray(rating, dtype=np.float64)
    card = None if scorecard is None else np.asarray(scorecard)
    n_p = code_count(p, n_periods)
    n_i = code_count(i, n_interviewers)
    severity = np.full((n_p, n_i), np.nan)
    se = np.full((n_p, n_i), np.nan)
    fits = []
    for code in range(n_p):
        mine = p == code
        fit = fit_additive(
            c[mine],
            i[mine],
            q[mine],
            y[mine],
            n_interviewers=n_i,
            scorecard=None if card is None else card[mine],
        )
        fits.append(fit)
        if fit.interviewer_separable.size:
            keep = fit.interviewer_separable & np.isfinite(fit.severity)
            severity[code, keep] = fit.severity[keep]
            se[code, keep] = fit.severity_se_robust[keep]
    if n_p >= 2:
        change = severity[-1] - severity[-2]
        change_se = np.hypot(se[-1], se[-2])
    else:
        change = np.full(n_i, math.nan)
        change_se = np.full(n_i, math.nan)
    return PeriodSeverities(severity, se, change, change_se, tuple(fits))
