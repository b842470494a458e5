"""The interviewer rows of the calibration snapshot: counts, leniency, severity, flags."""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring.calibration.stats._arrays import FloatArray, IntArray, _safe_div
from scoring.calibration.stats._json import _column, _rating_key
from scoring.calibration.stats.agreement import _agreement_from, recommendation_agreement
from scoring.calibration.stats.raters import AdditiveFit, _leniency_from, leniency
from scoring.calibration.stats.shrinkage import Shrinkage, shrink

# An interviewer is flagged lenient/harsh only when the average gap to
# co-panelists is larger than half a rating point AND its 95% interval
# excludes zero: half a point on a 1-4 scale moves hire decisions, and the
# interval keeps interviewers with few candidates from being flagged on noise.
LENIENCY_FLAG_POINTS = 0.5


def _distributions(
    interviewer: IntArray, rating: FloatArray, n_interviewers: int
) -> list[dict[str, int]]:
    """Return per interviewer {rating: count}, ratings in ascending order."""
    distributions: list[dict[str, int]] = [{} for _ in range(n_interviewers)]
    if rating.size == 0:
        return distributions
    values = np.unique(rating)
    code = np.searchsorted(values, rating)
    if n_interviewers * values.size <= 4 * rating.size + 1_000_000:
        counts = np.bincount(
            interviewer * values.size + code, minlength=n_interviewers * values.size
        ).reshape(n_interviewers, values.size)
        who, which = np.nonzero(counts)
        count = counts[who, which]
    else:
        key, count = np.unique(interviewer * values.size + code, return_counts=True)
        who, which = key // values.size, key % values.size
    for w, v, k in zip(who.tolist(), values[which].tolist(), count.tolist(), strict=True):
        distributions[w][_rating_key(v)] = k
    return distributions


def interviewer_rows(
    fit: AdditiveFit,
    lp: IntArray,
    i: IntArray,
    y: FloatArray,
    rec: FloatArray | None,
    loop_decision: FloatArray | None,
    card_loop: IntArray,
    card_int: IntArray,
    card_of: IntArray,
    n_i: int,
    ndigits: int | None,
) -> tuple[list[dict[str, Any]], Shrinkage, IntArray]:
    """Return one row per interviewer code, the severity shrinkage and the rating counts."""
    int_n = np.bincount(i, minlength=n_i)
    int_mean = _safe_div(np.bincount(i, y, minlength=n_i), int_n)
    len_res = (
        _leniency_from(card_loop, card_int, card_of, y, n_i)
        if y.size
        else leniency(lp, i, y, n_interviewers=n_i)
    )
    if rec is not None and loop_decision is not None and y.size:
        agree, agree_n = _agreement_from(card_loop, card_int, card_of, rec, loop_decision, n_i)
    elif rec is not None and loop_decision is not None:
        agree, agree_n = recommendation_agreement(lp, i, rec, loop_decision, n_interviewers=n_i)
    else:
        agree, agree_n = np.full(n_i, np.nan), np.zeros(n_i, dtype=np.int64)
    distributions = _distributions(i, y, n_i)
    lenient = (len_res.leniency > LENIENCY_FLAG_POINTS) & (len_res.ci_low > 0)
    harsh = (len_res.leniency < -LENIENCY_FLAG_POINTS) & (len_res.ci_high < 0)
    sev = _column(fit.severity, ndigits)
    sev_se = _column(fit.severity_se, ndigits)
    shrunk = shrink(np.where(fit.interviewer_comparable, fit.severity, np.nan), fit.severity_se)
    shrunk_sev = _column(shrunk.shrunk, ndigits)
    shrunk_low, shrunk_high = _column(shrunk.ci_low, ndigits), _column(shrunk.ci_high, ndigits)
    sev_reliability = _column(shrunk.reliability, ndigits)
    interviewers = []
    for code, (n_r_i, mean_i, len_i, lo_i, hi_i, len_n, ag, ag_n) in enumerate(
        zip(
            int_n.tolist(),
            _column(int_mean, ndigits),
            _column(len_res.leniency, ndigits),
            _column(len_res.ci_low, ndigits),
            _column(len_res.ci_high, ndigits),
            len_res.n_candidates.tolist(),
            _column(agree, ndigits),
            agree_n.tolist(),
            strict=True,
        )
    ):
        comparable = bool(fit.interviewer_comparable[code])
        reason = None
        if not comparable:
            reason = (
                "no ratings"
                if n_r_i == 0
                else "not connected to the main panel (no shared candidates)"
            )
        interviewers.append(
            {
                "interviewer": code,
                "ratings": n_r_i,
                "mean": mean_i,
                "distribution": distributions[code],
                "leniency": len_i,
                "leniency_ci": [lo_i, hi_i] if lo_i is not None else None,
                "leniency_candidates": len_n,
                "severity": sev[code],
                "severity_se": sev_se[code],
                "severity_shrunk": shrunk_sev[code],
                "severity_shrunk_ci": None
                if shrunk_low[code] is None
                else [shrunk_low[code], shrunk_high[code]],
                "severity_reliability": sev_reliability[code],
                "comparable": comparable,
                "reason": reason,
                "agreement": ag,
                "agreement_n": ag_n,
                "flag": "lenient" if lenient[code] else "harsh" if harsh[code] else None,
            }
        )

    return interviewers, shrunk, int_n
