"""Krippendorff's alpha stratified by question.

Pooling every question into one alpha counts differences in question
difficulty as agreement (two raters of an easy question agree that it is
easy), and puts questions on different scales side by side unrescaled. Here
each question's disagreements are measured against its own values only, on
its own scale, and then added up:

    alpha = 1 - sum_q n_q D_o,q / sum_q n_q D_e,q

with n_q the question's pairable values, D_o,q its observed and D_e,q its
expected disagreement (Krippendorff 2011). For a single question this is
ordinary Krippendorff alpha. The intervals (question_alpha_bootstrap) come
from resampling whole loops (Hayes and Krippendorff 2007 resample the data;
resampling loops keeps a loop's units, and the halo of its scorecards,
together), recentred on the estimate and widened by the variance that
drawing other interviewers would add.

References
----------
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
reliability measure for coding data. Communication Methods and Measures,
1(1), 77-89.

Bickel, P. J., Goetze, F., & van Zwet, W. R. (1997). Resampling fewer than
n observations: gains, losses, and remedies for losses. Statistica Sinica,
7(1), 1-31.

Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
Annenberg School for Communication Departmental Papers, University of
Pennsylvania.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.calibration.stats._arrays import (
    CONFIDENCE,
    BoolArray,
    FloatArray,
    IntArray,
    as_codes,
    as_floats,
    code_count,
    kept_where,
    same_length,
    stable_order,
    unique_categories,
    unique_inverse,
)
from scoring.calibration.stats.agreement import LEVELS
from scoring.calibration.stats.question_alpha_bootstrap import (
    MAX_BOOTSTRAP_CATEGORIES,
    question_alpha_intervals,
    sum_by,
)

__all__ = [
    "MAX_BOOTSTRAP_CATEGORIES",
    "MAX_BOOTSTRAP_LOOPS",
    "QUESTION_ALPHA_RESAMPLES",
    "QuestionAlpha",
    "question_alphas",
]

QUESTION_ALPHA_RESAMPLES = 1000
# The bootstrap's cost grows with loops x resamples; at 5,000 loops its
# intervals are already a few hundredths wide and scale as 1/sqrt(loops).
MAX_BOOTSTRAP_LOOPS = 5000


@dataclass(frozen=True)
class QuestionAlpha:
    """Alpha stratified by question, its intervals and per-question alphas.

    ``alpha`` and ``ci`` are keyed by level ("nominal", "ordinal",
    "interval"); None where undefined. ``question_alpha`` and ``question_n``
    are indexed by question code: the question's own interval alpha (NaN
    where undefined) and its number of pairable values.
    """

    alpha: dict[str, float | None]
    ci: dict[str, tuple[float, float] | None]
    question_alpha: FloatArray
    question_n: IntArray
    n_units: int  # pairable (loop, question) units
    n_loops: int  # loops holding a pairable unit: the loops resampled
    resamples: int
    confidence: float


@dataclass(frozen=True)
class AlphaUnits:
    """Pairable values sorted by unit, each value's interviewer, each unit's loop and question."""

    unit: IntArray  # compact unit 0..n_units-1 per value
    value: FloatArray
    interviewer: IntArray  # per value: interviewer code
    m: IntArray  # values per unit
    loop: IntArray  # per unit: compact loop 0..n_loops-1
    question: IntArray  # per unit: question code
    n_loops: int

    @property
    def n_units(self) -> int:
        return int(self.m.size)


@dataclass(frozen=True)
class AlphaEstimate:
    """The point estimates and what the intervals reuse of them.

    ``expected`` is per level sum_q n_q D_e,q over the questions counted;
    ``counted`` marks the values of those questions (the others have no
    expected disagreement); ``scaled`` and ``mid_rank`` are each value's
    position at the interval and ordinal level, as the distances use it.
    """

    alpha: dict[str, float | None]
    question_alpha: FloatArray
    question_n: IntArray
    expected: dict[str, float]
    counted: BoolArray
    scaled: FloatArray
    mid_rank: FloatArray


def question_alphas(
    loop: npt.ArrayLike,
    question: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    rating: npt.ArrayLike,
    *,
    scale_min: float | npt.ArrayLike,
    scale_max: float | npt.ArrayLike,
    resamples: int = QUESTION_ALPHA_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    n_questions: int | None = None,
) -> QuestionAlpha:
    """Return Krippendorff's alpha stratified by question, with bootstrap intervals.

    Parameters
    ----------
    loop, question, interviewer, rating
        Parallel per-rating arrays: loop, question and interviewer codes and
        the rating (NaN ratings are dropped). Units are (loop, question),
        coders are interviewers; a repeated (unit, interviewer) keeps its
        first rating, as a reliability data matrix would.
    scale_min, scale_max
        The rating scale: scalars, or arrays indexed by question code.
        Every question with pairable values needs finite bounds, min < max.
    resamples
        Bootstrap resamples of the loops (0: no intervals).
    seed
        Seed of the resampling.
    confidence
        Coverage of the intervals.
    n_questions
        Length of the per-question arrays (default: largest code + 1).

    Returns
    -------
    QuestionAlpha

    Notes
    -----
    1. For each question q, from its pairable values only (units with two or
       more values), with delta the level's distance:
       n_q D_o,q = sum_u sum_{i != j in u} delta^2(v_i, v_j) / (m_u - 1) and
       n_q D_e,q = sum_{i != j in q} delta^2(v_i, v_j) / (n_q - 1).
       Then alpha = 1 - sum_q n_q D_o,q / sum_q n_q D_e,q: each question's
       alpha weighted by n_q D_e,q. With one question it is Krippendorff's.
    2. Distances put every question on 0..1. Nominal: 0 or 1. Interval:
       values rescaled by the question's scale, (v - min) / (max - min).
       Ordinal: Krippendorff's ordinal distance over the question's own
       marginals divided by n_q, i.e. the difference of mid-ranks
       (sum_{g<c} n_qg + n_qc / 2) / n_q.
    3. Questions with fewer than two pairable values, or a single value
       among them, have no expected disagreement and drop out; alpha is None
       when no question is left. D_e counts the pairs within units too
       (about (m - 1) / (n_q - 1) of them), which biases alpha down when
       questions have few values: ~0.42 in the tests' 150-candidate rosters, ~0.47 in
       one of 20,000 candidates of the same design.
    4. Intervals (question_alpha_intervals): the percentiles of a bootstrap
       over loops, recentred on the estimate and widened by
       sqrt((V_loops + V_interviewers) / V_loops), V_interviewers the
       variance that drawing other interviewers (their severities, shared
       between loops) would add under an additive interviewer-effect model.
       With more than MAX_BOOTSTRAP_CATEGORIES distinct ratings only the
       interval level gets one; the other intervals are None.
    5. Above MAX_BOOTSTRAP_LOOPS loops the intervals come from a seeded
       random subset of that many loops (all their units), their distance
       from the subset's estimate scaled by sqrt(subset / all loops) and
       placed about the whole data's estimate: alpha is a ratio of sums over
       loops, so its sampling spread falls as one over the root of the loops
       (the m-out-of-n bootstrap; Bickel, Goetze and van Zwet 1997). The
       interviewers' part is not scaled: it comes from the same
       interviewers whatever the number of loops, and its ratio of sums is
       the same on a random subset of loops.

    ``question_alpha`` is each question's own interval alpha (Krippendorff's
    alpha of that question alone) and ``question_n`` its pairable values.
    """
    if resamples < 0:
        raise ValueError("resamples cannot be negative")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), not {confidence}")
    lp = as_codes(loop, "loop")
    qu = as_codes(question, "question")
    iv = as_codes(interviewer, "interviewer")
    y = as_floats(rating, "rating")
    same_length(loop=lp, question=qu, interviewer=iv, rating=y)
    n_q = code_count(qu, n_questions)
    units = _pairable_units(lp, qu, iv, y, n_q)
    low, high = _scale_bounds(scale_min, scale_max, n_q, np.unique(units.question))

    estimate = _point_estimates(units, low, high, n_q)
    ci: dict[str, tuple[float, float] | None] = dict.fromkeys(LEVELS)
    if resamples > 0 and units.n_loops >= 2 and any(a is not None for a in estimate.alpha.values()):
        drawn, drawn_estimate = units, estimate
        if units.n_loops > MAX_BOOTSTRAP_LOOPS:
            drawn = _loop_subset(units, MAX_BOOTSTRAP_LOOPS, seed)
            drawn_estimate = _point_estimates(drawn, low, high, n_q)
        ci.update(
            question_alpha_intervals(
                drawn,
                drawn_estimate,
                low,
                high,
                resamples=resamples,
                seed=seed,
                confidence=confidence,
                centre=estimate.alpha,
                share=drawn.n_loops / units.n_loops,
            )
        )
    return QuestionAlpha(
        alpha=estimate.alpha,
        ci=ci,
        question_alpha=estimate.question_alpha,
        question_n=estimate.question_n,
        n_units=units.n_units,
        n_loops=units.n_loops,
        resamples=resamples,
        confidence=confidence,
    )


def _pairable_units(
    loop: IntArray, question: IntArray, interviewer: IntArray, rating: FloatArray, n_q: int
) -> AlphaUnits:
    """Return the pairable values, one per (unit, interviewer), sorted by unit."""
    width = max(n_q, 1)
    key, coder, value = kept_where(~np.isnan(rating), loop * width + question, interviewer, rating)
    # A stable sort, so the first rating of a (unit, interviewer) comes first,
    # as agreement.unit_values does; the interviewer is kept for the intervals.
    order = stable_order(key, coder)
    key, coder, value = key[order], coder[order], value[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = (key[1:] != key[:-1]) | (coder[1:] != coder[:-1])
    key, coder, value = key[first], coder[first], value[first]
    if key.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return AlphaUnits(empty, value, empty, empty, empty, empty, 0)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    m = np.diff(np.r_[starts, key.size]).astype(np.int64)
    keep_unit = m >= 2
    keep_value = np.repeat(keep_unit, m)
    value, coder = value[keep_value], coder[keep_value]
    unit_key, m = key[starts[keep_unit]], m[keep_unit]
    unit = np.repeat(np.arange(m.size, dtype=np.int64), m)
    unit_loop = unit_key // width
    if unit_loop.size:
        loops, loop_index = unique_inverse(unit_loop, int(unit_loop.max()) + 1)
    else:
        loops, loop_index = unit_loop, unit_loop
    return AlphaUnits(unit, value, coder, m, loop_index, unit_key % width, int(loops.size))


def _loop_subset(units: AlphaUnits, size: int, seed: int) -> AlphaUnits:
    """Return the units of ``size`` loops drawn without replacement (seeded), loops recoded."""
    rng = np.random.default_rng([seed, size])
    keep_loop = np.zeros(units.n_loops, dtype=bool)
    keep_loop[rng.choice(units.n_loops, size=size, replace=False)] = True
    keep_unit = keep_loop[units.loop]
    keep_value = keep_unit[units.unit]
    renumber = np.cumsum(keep_unit) - 1
    loop_code = np.cumsum(keep_loop) - 1
    return AlphaUnits(
        renumber[units.unit[keep_value]],
        units.value[keep_value],
        units.interviewer[keep_value],
        units.m[keep_unit],
        loop_code[units.loop[keep_unit]],
        units.question[keep_unit],
        size,
    )


def _scale_bounds(
    scale_min: float | npt.ArrayLike,
    scale_max: float | npt.ArrayLike,
    n_q: int,
    used: IntArray,
) -> tuple[FloatArray, FloatArray]:
    """Return per-question (min, max), checked on the questions with pairable values."""
    bounds = []
    for name, given in (("scale_min", scale_min), ("scale_max", scale_max)):
        a = np.asarray(given, dtype=np.float64)
        if a.ndim == 0:
            bounds.append(np.full(n_q, float(a)))
        elif a.ndim == 1 and a.size >= n_q:
            bounds.append(a[:n_q])
        else:
            raise ValueError(f"{name} must be a scalar or cover every question code")
    low, high = bounds
    bad = ~(np.isfinite(low[used]) & np.isfinite(high[used]) & (high[used] > low[used]))
    if bad.any():
        raise ValueError(f"question {int(used[bad][0])} needs finite scale bounds with min < max")
    return low, high


# --------------------------------------------------------------------------
# Point estimates
# --------------------------------------------------------------------------


def _point_estimates(
    units: AlphaUnits, low: FloatArray, high: FloatArray, n_q: int
) -> AlphaEstimate:
    """Return the stratified alphas, each question's interval alpha and n, and their sums."""
    value_q = units.question[units.unit]
    n = np.bincount(value_q, minlength=n_q).astype(np.int64)
    alpha: dict[str, float | None] = dict.fromkeys(LEVELS)
    question_alpha = np.full(n_q, np.nan)
    if units.value.size == 0:
        nothing = np.zeros(0)
        return AlphaEstimate(
            alpha, question_alpha, n, {}, np.zeros(0, dtype=bool), nothing, nothing
        )
    categories, cat = unique_categories(units.value)
    k = categories.size
    cell, cell_of = unique_inverse(value_q * k + cat, n_q * k)
    cell_n = np.bincount(cell_of).astype(np.float64)
    cell_q = cell // k
    # A question with one value among its pairable values has no expected
    # disagreement; zero its sums exactly rather than trust rounding.
    varies = np.bincount(cell_q, minlength=n_q) >= 2
    nf = n.astype(np.float64)
    below = np.maximum(nf - 1.0, 1.0)

    sums: dict[str, tuple[FloatArray, FloatArray]] = {}
    # Nominal: disagreeing ordered pairs, m_u^2 - sum_c n_uc^2 within a unit
    # and n_q^2 - sum_c n_qc^2 within a question.
    unit_cell, unit_cell_of = unique_inverse(units.unit * k + cat, units.n_units * k)
    unit_cell_n = np.bincount(unit_cell_of).astype(np.float64)
    m = units.m.astype(np.float64)
    same_u = sum_by(unit_cell // k, unit_cell_n**2, units.n_units)
    observed = sum_by(units.question, (m * m - same_u) / (m - 1.0), n_q)
    same_q = sum_by(cell_q, cell_n**2, n_q)
    sums["nominal"] = observed, (nf * nf - same_q) / below
    # Ordinal: the distance between c and k is M_k - M_c with the mid-rank
    # M_c = sum_{g<c} n_qg + n_qc / 2, so ordinal alpha is interval alpha on
    # M / n_q. Cells are sorted by question, then value.
    first = np.flatnonzero(np.r_[True, cell_q[1:] != cell_q[:-1]])
    through = np.cumsum(cell_n)
    before_q = np.repeat(through[first] - cell_n[first], np.diff(np.r_[first, cell_q.size]))
    mid_rank = ((through - before_q - cell_n / 2.0) / nf[cell_q])[cell_of]
    sums["ordinal"] = _squares(units, value_q, mid_rank, n_q)
    scaled = (units.value - low[value_q]) / (high[value_q] - low[value_q])
    sums["interval"] = _squares(units, value_q, scaled, n_q)

    expected: dict[str, float] = {}
    for level, (obs, exp) in sums.items():
        obs, exp = np.where(varies, obs, 0.0), np.where(varies, exp, 0.0)
        expected[level] = total = float(exp.sum())
        alpha[level] = 1.0 - float(obs.sum()) / total if total > 0 else None
        if level == "interval":
            with np.errstate(divide="ignore", invalid="ignore"):
                question_alpha = np.where(varies, 1.0 - obs / exp, np.nan)
    return AlphaEstimate(alpha, question_alpha, n, expected, varies[value_q], scaled, mid_rank)


def _squares(
    units: AlphaUnits, value_q: IntArray, x: FloatArray, n_q: int
) -> tuple[FloatArray, FloatArray]:
    """Return per question the halved n D_o and n D_e for squared differences of ``x``.

    Within a unit, sum over ordered pairs of (x_i - x_j)^2 is 2 m_u SS_u; over
    a question's values it is 2 n_q SS_q. So n D_o = sum_u m_u SS_u / (m_u - 1)
    and n D_e = n_q SS_q / (n_q - 1), both halved.
    """
    m = units.m.astype(np.float64)
    unit_mean = sum_by(units.unit, x, units.n_units) / m
    dev = x - unit_mean[units.unit]
    ss_u = sum_by(units.unit, dev * dev, units.n_units)
    observed = sum_by(units.question, m * ss_u / (m - 1.0), n_q)
    n = np.bincount(value_q, minlength=n_q).astype(np.float64)
    q_mean = sum_by(value_q, x, n_q) / np.maximum(n, 1.0)
    ss_q = sum_by(value_q, (x - q_mean[value_q]) ** 2, n_q)
    return observed, n * ss_q / np.maximum(n - 1.0, 1.0)
