"""Severities for a stated period, and their change from the period before (issue 33).

A snapshot's severities describe a stated period: by default the 12 months up
to the scope's newest interview (``Period``). Each rating is coded by the
period its interview fell in (``Period.code``): the stated period, the one of
the same length before it, or older. ``summarise`` fits the stated period's
ratings for every interviewer figure and flag (so a harshness that ended
before the period is not a flag, and one that began within it is), and the
previous period's for ``severity_change`` (``severity_change``).

Each period is fitted on its own (stats.raters.fit_additive), so a period's
severities are relative to that period's interviewers: with candidates fixed,
a shift of every interviewer between two periods cannot be told from a shift of
the candidates, so the change is how far an interviewer moved relative to the
panel, not against an absolute standard. The two estimates are independent
(no rating is in both), so the change's variance is the sum of theirs.
"""

from __future__ import annotations

import calendar
import math
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from scoring.calibration.stats._arrays import (
    Z95,
    BoolArray,
    FloatArray,
    IntArray,
    as_codes,
    code_count,
    distinct_pairs,
)
from scoring.calibration.stats._json import json_column
from scoring.calibration.stats.interviewers import severity_flags
from scoring.calibration.stats.raters import AdditiveFit, fit_additive

__all__ = [
    "CURRENT",
    "OLDER",
    "PREVIOUS",
    "PREVIOUS_MIN_RATINGS",
    "Period",
    "PeriodSeverities",
    "SeverityChange",
    "Stated",
    "period_severities",
    "severity_change",
]

# A rating's period code (Period.code).
CURRENT, PREVIOUS, OLDER = 1, 0, -1
# An interviewer's previous severity (and the change) is stated from this many
# ratings in the previous period, besides a separable severity there.
PREVIOUS_MIN_RATINGS = 10


def months_before(moment: datetime, months: int) -> datetime:
    """Return the same day and time `months` calendar months earlier (the day clipped to
    the month's length: 31 March less one month is 28 or 29 February)."""
    index = moment.year * 12 + moment.month - 1 - months
    year, month = divmod(index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


@dataclass(frozen=True)
class Period:
    """The stated period [start, end] and the previous one [previous_start, start), in
    seconds since 1970 (UTC). ``end`` is the newest interview's time."""

    end: int
    start: int
    previous_start: int
    months: int

    @classmethod
    def ending(cls, end: int, months: int) -> Period:
        """Return the `months` calendar months up to `end` (seconds since 1970)."""
        if months < 1:
            raise ValueError(f"a period is at least one month, not {months}")
        last = datetime.fromtimestamp(end, UTC)
        start = months_before(last, months)
        return cls(
            end, int(start.timestamp()), int(months_before(start, months).timestamp()), months
        )

    @classmethod
    def of(cls, times: npt.ArrayLike, months: int) -> Period | None:
        """Return the period of `months` ending at the newest of `times` (None: no times)."""
        t = np.asarray(times, dtype=np.int64)
        return cls.ending(int(t.max()), months) if t.size else None

    def code(self, times: npt.ArrayLike) -> IntArray:
        """Return per time its period: CURRENT, PREVIOUS or OLDER."""
        t = np.asarray(times, dtype=np.int64)
        out = np.full(t.size, OLDER, dtype=np.int64)
        out[t >= self.previous_start] = PREVIOUS
        out[t >= self.start] = CURRENT
        return out

    def as_json(self) -> dict[str, object]:
        """Return the period as the snapshot states it (ISO 8601 date-times, UTC)."""

        def iso(seconds: int) -> str:
            return datetime.fromtimestamp(seconds, UTC).isoformat()

        return {
            "start": iso(self.start),
            "end": iso(self.end),
            "months": self.months,
            "previous": {"start": iso(self.previous_start), "end": iso(self.start)},
        }


@dataclass(frozen=True)
class SeverityChange:
    """Per interviewer code: the previous period's severity and the change since.

    NaN where not stated: no separable severity in either period, or fewer than
    PREVIOUS_MIN_RATINGS ratings in the previous one. ``previous_se`` and
    ``change_se`` use the robust standard errors (severity_se_robust).
    """

    ratings_previous: IntArray
    previous: FloatArray
    previous_se: FloatArray
    change: FloatArray
    change_se: FloatArray


def _robust(fit: AdditiveFit) -> FloatArray:
    if fit.severity_se_robust.size != fit.severity_se.size:
        return fit.severity_se
    return np.where(np.isfinite(fit.severity_se_robust), fit.severity_se_robust, fit.severity_se)


def severity_change(
    now: AdditiveFit,
    now_reported: npt.ArrayLike,
    before: AdditiveFit | None,
    before_reported: npt.ArrayLike | None,
    ratings_before: npt.ArrayLike,
    min_ratings: int = PREVIOUS_MIN_RATINGS,
) -> SeverityChange:
    """Return the previous period's severities and the change to the stated period's.

    ``*_reported`` mark per interviewer code a separable severity in that
    period's fit (stats.interviewers.severity_flags); ``ratings_before`` counts
    each interviewer's ratings in the previous period.
    """
    n_before = np.asarray(ratings_before, dtype=np.int64)
    n_i = now.severity.size
    previous = np.full(n_i, np.nan)
    previous_se = np.full(n_i, np.nan)
    if before is not None and before_reported is not None:
        keep = np.asarray(before_reported, dtype=bool) & (n_before >= min_ratings)
        previous[keep] = before.severity[keep]
        previous_se[keep] = _robust(before)[keep]
    current = np.where(np.asarray(now_reported, dtype=bool), now.severity, np.nan)
    return SeverityChange(
        n_before,
        previous,
        previous_se,
        current - previous,
        np.hypot(_robust(now), previous_se),
    )


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
    severity; with fewer than two periods the change is NaN. (``summarise``
    states the change with the flags' own separability: ``severity_change``.)
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
            se[code, keep] = _robust(fit)[keep]
    if n_p >= 2:
        change = severity[-1] - severity[-2]
        change_se = np.hypot(se[-1], se[-2])
    else:
        change = np.full(n_i, math.nan)
        change_se = np.full(n_i, math.nan)
    return PeriodSeverities(severity, se, change, change_se, tuple(fits))


def previous_change(
    arrays: tuple[IntArray, IntArray, IntArray, FloatArray, IntArray],
    period: IntArray,
    now: AdditiveFit,
    now_reported: npt.ArrayLike,
    *,
    sizes: tuple[int, int, int],
) -> SeverityChange:
    """Return the change to the stated period's fit `now` from the previous period's.

    ``arrays`` are every rating's candidate, interviewer, question, rating and
    loop, ``period`` its period code and ``sizes`` the numbers of candidates,
    interviewers and questions. The previous period is fitted on its own and
    its severities are stated where the flags would report one (separable,
    stats.interviewers.severity_flags) from PREVIOUS_MIN_RATINGS ratings.
    """
    c, i, qu, y, lp = arrays
    n_c, n_i, n_q = sizes
    before = period == PREVIOUS
    counts = np.bincount(i[before], minlength=n_i)
    if not before.any():
        return severity_change(now, now_reported, None, None, counts)
    c_b, i_b, q_b, y_b = c[before], i[before], qu[before], y[before]
    # A scorecard is a (loop, interviewer) pair, as in summarise.
    fit = fit_additive(
        c_b, i_b, q_b, y_b, n_candidates=n_c, n_interviewers=n_i, n_questions=n_q,
        scorecard=distinct_pairs(lp[before], i_b, n_i)[2],
    )  # fmt: skip
    reported = severity_flags(fit, i_b, q_b, n_q).reported
    return severity_change(now, now_reported, fit, reported, counts)


def change_columns(change: SeverityChange, ndigits: int | None) -> list[dict[str, object]]:
    """Return per interviewer code the keys the snapshot's row gains for the change."""
    prev, prev_se, delta, delta_se = (
        change.previous,
        change.previous_se,
        change.change,
        change.change_se,
    )
    columns = [
        json_column(values, ndigits)
        for values in (
            prev, prev - Z95 * prev_se, prev + Z95 * prev_se,
            delta, delta_se, delta - Z95 * delta_se, delta + Z95 * delta_se,
        )
    ]  # fmt: skip
    rows = []
    for n, (p, p_lo, p_hi, d, d_se, d_lo, d_hi) in enumerate(zip(*columns, strict=True)):
        rows.append(
            {
                "ratings_previous": int(change.ratings_previous[n]),
                "severity_previous": p,
                "severity_previous_ci": None if p_lo is None else [p_lo, p_hi],
                "severity_change": d,
                "severity_change_se": d_se if d is not None else None,
                "severity_change_ci": None if d_lo is None else [d_lo, d_hi],
            }
        )
    return rows


@dataclass(frozen=True)
class Stated:
    """The stated period's ratings and fit, as summarise's interviewer rows read them.

    ``keep`` marks the ratings in the period; None when every rating is (then
    the arrays, cards and fit are the whole scope's, computed once).
    """

    fit: AdditiveFit
    keep: BoolArray | None
    loop: IntArray
    interviewer: IntArray
    question: IntArray
    rating: FloatArray
    recommendation: FloatArray | None
    cards: tuple[IntArray, IntArray, IntArray]

    @classmethod
    def of(
        cls,
        fit: AdditiveFit,
        period: IntArray | None,
        arrays: tuple[IntArray, IntArray, IntArray, FloatArray, IntArray],
        recommendation: FloatArray | None,
        cards: tuple[IntArray, IntArray, IntArray],
        sizes: tuple[int, int, int],
    ) -> Stated:
        """Return the stated period of the scope whose whole fit is `fit` (arrays as in
        previous_change; `cards` its (loop, interviewer) pairs, see _arrays.distinct_pairs)."""
        c, i, qu, y, lp = arrays
        if period is None or bool(np.all(period == CURRENT)):
            return cls(fit, None, lp, i, qu, y, recommendation, cards)
        keep = period == CURRENT
        c_n, i_n, q_n, y_n, lp_n = c[keep], i[keep], qu[keep], y[keep], lp[keep]
        n_c, n_i, n_q = sizes
        empty = np.zeros(0, np.int64)
        cards_n = distinct_pairs(lp_n, i_n, n_i) if y_n.size else (empty, empty, empty)
        now = fit_additive(
            c_n, i_n, q_n, y_n, n_candidates=n_c, n_interviewers=n_i, n_questions=n_q,
            scorecard=cards_n[2],
        )  # fmt: skip
        rec = None if recommendation is None else recommendation[keep]
        return cls(now, keep, lp_n, i_n, q_n, y_n, rec, cards_n)
