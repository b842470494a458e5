"""The calibration snapshot body: every family's statistics as JSON-safe rows.

This is the presentation layer: ``summarise`` runs the families over one set
of ratings and lays the results out as per-interviewer, per-question and
per-candidate row dicts with flags; ``to_jsonable`` makes numpy values plain.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from scoring.calibration.stats._arrays import (
    CONFIDENCE,
    FloatArray,
    IntArray,
    as_codes,
    as_floats,
    code_count,
    distinct_pairs,
    group_extremes,
    kept_where,
    safe_div,
    same_length,
    unique_inverse,
)
from scoring.calibration.stats._json import json_column, to_jsonable
from scoring.calibration.stats.agreement import (
    alphas_from_pairable,
    fleiss_sorted,
    pairable_values,
    unit_values,
)
from scoring.calibration.stats.gtheory import (
    cells_from,
    g_qk_interval,
    gqk_from_cells,
    rating_cells,
)
from scoring.calibration.stats.interviewers import (
    DETECTABLE_POWER,
    InterviewerFlags,
    interviewer_rows,
)
from scoring.calibration.stats.intraclass import icc, largest_complete_grid
from scoring.calibration.stats.periods import Stated as _Stated
from scoring.calibration.stats.periods import change_columns, previous_change
from scoring.calibration.stats.question_alpha import (
    QUESTION_ALPHA_RESAMPLES,
    QuestionAlpha,
    question_alphas,
)
from scoring.calibration.stats.questions import question_discrimination
from scoring.calibration.stats.raters import AdditiveFit, fit_additive

# The ICC describes one question's candidates-by-interviewers grid; under 10
# candidates its interval spans most of 0..1, so the dashboard does not headline
# it (the snapshot keeps the values, with icc_reason saying why).
ICC_MIN_CANDIDATES = 10
# A question whose rating correlates below 0.2 with the rest of the loop adds
# little information; 30 pairs keeps the correlation's standard error near
# 0.18 so the flag is not noise.
LOW_DISCRIMINATION = 0.2
LOW_DISCRIMINATION_MIN_PAIRS = 30
# More than 80% of ratings at one end of the scale means the question no
# longer separates candidates at that end; judged only from 10 ratings up.
CEILING_FLOOR_SHARE = 0.8
CEILING_FLOOR_MIN_RATINGS = 10
# Stratified ordinal and interval alpha judge each question's disagreement
# against that question's own spread, estimated from its own pairable ratings:
# with n of them alpha runs low by about 0.9 / n (ordinal) and 0.4 / n
# (interval) on a 1-5 scale (10 questions, true alpha 0.37), as large as its
# bootstrap interval's half-width at n = 18, where the interval covered 82%
# (issue 33). From 40 the bias is under half the interval's half-width; below,
# no ordinal or interval alpha headline (the values stay in krippendorff_alpha).
MIN_PAIRABLE_PER_QUESTION = 40
# When this share of a scope's ratings sit at the top of their scale, the
# ceiling compresses severities (a harsh interviewer's low ratings still count,
# a lenient one's high ones cannot go higher): the model says so.
CEILING_WARNING_SHARE = 0.3


def _icc_reason(grid: tuple[int, FloatArray] | None) -> str | None:
    if grid is None:
        return (
            "no complete grid: needs one question that every interviewer rated for every candidate"
        )
    if grid[1].shape[0] < ICC_MIN_CANDIDATES:
        return (
            f"the largest complete grid has {grid[1].shape[0]} candidates; "
            f"the dashboard shows the ICC from {ICC_MIN_CANDIDATES}"
        )
    return None


def _fleiss_reason(unit: IntArray, value: FloatArray) -> str:
    """Say why Fleiss' kappa is undefined for these (unit, value) pairs, sorted by unit."""
    if unit.size == 0:
        return "no ratings"
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    m = np.diff(np.r_[starts, unit.size])
    if m.max() < 2:
        return "no question was rated by two or more interviewers in the same loop"
    if m.min() != m.max():
        return (
            f"units are rated by different numbers of interviewers ({int(m.min())} to "
            f"{int(m.max())}); kappa needs the same number for every unit"
        )
    return "every rating is the same category: chance agreement is perfect"


def _alpha_by_question(
    loop: IntArray,
    question: IntArray,
    interviewer: IntArray,
    rating: FloatArray,
    low: FloatArray,
    high: FloatArray,
    rating_scale: FloatArray | None,
    *,
    resamples: int,
    seed: int,
) -> QuestionAlpha:
    """Return alpha stratified by question, a question on two scales being two strata.

    ``low``/``high`` are per question; ``rating_scale`` (per rating, or None)
    is the top of the scale each rating was given on. Bounds that are
    missing, or that a rating falls outside, widen to the stratum's ratings.
    """
    if rating_scale is None:
        stratum, top_of = question, high
    else:
        # A rating without its own scale reads as on its question's.
        given = np.where(np.isfinite(rating_scale), rating_scale, high[question])
        tops = np.nan_to_num(given, nan=0.0).astype(np.int64)
        width = int(tops.max()) + 1 if tops.size else 1
        key = question * width + tops
        strata, stratum = unique_inverse(key, max(int(key.max()) + 1 if key.size else 1, 1))
        top_of = (strata % width).astype(np.float64)
        low = low[strata // width]
    n_s = int(stratum.max()) + 1 if stratum.size else 0
    seen_low, seen_high = group_extremes(stratum, rating, n_s)
    bottom, top = np.fmin(low[:n_s], seen_low), np.fmax(top_of[:n_s], seen_high)
    top = np.where(top > bottom, top, bottom + 1.0)
    return question_alphas(
        loop,
        stratum,
        interviewer,
        rating,
        scale_min=bottom,
        scale_max=top,
        resamples=resamples,
        seed=seed,
        n_questions=n_s,
    )


def _pairable_per_question(unit: IntArray, n_q: int) -> float:
    """Return the ratings-weighted median, over questions, of their pairable ratings.

    A rating is pairable when its unit (loop, question) holds another rating.
    The median is over pairable ratings: the count of the question a typical
    pairable rating belongs to (0 when there are none).
    """
    if unit.size == 0:
        return 0.0
    units, size = np.unique(unit, return_counts=True)
    pairable = size >= 2
    per_q = np.bincount(units[pairable] % max(n_q, 1), size[pairable], minlength=max(n_q, 1))
    weights = per_q[per_q > 0]
    if weights.size == 0:
        return 0.0
    order = np.sort(weights)
    cumulative = np.cumsum(order)
    return float(order[np.searchsorted(cumulative, cumulative[-1] / 2.0)])


def _per_entity(values: FloatArray, size: int, default: float) -> FloatArray:
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 0:
        return np.full(size, float(a))
    if a.size < size:
        raise ValueError("per-question scale bounds must cover every question code")
    return np.where(np.isnan(a[:size]), default, a[:size])


def _reliability(
    c: IntArray,
    i: IntArray,
    qu: IntArray,
    y: FloatArray,
    lp: IntArray,
    cards: tuple[IntArray, IntArray, IntArray],
    *,
    n_q: int,
    bottom: FloatArray,
    top: FloatArray,
    rating_scale: FloatArray | None,
    resamples: int,
    seed: int,
) -> tuple[dict[str, Any], int]:
    """Return the body's reliability block and the number of scorecards.

    Units are (loop, question) and coders interviewers; ``cards`` are the
    distinct (loop, interviewer) pairs with each rating's pair (see distinct_pairs).
    """
    unit = lp * max(n_q, 1) + qu
    unit_sorted, unit_value = unit_values(unit, i, y)
    pairable = pairable_values(unit_sorted, unit_value)
    alpha = _alpha_by_question(
        lp, qu, i, y, bottom, top, rating_scale, resamples=resamples, seed=seed
    )
    kappa = fleiss_sorted(unit_sorted, unit_value)
    card_loop, card_int, card_of = cards
    if y.size:
        cell_t, cell_r, cell_y, n_t, n_r = cells_from(card_loop, card_int, card_of, y)
    else:
        cell_t, cell_r, cell_y, n_t, n_r = rating_cells(lp, i, y)
    gqk = gqk_from_cells(cell_t, cell_r, cell_y, n_t, n_r)
    gqk_ci = (
        g_qk_interval(cell_t, cell_r, cell_y, n_t, n_r, seed=seed, whole=gqk.g)
        if gqk.g is not None
        else None
    )
    comp = gqk.components
    grid = largest_complete_grid(c, i, qu, y, n_q)
    icc_out: dict[str, Any] | None = None
    icc_reason = _icc_reason(grid)
    if grid is not None:
        result = icc(grid[1])
        icc_out = {
            **result.values,
            "ci95": {name: list(bounds) for name, bounds in result.ci95.items()},
            "question": grid[0],
            "n_candidates": result.n_targets,
            "n_interviewers": result.n_raters,
        }
    per_question = _pairable_per_question(unit, n_q)
    thin = per_question < MIN_PAIRABLE_PER_QUESTION
    reliability = {
        "krippendorff_alpha": alpha.alpha,
        # What the dashboard may headline: ordinal and interval withheld where the
        # typical question has too few pairable ratings (MIN_PAIRABLE_PER_QUESTION).
        "krippendorff_alpha_headline": {
            level: None if thin and level != "nominal" else value
            for level, value in alpha.alpha.items()
        },
        "krippendorff_alpha_headline_reason": None
        if not thin
        else f"the typical question has {per_question:g} ratings shared with another"
        f" interviewer, fewer than {MIN_PAIRABLE_PER_QUESTION}: ordinal and interval alpha"
        " judge each question against its own spread, which so few ratings estimate too"
        " narrowly, so they read low and their intervals cover less than 95%",
        "pairable_ratings_per_question": per_question,
        "krippendorff_alpha_ci95": {
            level: None if bounds is None else list(bounds) for level, bounds in alpha.ci.items()
        },
        "krippendorff_alpha_pooled": alphas_from_pairable(pairable),
        "pairable_units": pairable.n_units,
        "fleiss_kappa": kappa,
        "fleiss_kappa_reason": None
        if kappa is not None
        else _fleiss_reason(unit_sorted, unit_value),
        "g_qk": gqk.g,
        "g_qk_ci95": None if gqk_ci is None else list(gqk_ci),
        "variance_components": None
        if comp is None
        else {
            "candidate": comp.target,
            "interviewer": comp.rater,
            "residual": comp.residual,
            "q": gqk.q,
            "k_harmonic": gqk.k_harmonic,
            "method": comp.method,
        },
        "icc": icc_out,
        "icc_reason": icc_reason,
    }
    return reliability, int(cell_t.size)  # one (loop, interviewer) cell per scorecard


# --------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------


def summarise(
    candidate: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    question: npt.ArrayLike,
    rating: npt.ArrayLike,
    *,
    loop: npt.ArrayLike | None = None,
    decision: npt.ArrayLike | None = None,
    recommendation: npt.ArrayLike | None = None,
    n_candidates: int | None = None,
    n_interviewers: int | None = None,
    n_questions: int | None = None,
    scale_min: float | npt.ArrayLike = 1.0,
    scale_max: float | npt.ArrayLike | None = None,
    rating_scale_max: npt.ArrayLike | None = None,
    period: npt.ArrayLike | None = None,
    bootstrap_resamples: int = QUESTION_ALPHA_RESAMPLES,
    seed: int = 0,
    ndigits: int | None = 4,
) -> dict[str, Any]:
    """Return the calibration snapshot body as a JSON-safe dict.

    Inputs are parallel per-rating arrays of codes and ratings (NaN ratings
    are dropped). ``loop`` (per rating) groups a candidate's ratings into one
    loop; without it each candidate is one loop. ``decision`` is per
    candidate code (1 hire, 0 no hire, NaN unknown); ``recommendation`` is
    per rating (-2, -1, 1, 2 or NaN). ``scale_min``/``scale_max`` are scalars
    or per-question arrays (``scale_max`` defaults to the highest of each
    question's ``rating_scale_max`` when given, else to the highest rating);
    ``rating_scale_max``, per rating, is the top of the scale each rating was
    given on (a question's versions may use different scales) and wins over
    ``scale_max`` where given. ``period``, per rating, is the period its
    interview fell in (stats.periods: CURRENT, the stated period; PREVIOUS;
    OLDER); without it every rating is in the stated period.

    1. Reliability on (loop, question) units with interviewers as coders:
       Krippendorff's alpha stratified by question (three levels, each with
       a loop-bootstrap interval of ``bootstrap_resamples``) and pooled over
       questions (deprecated), Fleiss' kappa, ICC on the largest complete
       single-question grid, and G(q,k) on (loop, interviewer) scorecard
       means.
    2. Interviewers, over the stated period's ratings: counts, distribution,
       leniency, severity (additive model), recommendation agreement, flags;
       with ``period``, the previous period's severity and the change. The
       ``model`` block is the stated period's fit.
    3. Questions: counts, mean, sd, discrimination, easiness, flags.
    4. Candidates: counts, raw mean, adjusted score.
    Lists are indexed by code; entities without ratings get zero counts and
    nulls. Floats are rounded to ``ndigits`` (None: unrounded).
    """
    c = as_codes(candidate, "candidate")
    i = as_codes(interviewer, "interviewer")
    qu = as_codes(question, "question")
    y = as_floats(rating, "rating")
    lp = c if loop is None else as_codes(loop, "loop")
    rec = None if recommendation is None else as_floats(recommendation, "recommendation")
    arrays: dict[str, np.ndarray] = {
        "candidate": c,
        "interviewer": i,
        "question": qu,
        "rating": y,
        "loop": lp,
    }
    if rec is not None:
        arrays["recommendation"] = rec
    rating_scale = None if rating_scale_max is None else as_floats(rating_scale_max, "scale")
    if rating_scale is not None:
        arrays["rating_scale_max"] = rating_scale
    per = None if period is None else np.asarray(period, dtype=np.int64)
    if per is not None:
        arrays["period"] = per
    same_length(**arrays)
    n_c, n_i, n_q = (
        code_count(c, n_candidates),
        code_count(i, n_interviewers),
        code_count(qu, n_questions),
    )
    keep = np.isfinite(y)
    c, i, qu, y, lp = kept_where(keep, c, i, qu, y, lp)
    if rec is not None:
        (rec,) = kept_where(keep, rec)
    if rating_scale is not None:
        (rating_scale,) = kept_where(keep, rating_scale)
    if per is not None:
        (per,) = kept_where(keep, per)
    dec = None if decision is None else as_floats(decision, "decision")
    if dec is not None and dec.size < n_c:
        raise ValueError("decision must have one entry per candidate code")

    # Loops -> candidate, for per-loop decisions and G(q,k) targets.
    n_loops = int(lp.max()) + 1 if lp.size else 0
    loop_candidate = np.zeros(n_loops, dtype=np.int64)
    loop_candidate[lp] = c
    loop_decision = None if dec is None else dec[loop_candidate]

    if scale_max is None and rating_scale is not None:
        # A question's top: the highest of its ratings' scales (where given).
        scaled_q, scales = kept_where(np.isfinite(rating_scale), qu, rating_scale)
        _, top = group_extremes(scaled_q, scales, n_q)
        top[np.isinf(top)] = np.nan
    else:
        top = _per_entity(
            np.asarray(scale_max if scale_max is not None else (y.max() if y.size else np.nan)),
            n_q,
            np.nan,
        )
    bottom = _per_entity(np.asarray(scale_min), n_q, np.nan)

    # Scorecards: the distinct (loop, interviewer) pairs, shared by G(q,k),
    # leniency and recommendation agreement.
    cards = distinct_pairs(lp, i, n_i) if y.size else (np.zeros(0, np.int64),) * 3
    card_of = cards[2]

    # 1. Reliability.
    reliability, scorecards = _reliability(
        c, i, qu, y, lp, cards, n_q=n_q, bottom=bottom, top=top,
        rating_scale=rating_scale, resamples=bootstrap_resamples, seed=seed,
    )  # fmt: skip
    disc = question_discrimination(lp, qu, y, n_questions=n_q, group_decision=loop_decision)

    # 2. Interviewers, from the stated period's ratings (its own fit where
    # older ratings are in scope: stats.periods).
    fit = fit_additive(
        c, i, qu, y, n_candidates=n_c, n_interviewers=n_i, n_questions=n_q,
        scorecard=card_of,
    )  # fmt: skip
    now = _Stated.of(fit, per, (c, i, qu, y, lp), rec, cards, (n_c, n_i, n_q))
    interviewers, shrunk, int_n, int_flags = interviewer_rows(
        now.fit, now.loop, now.interviewer, now.question, now.rating, now.recommendation,
        loop_decision, *now.cards, n_i, n_q, ndigits,
    )  # fmt: skip
    if per is not None:
        change = previous_change(
            (c, i, qu, y, lp), per, now.fit, int_flags.reported, sizes=(n_c, n_i, n_q)
        )
        for row, extra in zip(interviewers, change_columns(change, ndigits), strict=True):
            row.update(extra)
    # 4. Candidates.
    c_n = np.bincount(c, minlength=n_c)
    c_mean = safe_div(np.bincount(c, y, minlength=n_c), c_n)
    candidates = _candidate_rows(fit, c_n, c_mean, ndigits)

    # 3. Questions.
    q_n = np.bincount(qu, minlength=n_q)
    q_mean = safe_div(np.bincount(qu, y, minlength=n_q), q_n)
    q_dev = y - q_mean[qu] if y.size else y
    q_sd = np.sqrt(safe_div(np.bincount(qu, q_dev * q_dev, minlength=n_q), q_n - 1))
    rating_top = top[qu] if rating_scale is None else rating_scale
    at_max = safe_div(np.bincount(qu, (y >= rating_top).astype(np.float64), minlength=n_q), q_n)
    at_min = safe_div(np.bincount(qu, (y <= bottom[qu]).astype(np.float64), minlength=n_q), q_n)
    # Of the stated period's ratings: the ceiling compresses its severities.
    at_top = (y >= rating_top) if now.keep is None else (y >= rating_top)[now.keep]
    ceiling_share = float(np.mean(at_top)) if at_top.size else math.nan
    low_disc = (disc.with_rest < LOW_DISCRIMINATION) & (
        disc.with_rest_pairs >= LOW_DISCRIMINATION_MIN_PAIRS
    )
    questions = []
    for code, (n_q_i, mean_q, sd_q, d_r, d_n, dd_r, dd_n, e_q, e_se, s_max, s_min) in enumerate(
        zip(
            q_n.tolist(),
            json_column(q_mean, ndigits),
            json_column(q_sd, ndigits),
            json_column(disc.with_rest, ndigits),
            disc.with_rest_pairs.tolist(),
            json_column(disc.with_decision, ndigits),
            disc.with_decision_pairs.tolist(),
            json_column(fit.easiness, ndigits),
            json_column(fit.easiness_se, ndigits),
            json_column(at_max, ndigits),
            json_column(at_min, ndigits),
            strict=True,
        )
    ):
        flags = []
        if low_disc[code]:
            flags.append("low discrimination: consider retiring")
        if n_q_i >= CEILING_FLOOR_MIN_RATINGS and at_max[code] > CEILING_FLOOR_SHARE:
            flags.append("ceiling")
        if n_q_i >= CEILING_FLOOR_MIN_RATINGS and at_min[code] > CEILING_FLOOR_SHARE:
            flags.append("floor")
        questions.append(
            {
                "question": code,
                "ratings": n_q_i,
                "mean": mean_q,
                "sd": sd_q,
                "discrimination": d_r,
                "discrimination_pairs": d_n,
                "discrimination_decision": dd_r,
                "discrimination_decision_pairs": dd_n,
                "easiness": e_q,
                "easiness_se": e_se,
                "share_at_max": s_max,
                "share_at_min": s_min,
                "flag": "; ".join(flags) or None,
            }
        )

    return {
        "inputs": {
            "ratings": int(y.size),
            "scorecards": scorecards,
            "candidates": int(np.count_nonzero(c_n)),
            "interviewers": int(np.count_nonzero(int_n)),
            "questions": int(np.count_nonzero(q_n)),
        },
        "reliability": to_jsonable(reliability, ndigits),
        "model": to_jsonable(
            {
                "mu": now.fit.mu,
                "residual_sd": math.sqrt(now.fit.residual_variance)
                if now.fit.residual_variance >= 0
                else None,
                "df_residual": now.fit.df_residual,
                "components": now.fit.n_components,
                "main_component_share": now.fit.main_share,
                "severity_sd": math.sqrt(shrunk.tau2),
                "halo_sd": math.sqrt(now.fit.halo_variance),
                "within_sd": math.sqrt(now.fit.within_variance),
                "estimability": _estimability(now.fit),
                "interaction_sd": math.sqrt(now.fit.interaction_variance),
                "ceiling_share": ceiling_share,
                "ceiling_warning": None
                if not ceiling_share >= CEILING_WARNING_SHARE
                else f"{ceiling_share:.0%} of ratings are at the top of their scale: severities"
                " are compressed there, a lenient interviewer cannot show it, and intervals"
                " may cover less than they say",
                "detectable_severity": _detectable_summary(int_flags),
            },
            ndigits,
        ),
        "interviewers": interviewers,
        "questions": questions,
        "candidates": candidates,
    }


def _detectable_summary(flags: InterviewerFlags) -> dict[str, Any]:
    """Return what the scope can detect: the median, over interviewers with a severity,
    of the smallest severity flagged with 80% probability, and at which test level."""
    values = flags.detectable[np.isfinite(flags.detectable)]
    reported = int(np.count_nonzero(flags.reported))
    return {
        "power": DETECTABLE_POWER,
        "alpha": flags.alpha,
        "median": float(np.median(values)) if values.size else None,
        "interviewers": int(values.size),
        "undetectable": reported - int(values.size),
    }


def _estimability(fit: AdditiveFit) -> dict[str, Any]:
    """Return the scope's estimability: aliases beyond the sum-to-zero constraints.

    ``groups`` lists, per group of mutually comparable interviewers, its
    interviewer codes and whether it is the reference (the separable one).
    """
    group = fit.interviewer_group
    groups = [
        {
            "group": g,
            "interviewers": np.flatnonzero(group == g).tolist(),
            "reference": g == fit.reference_group,
        }
        for g in range(int(group.max(initial=-1)) + 1)
    ]
    return {
        "aliased_directions": fit.aliased_directions,
        "method": fit.estimability_method,
        "groups": groups if fit.aliased_directions else [],
    }


def _candidate_rows(
    fit: AdditiveFit, c_n: IntArray, c_mean: FloatArray, ndigits: int | None
) -> list[dict[str, Any]]:
    """Return the body's candidate rows from the fit and each candidate's count and mean."""
    z = float(special.ndtri(0.5 + CONFIDENCE / 2))
    return [
        {
            "candidate": code,
            "ratings": n_c_i,
            "raw_mean": raw,
            "adjusted": adj,
            "adjusted_se": adj_se,
            "adjusted_ci": None if lo is None else [lo, hi],
            "comparable": ok,
            "estimable": ok and adj_se is not None,
            "reason": None
            if ok
            else "no ratings"
            if n_c_i == 0
            else "panel shares no interviewer with the rest of the scope",
        }
        for code, (n_c_i, raw, adj, adj_se, lo, hi, ok) in enumerate(
            zip(
                c_n.tolist(),
                json_column(c_mean, ndigits),
                json_column(fit.adjusted, ndigits),
                json_column(fit.adjusted_se, ndigits),
                json_column(fit.adjusted - z * fit.adjusted_se, ndigits),
                json_column(fit.adjusted + z * fit.adjusted_se, ndigits),
                fit.candidate_comparable.tolist(),
                strict=True,
            )
        )
    ]
