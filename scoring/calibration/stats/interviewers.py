"""The interviewer rows of the calibration snapshot: counts, leniency, severity, flags."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from scoring.calibration.stats._arrays import CONFIDENCE, BoolArray, FloatArray, IntArray, safe_div
from scoring.calibration.stats._json import json_column, rating_key
from scoring.calibration.stats.agreement import (
    agreement_from,
    chance_corrected_agreement,
    recommendation_agreement,
)
from scoring.calibration.stats.raters import AdditiveFit, leniency, leniency_from
from scoring.calibration.stats.separability import MIN_SHARED_SHARE, shared_question_share
from scoring.calibration.stats.shrinkage import Shrinkage, shrink

# An interviewer is flagged harsh or lenient only when their severity is
# credibly away from 0 across the whole roster (Benjamini-Hochberg, false
# discovery rate 5%) and their shrunk severity is at least FLAG_MIN_POINTS:
# bench/calibration_power.py measures what these two choices buy (see the
# docs/calibration.md, "Flags").
FLAG_FDR = 0.05
FLAG_MIN_POINTS = 0.2


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
        distributions[w][rating_key(v)] = k
    return distributions


@dataclass(frozen=True)
class InterviewerFlags:
    """Which interviewers are flagged, and the evidence behind it (per code)."""

    reported: BoolArray  # comparable and separable: has a severity to report
    separable: BoolArray
    shared_share: FloatArray
    p: FloatArray  # two-sided p of severity = 0 (NaN where not eligible)
    q: FloatArray  # Benjamini-Hochberg adjusted over the eligible
    flagged: BoolArray
    shrunk: Shrinkage
    detectable: FloatArray  # smallest |severity| flagged with 80% probability (NaN: none)
    alpha: float  # the per-test level behind detectable (BH's next threshold)


def severity_flags(fit: AdditiveFit, i: IntArray, qu: IntArray, n_q: int) -> InterviewerFlags:
    """Return the flags of the interviewers of one scope.

    1. Separable: comparable (in the main panel), not aliased with their
       questions (in the design's reference group, stats.estimability) and
       at least MIN_SHARED_SHARE of their ratings on shared questions
       (separability). Nobody else is tested, shrunk or flagged: a flag
       never rests on an aliased contrast.
    2. Shrink the separable interviewers' severities toward 0 by reliability.
    3. Test severity = 0 for each with its standard error allowing for the
       scorecard halo and for persistent interviewer x question deviations
       (severity_se_robust: stats._interaction), and
       adjust the p-values by Benjamini-Hochberg over the role's eligible
       interviewers (false discovery rate FLAG_FDR).
    4. Flag where the adjusted p is at most FLAG_FDR and the shrunk severity
       is at least FLAG_MIN_POINTS from 0: harsh when positive.
    """
    n_i = fit.severity.size
    in_main = fit.interviewer_comparable[i]
    shared_share = shared_question_share(i[in_main], qu[in_main], n_i, n_q)
    separable = (
        fit.interviewer_comparable
        & fit.interviewer_separable
        & (np.nan_to_num(shared_share) >= MIN_SHARED_SHARE)
    )
    reported = separable & np.isfinite(fit.severity)
    eligible = reported & (fit.severity_se > 0)
    shrunk = shrink(np.where(reported, fit.severity, np.nan), fit.severity_se)
    se = _robust_se(fit)
    p = np.full(n_i, np.nan)
    q = np.full(n_i, np.nan)
    if eligible.any():
        z = fit.severity[eligible] / se[eligible]
        p[eligible] = 2.0 * special.ndtr(-np.abs(z))
        q[eligible] = benjamini_hochberg(p[eligible])
    with np.errstate(invalid="ignore"):
        flagged = (q <= FLAG_FDR) & (np.abs(shrunk.shrunk) >= FLAG_MIN_POINTS)
    detectable, alpha = detectable_severity(
        np.where(eligible, se, np.nan),
        shrunk.reliability,
        int(np.count_nonzero(eligible)),
        int(np.count_nonzero(np.nan_to_num(q, nan=1.0) <= FLAG_FDR)),
    )
    return InterviewerFlags(
        reported, separable, shared_share, p, q, flagged, shrunk, detectable, alpha
    )


def _robust_se(fit: AdditiveFit) -> FloatArray:
    """Return the severity SE widened for interviewer x question deviations (or the model's)."""
    if fit.severity_se_robust.size != fit.severity_se.size:
        return fit.severity_se
    return np.where(np.isfinite(fit.severity_se_robust), fit.severity_se_robust, fit.severity_se)


# The power at which detectable_severity is stated.
DETECTABLE_POWER = 0.8


def detectable_severity(
    se: FloatArray,
    reliability: FloatArray,
    n_tests: int,
    discoveries: int,
    fdr: float = FLAG_FDR,
    min_points: float = FLAG_MIN_POINTS,
    power: float = DETECTABLE_POWER,
) -> tuple[FloatArray, float]:
    """Return per interviewer the smallest |severity| flagged with probability ``power``.

    A flag needs (a) the Benjamini-Hochberg adjusted p at most ``fdr``: for
    one more discovery beside the ``discoveries`` already made among
    ``n_tests``, p <= alpha = fdr (discoveries + 1) / n_tests, i.e.
    |severity| / se >= z_alpha (two-sided); and (b) the shrunk value
    reliability x severity at least ``min_points``, i.e. |severity| >=
    min_points / reliability. The estimate is normal around the truth d with
    SD se, so P(flag) = power when d = se (max(z_alpha, min_points /
    (reliability se)) + z_power) (the far tail of the wrong sign ignored).
    NaN where se is missing or reliability is 0 (no severity can be flagged
    there: the scope sees no spread beyond noise). Returns the values and alpha.
    """
    alpha = fdr * (discoveries + 1) / max(n_tests, 1)
    z_alpha = float(special.ndtri(1.0 - alpha / 2.0))
    z_power = float(special.ndtri(power))
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.maximum(z_alpha, min_points / (reliability * se))
        out = se * (needed + z_power)
    out = np.where(np.isfinite(out) & (se > 0) & (reliability > 0), out, np.nan)
    return out, alpha


def benjamini_hochberg_across(p_by_scope: list[FloatArray]) -> list[FloatArray]:
    """Return Benjamini-Hochberg q-values over several scopes' p-values pooled.

    For a role and its levels, whose snapshots test overlapping interviewers:
    one false discovery rate over every test the role makes, instead of one
    per snapshot. NaNs (untested) stay NaN; the result is split back per scope.
    """
    flat = np.concatenate([np.asarray(p, dtype=np.float64) for p in p_by_scope] or [np.zeros(0)])
    out = np.full(flat.size, np.nan)
    tested = np.isfinite(flat)
    if tested.any():
        out[tested] = benjamini_hochberg(flat[tested])
    bounds = np.cumsum([0, *(np.asarray(p).size for p in p_by_scope)])
    return [out[a:b] for a, b in itertools.pairwise(bounds)]


def benjamini_hochberg(p: FloatArray) -> FloatArray:
    """Return Benjamini-Hochberg adjusted p-values (q-values) of ``p``.

    What scipy.stats.false_discovery_control(p, method="bh") returns (the
    tests compare them), without importing scipy.stats, which costs most of
    a second at start-up: q_(k) = min over j >= k of p_(j) m / j, capped at 1.
    """
    m = p.size
    order = np.argsort(p)
    scaled = p[order] * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return out


def _reason(comparable: bool, separable: bool, ratings: int, aliased: bool = False) -> str | None:
    if ratings == 0:
        return "no ratings"
    if not comparable:
        return "not connected to the main panel (no shared candidates)"
    if aliased:
        return (
            "not separable from their questions: in this design their group of interviewers "
            "asks questions no one outside the group asks, so the group's severity cannot be "
            "told from those questions' difficulty; compared within their group instead"
        )
    if not separable:
        return (
            "not separable from their questions: fewer than half of their ratings are on "
            "questions that two or more other interviewers ask"
        )
    return None


def interviewer_rows(
    fit: AdditiveFit,
    lp: IntArray,
    i: IntArray,
    qu: IntArray,
    y: FloatArray,
    rec: FloatArray | None,
    loop_decision: FloatArray | None,
    card_loop: IntArray,
    card_int: IntArray,
    card_of: IntArray,
    n_i: int,
    n_q: int,
    ndigits: int | None,
) -> tuple[list[dict[str, Any]], Shrinkage, IntArray, InterviewerFlags]:
    """Return one row per interviewer code, the severity shrinkage and the rating counts.

    Every interviewer-facing number reads positive = harsher: severity, its
    shrunk value and ``copanelist_gap`` (how far below co-panelists they rate);
    ``leniency`` (positive = more lenient) stays for older readers, deprecated.
    An interviewer without a separable severity gets no severity numbers at all.
    """
    int_n = np.bincount(i, minlength=n_i)
    int_mean = safe_div(np.bincount(i, y, minlength=n_i), int_n)
    len_res = (
        leniency_from(card_loop, card_int, card_of, y, n_i)
        if y.size
        else leniency(lp, i, y, n_interviewers=n_i)
    )
    nan_i, zero_i = np.full(n_i, np.nan), np.zeros(n_i, dtype=np.int64)
    kappa, kappa_n, peer, peer_n = nan_i, zero_i, nan_i, zero_i
    if rec is not None and loop_decision is not None and y.size:
        agree, agree_n = agreement_from(card_loop, card_int, card_of, rec, loop_decision, n_i)
        chance = chance_corrected_agreement(card_loop, card_int, card_of, rec, loop_decision, n_i)
        kappa, kappa_n = chance.decision_kappa, chance.decision_n
        peer, peer_n = chance.peer_kappa, chance.peer_n
    elif rec is not None and loop_decision is not None:
        agree, agree_n = recommendation_agreement(lp, i, rec, loop_decision, n_interviewers=n_i)
    else:
        agree, agree_n = np.full(n_i, np.nan), np.zeros(n_i, dtype=np.int64)
    distributions = _distributions(i, y, n_i)
    flags = severity_flags(fit, i, qu, n_q)
    shrunk = flags.shrunk
    hide = np.where(flags.reported, 1.0, np.nan)
    z = float(special.ndtri(0.5 + CONFIDENCE / 2))
    raw, raw_se = fit.severity * hide, fit.severity_se * hide
    sev, sev_se = json_column(raw, ndigits), json_column(raw_se, ndigits)
    sev_low, sev_high = (
        json_column(raw - z * raw_se, ndigits),
        json_column(raw + z * raw_se, ndigits),
    )
    robust_se = _robust_se(fit) * hide
    robust_col = json_column(robust_se, ndigits)
    named_low = json_column(raw - z * robust_se, ndigits)
    named_high = json_column(raw + z * robust_se, ndigits)
    shrunk_sev = json_column(shrunk.shrunk, ndigits)
    shrunk_low, shrunk_high = (
        json_column(shrunk.ci_low, ndigits),
        json_column(shrunk.ci_high, ndigits),
    )
    sev_reliability = json_column(shrunk.reliability, ndigits)
    detectable = json_column(flags.detectable, ndigits)
    kappa_col, peer_col = json_column(kappa, ndigits), json_column(peer, ndigits)
    p_values, q_values = json_column(flags.p, ndigits), json_column(flags.q, ndigits)
    shared = json_column(flags.shared_share, ndigits)
    within, within_se = fit.severity_within, fit.severity_within_se
    within_col, within_se_col = json_column(within, ndigits), json_column(within_se, ndigits)
    within_low = json_column(within - z * within_se, ndigits)
    within_high = json_column(within + z * within_se, ndigits)
    group_size = np.bincount(
        fit.interviewer_group[fit.interviewer_group >= 0],
        minlength=max(int(fit.interviewer_group.max(initial=-1)) + 1, 0),
    )
    interviewers = []
    for code, (n_r_i, mean_i, len_i, lo_i, hi_i, len_n, ag, ag_n) in enumerate(
        zip(
            int_n.tolist(),
            json_column(int_mean, ndigits),
            json_column(len_res.leniency, ndigits),
            json_column(len_res.ci_low, ndigits),
            json_column(len_res.ci_high, ndigits),
            len_res.n_candidates.tolist(),
            json_column(agree, ndigits),
            agree_n.tolist(),
            strict=True,
        )
    ):
        comparable = bool(fit.interviewer_comparable[code])
        separable = bool(flags.separable[code])
        group = int(fit.interviewer_group[code])
        aliased = comparable and not bool(fit.interviewer_separable[code])
        compared = aliased and within_col[code] is not None
        gap_ok = separable or not comparable
        interviewers.append(
            {
                "interviewer": code,
                "ratings": n_r_i,
                "mean": mean_i,
                "distribution": distributions[code],
                # Raw, so for someone not separable it is their questions' difficulty too.
                "copanelist_gap": None if len_i is None or not gap_ok else _negated(len_i),
                "copanelist_gap_ci": None
                if lo_i is None or not gap_ok
                else [_negated(hi_i), _negated(lo_i)],
                "leniency": len_i,
                "leniency_ci": [lo_i, hi_i] if lo_i is not None else None,
                "leniency_candidates": len_n,
                "severity": sev[code],
                "severity_se": sev_se[code],
                "severity_ci": None if sev_low[code] is None else [sev_low[code], sev_high[code]],
                "severity_shrunk": shrunk_sev[code],
                "severity_shrunk_ci": None
                if shrunk_low[code] is None
                else [shrunk_low[code], shrunk_high[code]],
                "severity_reliability": sev_reliability[code],
                # For a named interviewer: the unshrunk interval, its SE allowing
                # for interviewer x question deviations; covers each one's own
                # severity whatever its size (the shrunk one covers on average).
                "severity_se_robust": robust_col[code],
                # What this scope could see: the smallest severity flagged with 80%
                # probability (null where no severity can be flagged).
                "detectable_severity": detectable[code] if flags.reported[code] else None,
                "severity_named_ci": None
                if named_low[code] is None
                else [named_low[code], named_high[code]],
                "severity_p": p_values[code],
                "severity_q": q_values[code],
                "shared_question_share": shared[code],
                "comparable": comparable,
                "separable": separable,
                "reason": _reason(comparable, separable, n_r_i, aliased),
                # Estimability from the design (stats.estimability): the group of
                # interviewers this one is comparable with, and for one aliased
                # with their questions the severity within that group.
                "estimability_group": group if group >= 0 else None,
                "severity_within": within_col[code] if compared else None,
                "severity_within_se": within_se_col[code] if compared else None,
                "severity_within_ci": [within_low[code], within_high[code]]
                if compared and within_low[code] is not None
                else None,
                "compared_within": {
                    "group": group,
                    "interviewers": int(group_size[group]),
                    "relative_to": "the other interviewers who ask the same questions",
                }
                if compared
                else None,
                "agreement": ag,
                "agreement_n": ag_n,
                # Chance-corrected (Cohen's kappa): with the decision, and with the
                # majority of the same loop's other interviewers, their own vote left out.
                "agreement_kappa": kappa_col[code],
                "agreement_kappa_n": int(kappa_n[code]),
                "peer_agreement_kappa": peer_col[code],
                "peer_agreement_n": int(peer_n[code]),
                "flag": _flag_word(flags, code),
            }
        )

    return interviewers, shrunk, int_n, flags


def _negated(value: float | None) -> float | None:
    return None if value is None else 0.0 - value


def _flag_word(flags: InterviewerFlags, code: int) -> str | None:
    if not flags.flagged[code]:
        return None
    return "harsh" if flags.shrunk.shrunk[code] > 0 else "lenient"
