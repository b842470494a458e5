"""Agreement among interviewers: Krippendorff's alpha, Fleiss' kappa, recommendations.

Pooled alpha is the `krippendorff` package's (Castro's implementation of
Krippendorff 2011); this module turns rating triples into its
units-by-values counts, or, where those would not fit in memory (continuous
values, very large scopes), gets the same alpha from sums. The bootstrap of
alpha is our own, as is the alpha stratified by question (question_alpha),
which the package does not compute.

References
----------
Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
Annenberg School for Communication Departmental Papers, University of
Pennsylvania.

Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
Psychological Bulletin, 76(5), 378-382.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import krippendorff
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
    distinct_pairs,
    distinct_rows,
    kept_where,
    safe_div,
    same_length,
    stable_order,
    unique_categories,
    unique_inverse,
)
from scoring.calibration.stats._bootstrap import count_weight_blocks

Level = Literal["nominal", "ordinal", "interval"]

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")

BOOTSTRAP_RESAMPLES = 200


# --------------------------------------------------------------------------
# Krippendorff's alpha
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pairable:
    """Pairable values: units with two or more values, sorted by unit."""

    unit: IntArray  # compact unit index 0..n_units-1 per value
    value: FloatArray
    m: IntArray  # values per unit
    n_units: int


def unit_values(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike
) -> tuple[IntArray, FloatArray]:
    """Return (unit, value) sorted by unit, without NaNs, one value per (unit, coder).

    A reliability data matrix holds at most one value per coder and unit, so a
    repeated (unit, coder) keeps its first value, as the matrix would.
    """
    u = as_codes(units, "units")
    c = as_codes(coders, "coders")
    v = as_floats(values, "values")
    same_length(units=u, coders=c, values=v)
    u, c, v = kept_where(~np.isnan(v), u, c, v)
    # A stable sort, so the first occurrence of a (unit, coder) comes first.
    order = stable_order(u, c)
    u, c, v = u[order], c[order], v[order]
    first = np.ones(u.size, dtype=bool)
    first[1:] = (u[1:] != u[:-1]) | (c[1:] != c[:-1])
    return u[first], v[first]


def pairable_values(unit_sorted: IntArray, value: FloatArray) -> _Pairable:
    if unit_sorted.size == 0:
        return _Pairable(unit_sorted, value, np.zeros(0, dtype=np.int64), 0)
    starts = np.flatnonzero(np.r_[True, unit_sorted[1:] != unit_sorted[:-1]])
    m = np.diff(np.r_[starts, unit_sorted.size]).astype(np.int64)
    keep_unit = m >= 2
    keep_value = np.repeat(keep_unit, m)
    m = m[keep_unit]
    unit = np.repeat(np.arange(m.size, dtype=np.int64), m)
    return _Pairable(unit, value[keep_value], m, int(m.size))


def _alpha_interval(p: _Pairable, value: FloatArray) -> float | None:
    """Return interval alpha of ``value`` (aligned with ``p``) or None.

    With delta^2 = (c - k)^2 the coincidence-matrix sums collapse to sums of
    squares: within a unit, sum over ordered pairs i != j of (v_i - v_j)^2 is
    2 m_u SS_u, and over all pairable values it is 2 n SS. So
    alpha = 1 - (n - 1)/n * sum_u [m_u SS_u / (m_u - 1)] / SS, in O(n).
    """
    n = value.size
    if n < 2 or np.ptp(value) == 0:
        return None
    mean_u = np.bincount(p.unit, value, minlength=p.n_units) / p.m
    dev = value - mean_u[p.unit]
    ss_u = np.bincount(p.unit, dev * dev, minlength=p.n_units)
    observed = float(np.sum(p.m * ss_u / (p.m - 1)))
    total = float(np.sum((value - value.mean()) ** 2))
    if total <= 0:
        return None
    return 1.0 - (n - 1) / n * observed / total


def _alphas_by_sums(p: _Pairable, categories: FloatArray, cat: IntArray) -> dict[str, float | None]:
    """Return the three levels' alpha in O(values), for more values than the package can take."""
    n = p.value.size
    n_c = np.bincount(cat, minlength=categories.size).astype(np.float64)

    # Nominal: disagreeing ordered pairs in a unit are m_u^2 - sum_c n_uc^2.
    key = p.unit * categories.size + cat
    cell_key, cell_inverse = unique_inverse(key, p.n_units * categories.size)
    cell_count = np.bincount(cell_inverse, minlength=cell_key.size)
    sq = np.bincount(
        cell_key // categories.size, cell_count.astype(np.float64) ** 2, minlength=p.n_units
    )
    observed = float(np.sum((p.m.astype(np.float64) ** 2 - sq) / (p.m - 1)))
    expected = float(n) ** 2 - float(np.sum(n_c**2))
    # Ordinal: Krippendorff's ordinal delta between c < k is
    # sum_{g=c..k} n_g - (n_c + n_k)/2 = M_k - M_c with the mid-rank
    # M_c = sum_{g<c} n_g + n_c/2, so ordinal alpha is interval alpha on M.
    mid_rank = np.cumsum(n_c) - n_c / 2.0
    return {
        "nominal": 1.0 - (n - 1) * observed / expected if expected > 0 else None,
        "ordinal": _alpha_interval(p, mid_rank[cat]),
        "interval": _alpha_interval(p, p.value),
    }


# The package holds units x values x values floats a few times over: 2**24
# cells (about 130 MB each) take a 1-5 scale's 670,000 units, a 1-10 scale's
# 170,000. Beyond, and for continuous values, the sums below give the same alpha.
PACKAGE_CELLS = 1 << 24


def alphas_from_pairable(p: _Pairable) -> dict[str, float | None]:
    """Return the three levels' alpha of pairable values, by the krippendorff package.

    The package is given each unit's count of each value (units x values,
    the few distinct ratings), never a units x coders matrix, which on a
    million ratings would hold hundreds of thousands of units times hundreds of
    interviewers. Where units x values^2 exceeds PACKAGE_CELLS, _alphas_by_sums.
    None at every level when fewer than two distinct values are pairable:
    alpha's expected disagreement is then zero.
    """
    out: dict[str, float | None] = dict.fromkeys(LEVELS)
    categories, cat = unique_categories(p.value)
    if categories.size < 2:
        return out
    if p.n_units * categories.size**2 > PACKAGE_CELLS:
        return _alphas_by_sums(p, categories, cat)
    counts = np.bincount(
        p.unit * categories.size + cat, minlength=p.n_units * categories.size
    ).reshape(p.n_units, categories.size)
    for level in LEVELS:
        out[level] = float(
            krippendorff.alpha(
                value_counts=counts, value_domain=categories, level_of_measurement=level
            )
        )
    return out


def krippendorff_alphas(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike
) -> dict[str, float | None]:
    """Return Krippendorff's alpha at the nominal, ordinal and interval levels.

    Takes sparse triples (unit code, coder code, value); NaN values count as
    missing. Only units with two or more values are pairable. None where alpha
    is undefined (fewer than two pairable values, or all pairable values equal).
    """
    unit, value = unit_values(units, coders, values)
    return alphas_from_pairable(pairable_values(unit, value))


def krippendorff_alpha(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike, level: Level = "interval"
) -> float | None:
    """Return Krippendorff's alpha at one level of measurement (see krippendorff_alphas)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}")
    return krippendorff_alphas(units, coders, values)[level]


def krippendorff_alpha_from_matrix(
    reliability_data: npt.ArrayLike, level: Level = "interval"
) -> float | None:
    """Return alpha for a coders x units matrix with NaN for missing values."""
    data = np.asarray(reliability_data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError("reliability_data must be a coders x units matrix")
    coders, units = np.indices(data.shape)
    return krippendorff_alpha(units.ravel(), coders.ravel(), data.ravel(), level)


def krippendorff_alpha_bootstrap(
    units: npt.ArrayLike,
    coders: npt.ArrayLike,
    values: npt.ArrayLike,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> tuple[float, float] | None:
    """Return a percentile bootstrap interval for interval-level alpha.

    1. Reduce each pairable unit to four numbers: m_u, sum v, sum v^2 and its
       observed-disagreement term m_u SS_u / (m_u - 1).
    2. Draw ``resamples`` resamples of units with replacement as count
       weights. Units with the same four numbers are interchangeable, so when
       they come in few kinds (ratings on a small scale: a pair of 1-4
       ratings is one of ten kinds) a resample is one multinomial draw of
       how many units of each kind it holds: the same distribution as drawing
       units one by one, at O(kinds) instead of O(units) per resample.
       Otherwise units are drawn one by one (bincount of uniform draws), a
       block of resamples at a time.
    3. Alpha of a resample is the weighted observed term over the weighted
       total sum of squares; take the percentiles.

    Resampling units (not single values) keeps within-unit pairs together.
    None when fewer than two pairable units or alpha is undefined.
    """
    unit, value = unit_values(units, coders, values)
    return _bootstrap_interval(pairable_values(unit, value), resamples, seed, confidence)


# Multinomial draws over unit kinds cost some tens of ns per kind and resample,
# drawing units one by one some ns per unit: the former wins with 8 or more
# units per kind.
UNITS_PER_KIND_FOR_MULTINOMIAL = 8


def _bootstrap_interval(
    p: _Pairable, resamples: int, seed: int, confidence: float
) -> tuple[float, float] | None:
    if p.n_units < 2 or np.ptp(p.value) == 0:
        return None
    # Centre globally first so sum(v^2) - (sum v)^2 / n does not cancel.
    v = p.value - p.value.mean()
    s1 = np.bincount(p.unit, v, minlength=p.n_units)
    s2 = np.bincount(p.unit, v * v, minlength=p.n_units)
    m = p.m.astype(np.float64)
    ss_u = s2 - s1 * s1 / m
    per_unit: FloatArray = np.column_stack([m, s1, s2, m * ss_u / (m - 1)])

    rng = np.random.default_rng(seed)
    n_units = p.n_units
    kinds, count = distinct_rows(per_unit)
    results: list[FloatArray] = []
    if kinds.shape[0] * UNITS_PER_KIND_FOR_MULTINOMIAL <= n_units:
        weights = rng.multinomial(n_units, count / count.sum(), size=resamples)
        results.append(_resample_alphas(weights @ kinds))
    else:
        # Keep each block's weight matrix near 32 MB.
        for weights in count_weight_blocks(rng, n_units, resamples, 4_000_000):
            results.append(_resample_alphas(weights @ per_unit))
    alphas = np.concatenate(results)
    if alphas.size < 2:
        return None
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(alphas, [tail, 100.0 - tail])
    return float(lo), float(hi)


def _resample_alphas(sums: FloatArray) -> FloatArray:
    """Return interval alpha per resample from its (n, sum v, sum v^2, observed) sums.

    Resamples without variance (every drawn value equal) have no alpha and are left out.
    """
    n_b, s1_b, s2_b, obs_b = sums.T
    total_b = s2_b - s1_b * s1_b / n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha_b = 1.0 - (n_b - 1) / n_b * obs_b / total_b
    return alpha_b[total_b > 1e-12 * max(1.0, float(n_b.max()))]


# --------------------------------------------------------------------------
# Fleiss' kappa
# --------------------------------------------------------------------------


def fleiss_kappa_from_table(table: npt.ArrayLike) -> float | None:
    """Return Fleiss' kappa of a units x categories count table.

    None unless every unit has the same number (two or more) of ratings, or
    when chance agreement is perfect (a single category used).
    """
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] == 0:
        return None
    m = t.sum(axis=1)
    if m[0] < 2 or np.any(m != m[0]):
        return None
    r = float(m[0])
    p_j = t.sum(axis=0) / t.sum()
    p_i = (np.sum(t * t, axis=1) - r) / (r * (r - 1.0))
    p_e = float(np.sum(p_j**2))
    if p_e >= 1.0:
        return None
    return (float(p_i.mean()) - p_e) / (1.0 - p_e)


def fleiss_kappa(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike
) -> float | None:
    """Return Fleiss' kappa from triples, treating each distinct value as a category.

    None unless every unit (with any value) has the same number, two or more,
    of ratings. Works on sparse counts, never a dense units x categories table.
    """
    unit, value = unit_values(units, coders, values)
    return fleiss_sorted(unit, value)


def fleiss_sorted(unit: IntArray, value: FloatArray) -> float | None:
    if unit.size == 0:
        return None
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    m = np.diff(np.r_[starts, unit.size])
    if m[0] < 2 or np.any(m != m[0]):
        return None
    r = float(m[0])
    n_units = m.size
    compact_unit = np.repeat(np.arange(n_units, dtype=np.int64), m)
    categories, cat = unique_categories(value)
    _, cell_inverse = unique_inverse(
        compact_unit * categories.size + cat, n_units * categories.size
    )
    cell_count = np.bincount(cell_inverse)
    p_j = np.bincount(cat, minlength=categories.size) / float(unit.size)
    p_bar = (float(np.sum(cell_count.astype(np.float64) ** 2)) - n_units * r) / (
        n_units * r * (r - 1.0)
    )
    p_e = float(np.sum(p_j**2))
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


# --------------------------------------------------------------------------
# Recommendation / decision agreement
# --------------------------------------------------------------------------


def recommendation_agreement(
    group: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    recommendation: npt.ArrayLike,
    group_decision: npt.ArrayLike,
    n_interviewers: int | None = None,
) -> tuple[FloatArray, IntArray]:
    """Return per interviewer the share of scorecards whose recommendation matched the decision.

    A scorecard is an (interviewer, group) cell; its recommendation is the
    mean of its non-NaN per-rating recommendations (-2, -1, 1, 2), read as
    hire when positive. Scorecards without a recommendation, with a mixed
    (zero) one or without a decision are skipped. NaN where none remain.
    """
    g = as_codes(group, "group")
    i = as_codes(interviewer, "interviewer")
    rec = as_floats(recommendation, "recommendation")
    same_length(group=g, interviewer=i, recommendation=rec)
    n_i = code_count(i, n_interviewers)
    dec_all = as_floats(group_decision, "group_decision")
    if g.size and dec_all.size <= int(g.max()):
        raise ValueError("group_decision must cover every group code")
    keep = ~np.isnan(rec)
    g, i, rec = g[keep], i[keep], rec[keep]
    if rec.size == 0:
        return np.full(n_i, np.nan), np.zeros(n_i, dtype=np.int64)
    return agreement_from(*distinct_pairs(g, i, int(i.max()) + 1), rec, dec_all, n_i)


def agreement_from(
    cell_g: IntArray,
    cell_i: IntArray,
    inverse: IntArray,
    rec: FloatArray,
    group_decision: FloatArray,
    n_i: int,
) -> tuple[FloatArray, IntArray]:
    """Return recommendation_agreement from the distinct (group, interviewer) pairs.

    ``rec`` may hold NaN: a pair without any recommendation is skipped.
    """
    known = ~np.isnan(rec)
    n_rec = np.bincount(inverse[known], minlength=cell_g.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        rec_mean = np.bincount(inverse[known], rec[known], minlength=cell_g.size) / n_rec
    dec = group_decision[cell_g]
    usable = (n_rec > 0) & ~np.isnan(dec) & (rec_mean != 0)
    match = ((rec_mean > 0) == (dec == 1.0))[usable].astype(np.float64)
    count = np.bincount(cell_i[usable], minlength=n_i)
    return safe_div(np.bincount(cell_i[usable], match, minlength=n_i), count), count.astype(
        np.int64
    )


@dataclass(frozen=True)
class ChanceCorrectedAgreement:
    """Per interviewer, Cohen's kappa of their yes/no with the decision and with their peers.

    ``decision_kappa``: their recommendation against the loop's decision,
    corrected for the agreement their own and the decisions' base rates give
    by chance (an interviewer who says no to everything, where most decisions
    are no hire, scores 0, not 0.9). ``peer_kappa``: against the majority of
    the other interviewers of the same loop, their own recommendation left
    out (loops where the others tie, or no other recommended, are skipped).
    NaN under MIN_KAPPA_LOOPS loops or where chance agreement is total.
    """

    decision_kappa: FloatArray
    decision_n: IntArray
    peer_kappa: FloatArray
    peer_n: IntArray


# A kappa over fewer loops than this is not reported.
MIN_KAPPA_LOOPS = 5


def _kappa(
    who: IntArray, mine: BoolArray, theirs: BoolArray, n_i: int
) -> tuple[FloatArray, IntArray]:
    """Return per interviewer Cohen's kappa of two yes/no series and the pairs behind it."""
    count = np.bincount(who, minlength=n_i).astype(np.float64)
    same = (mine == theirs).astype(np.float64)
    observed = safe_div(np.bincount(who, same, minlength=n_i), count)
    p_mine = safe_div(np.bincount(who, mine.astype(np.float64), minlength=n_i), count)
    p_theirs = safe_div(np.bincount(who, theirs.astype(np.float64), minlength=n_i), count)
    chance = p_mine * p_theirs + (1.0 - p_mine) * (1.0 - p_theirs)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (observed - chance) / (1.0 - chance)
    kappa = np.where((count >= MIN_KAPPA_LOOPS) & (chance < 1.0), kappa, np.nan)
    return kappa, count.astype(np.int64)


def chance_corrected_agreement(
    cell_g: IntArray,
    cell_i: IntArray,
    inverse: IntArray,
    rec: FloatArray,
    group_decision: FloatArray,
    n_i: int,
) -> ChanceCorrectedAgreement:
    """Return the chance-corrected agreements from the distinct (group, interviewer) pairs.

    1. Each pair's recommendation is the mean of its ratings' (-2, -1, 1, 2),
       yes when positive; mixed (0) or missing pairs are skipped.
    2. decision_kappa pairs it with the group's decision (skipped when unknown).
    3. peer_kappa pairs it with the others of the group: yes when more than
       half of the others' usable pairs are yes, no when fewer; a tie, or no
       other, is skipped. The interviewer's own vote never counts for the peers.
    """
    known = ~np.isnan(rec)
    n_rec = np.bincount(inverse[known], minlength=cell_g.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        rec_mean = np.bincount(inverse[known], rec[known], minlength=cell_g.size) / n_rec
    voted = (n_rec > 0) & (rec_mean != 0) & ~np.isnan(rec_mean)
    yes = rec_mean > 0
    dec = group_decision[cell_g]
    with_decision = voted & ~np.isnan(dec)
    decision_kappa, decision_n = _kappa(
        cell_i[with_decision], yes[with_decision], dec[with_decision] == 1.0, n_i
    )
    n_groups = int(cell_g.max()) + 1 if cell_g.size else 0
    votes = np.bincount(cell_g[voted], minlength=n_groups)
    yeses = np.bincount(cell_g[voted], yes[voted].astype(np.float64), minlength=n_groups)
    others = votes[cell_g] - voted
    others_yes = yeses[cell_g] - (voted & yes)
    peer_ok = voted & (others > 0) & (2 * others_yes != others)
    majority = 2 * others_yes > others
    peer_kappa, peer_n = _kappa(cell_i[peer_ok], yes[peer_ok], majority[peer_ok], n_i)
    return ChanceCorrectedAgreement(decision_kappa, decision_n, peer_kappa, peer_n)
