"""Compute calibration statistics for interview panels from plain arrays.

Pure numpy/scipy: no Django, no ORM. The Django side turns ratings into integer
codes (candidate 0..C-1, interviewer 0..I-1, question 0..Q-1) and maps codes
back to names; everything here deals only in codes and parallel arrays of
equal length, one entry per rating. Every function is vectorised (bincount,
sparse matrices, sorting), so a million ratings take seconds.

Public API
----------
- ``summarise(candidate, interviewer, question, rating, *, loop=None,
  decision=None, recommendation=None, n_candidates=None, n_interviewers=None,
  n_questions=None, scale_min=1.0, scale_max=None, bootstrap_resamples=200,
  seed=0, ndigits=4) -> dict``: the calibration snapshot body (JSON-safe).
- ``krippendorff_alpha(units, coders, values, level="interval") -> float | None``
- ``krippendorff_alphas(units, coders, values) -> dict[str, float | None]``
- ``krippendorff_alpha_from_matrix(reliability_data, level) -> float | None``
- ``krippendorff_alpha_bootstrap(units, coders, values, *, resamples=200,
  seed=0) -> tuple[float, float] | None`` (interval level, units resampled)
- ``fleiss_kappa(units, coders, values) -> float | None``
- ``fleiss_kappa_from_table(table) -> float | None``
- ``icc(grid) -> IccResult`` (six Shrout & Fleiss forms with 95% CIs)
- ``putka_q(targets, raters) -> tuple[float, float]`` (q, harmonic mean k)
- ``variance_components(targets, raters, scores) -> VarianceComponents``
- ``g_qk(targets, raters, scores) -> GqkResult``
- ``leniency(group, interviewer, rating, n_interviewers=None) -> LeniencyResult``
- ``fit_additive(candidate, interviewer, question, rating, *, n_candidates=None,
  n_interviewers=None, n_questions=None) -> AdditiveFit``
- ``question_discrimination(group, question, rating, *, n_questions=None,
  group_decision=None) -> DiscriminationResult``
- ``recommendation_agreement(group, interviewer, recommendation,
  group_decision, n_interviewers=None) -> tuple[FloatArray, IntArray]``
- ``panel_components(candidate, interviewer, n_candidates, n_interviewers)
  -> tuple[IntArray, IntArray, int]`` (component labels, main component)
- ``largest_complete_grid(candidate, interviewer, question, rating,
  n_questions) -> tuple[int, FloatArray] | None``
- ``severity_adjusted_mean(interviewer, rating, severity, *, scale=None)
  -> SeverityAdjusted | None``:
  one candidate's mean rating as given and as an average interviewer would
  have given it (each rating moved by its interviewer's severity).
- ``to_jsonable(obj, ndigits=None)``: numpy scalars/arrays to plain Python,
  NaN and infinities to None.
- Flag thresholds: ``LENIENCY_FLAG_POINTS``, ``LOW_DISCRIMINATION``,
  ``LOW_DISCRIMINATION_MIN_PAIRS``, ``MIN_CORRELATION_PAIRS``,
  ``CEILING_FLOOR_SHARE``, ``CEILING_FLOOR_MIN_RATINGS``.

Undefined statistics (no pairable units, zero variance, too few pairs) are
None in Python results and NaN inside arrays; ``summarise`` turns both into
JSON null.
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import linalg, sparse, special
from scipy.sparse.csgraph import connected_components

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Level = Literal["nominal", "ordinal", "interval"]

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")

# An interviewer is flagged lenient/harsh only when the average gap to
# co-panelists is larger than half a rating point AND its 95% interval
# excludes zero: half a point on a 1-4 scale moves hire decisions, and the
# interval keeps interviewers with few candidates from being flagged on noise.
LENIENCY_FLAG_POINTS = 0.5
# A question whose rating correlates below 0.2 with the rest of the loop adds
# little information; 30 pairs keeps the correlation's standard error near
# 0.18 so the flag is not noise.
LOW_DISCRIMINATION = 0.2
LOW_DISCRIMINATION_MIN_PAIRS = 30
# Below 10 pairs a correlation is too unstable to show at all.
MIN_CORRELATION_PAIRS = 10
# More than 80% of ratings at one end of the scale means the question no
# longer separates candidates at that end; judged only from 10 ratings up.
CEILING_FLOOR_SHARE = 0.8
CEILING_FLOOR_MIN_RATINGS = 10
CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 200
# Reduced normal equations up to this size are solved densely (eigh), which
# also gives exact standard errors; larger ones use an iterative solver.
MAX_DENSE_PARAMETERS = 4000


# --------------------------------------------------------------------------
# Input helpers
# --------------------------------------------------------------------------


def _codes(x: npt.ArrayLike, name: str) -> IntArray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError(f"{name} must hold integer codes")
    elif a.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integer codes")
    out = a.astype(np.int64, copy=False)
    if out.min() < 0:
        raise ValueError(f"{name} codes must be non-negative")
    return out


def _floats(x: npt.ArrayLike, name: str) -> FloatArray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    return a


def _same_length(**arrays: np.ndarray) -> int:
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"arrays must have equal lengths, got {lengths}")
    return next(iter(lengths.values()), 0)


def _size(codes: IntArray, given: int | None) -> int:
    needed = int(codes.max()) + 1 if codes.size else 0
    if given is None:
        return needed
    if given < needed:
        raise ValueError(f"size {given} is smaller than the largest code + 1 ({needed})")
    return given


def _compact(codes: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """Return codes renumbered 0..m-1 (in code order) and the used codes."""
    present = np.zeros(size, dtype=bool)
    present[codes] = True
    new_index = np.cumsum(present) - 1
    return new_index[codes].astype(np.int64), np.flatnonzero(present).astype(np.int64)


def _dense_keys(n_keys: int, size: int) -> bool:
    """Whether keys in [0, size) are few enough for a table of that size.

    A presence table costs O(size) and no sort; sorting costs O(n log n). Up
    to 16 table slots per key (and any table under 4 M slots) it is faster.
    """
    return size < 2**31 and size <= max(16 * n_keys, 1 << 22)


def _unique_inverse(key: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """Return np.unique(key, return_inverse=True) for keys in [0, size), by table when cheaper."""
    if not _dense_keys(key.size, size):
        return np.unique(key, return_inverse=True)
    present = np.zeros(size, dtype=bool)
    present[key] = True
    distinct = np.flatnonzero(present)
    rank = np.zeros(size, dtype=np.int32)
    rank[distinct] = np.arange(distinct.size, dtype=np.int32)
    return distinct.astype(np.int64), rank[key].astype(np.int64)


def _distinct_per(group: IntArray, member: IntArray, n_groups: int, n_members: int) -> IntArray:
    """Return per group (0..n_groups-1) the number of distinct members it has."""
    size = n_groups * n_members
    if _dense_keys(group.size, size):
        seen = np.zeros(size, dtype=bool)
        seen[group * n_members + member] = True
        return seen.reshape(n_groups, n_members).sum(axis=1).astype(np.int64)
    keys = np.unique(group * n_members + member)
    return np.bincount(keys // n_members, minlength=n_groups).astype(np.int64)


def _categories(values: FloatArray) -> tuple[FloatArray, IntArray]:
    """Return np.unique(values, return_inverse=True): few distinct values, found without argsort."""
    categories = np.unique(values)
    return categories, np.searchsorted(categories, values).astype(np.int64)


def _safe_div(num: FloatArray, den: npt.ArrayLike) -> FloatArray:
    den_a = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den_a).shape, np.nan)
    np.divide(num, den_a, out=out, where=den_a != 0)
    return out


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


def _unit_values(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike
) -> tuple[IntArray, FloatArray]:
    """Return (unit, value) sorted by unit, without NaNs, one value per (unit, coder).

    A reliability data matrix holds at most one value per coder and unit, so a
    repeated (unit, coder) keeps its first value, as the matrix would.
    """
    u = _codes(units, "units")
    c = _codes(coders, "coders")
    v = _floats(values, "values")
    _same_length(units=u, coders=c, values=v)
    keep = ~np.isnan(v)
    u, c, v = u[keep], c[keep], v[keep]
    # A stable sort, so the first occurrence of a (unit, coder) comes first.
    order = _stable_order(u, c)
    u, c, v = u[order], c[order], v[order]
    first = np.ones(u.size, dtype=bool)
    first[1:] = (u[1:] != u[:-1]) | (c[1:] != c[:-1])
    return u[first], v[first]


def _stable_order(major: IntArray, minor: IntArray) -> IntArray:
    """Return the stable order by (major, minor) of non-negative codes.

    One stable argsort of major * (max minor + 1) + minor (a radix-friendly
    single key) is several times faster than lexsort on two keys; lexsort
    remains for codes too large to combine in 63 bits.
    """
    if major.size == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(minor.max()) + 1
    if (int(major.max()) + 1) * width < 2**62:
        return np.argsort(major * width + minor, kind="stable")
    return np.lexsort((minor, major))


def _pairable(unit_sorted: IntArray, value: FloatArray) -> _Pairable:
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


def _alphas_from_pairable(p: _Pairable) -> dict[str, float | None]:
    out: dict[str, float | None] = dict.fromkeys(LEVELS)
    n = p.value.size
    if n < 2 or np.ptp(p.value) == 0:
        return out
    categories, cat = _categories(p.value)
    n_c = np.bincount(cat, minlength=categories.size).astype(np.float64)

    # Nominal: disagreeing ordered pairs in a unit are m_u^2 - sum_c n_uc^2.
    key = p.unit * categories.size + cat
    cell_key, cell_inverse = _unique_inverse(key, p.n_units * categories.size)
    cell_count = np.bincount(cell_inverse, minlength=cell_key.size)
    sq = np.bincount(
        cell_key // categories.size, cell_count.astype(np.float64) ** 2, minlength=p.n_units
    )
    observed = float(np.sum((p.m.astype(np.float64) ** 2 - sq) / (p.m - 1)))
    expected = float(n) ** 2 - float(np.sum(n_c**2))
    out["nominal"] = 1.0 - (n - 1) * observed / expected if expected > 0 else None

    # Ordinal: Krippendorff's ordinal delta between c < k is
    # sum_{g=c..k} n_g - (n_c + n_k)/2 = M_k - M_c with the mid-rank
    # M_c = sum_{g<c} n_g + n_c/2, so ordinal alpha is interval alpha on M.
    mid_rank = np.cumsum(n_c) - n_c / 2.0
    out["ordinal"] = _alpha_interval(p, mid_rank[cat])
    out["interval"] = _alpha_interval(p, p.value)
    return out


def krippendorff_alphas(
    units: npt.ArrayLike, coders: npt.ArrayLike, values: npt.ArrayLike
) -> dict[str, float | None]:
    """Return Krippendorff's alpha at the nominal, ordinal and interval levels.

    Takes sparse triples (unit code, coder code, value); NaN values count as
    missing. Only units with two or more values are pairable. None where alpha
    is undefined (fewer than two pairable values, or all pairable values equal).
    """
    unit, value = _unit_values(units, coders, values)
    return _alphas_from_pairable(_pairable(unit, value))


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
    unit, value = _unit_values(units, coders, values)
    return _bootstrap_interval(_pairable(unit, value), resamples, seed, confidence)


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
    per_unit = np.column_stack([m, s1, s2, m * ss_u / (m - 1)])

    rng = np.random.default_rng(seed)
    n_units = p.n_units
    kinds, count = _distinct_rows(per_unit)
    results: list[FloatArray] = []
    if kinds.shape[0] * UNITS_PER_KIND_FOR_MULTINOMIAL <= n_units:
        weights = rng.multinomial(n_units, count / count.sum(), size=resamples)
        results.append(_resample_alphas(weights @ kinds))
    else:
        # Keep each block's weight matrix near 32 MB.
        block = max(1, min(resamples, 4_000_000 // n_units))
        done = 0
        while done < resamples:
            b = min(block, resamples - done)
            draws = rng.integers(0, n_units, size=(b, n_units))
            draws += np.arange(b, dtype=np.int64)[:, None] * n_units
            weights = np.bincount(draws.ravel(), minlength=b * n_units).reshape(b, n_units)
            results.append(_resample_alphas(weights @ per_unit))
            done += b
    alphas = np.concatenate(results)
    if alphas.size < 2:
        return None
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(alphas, [tail, 100.0 - tail])
    return float(lo), float(hi)


def _distinct_rows(rows: FloatArray) -> tuple[FloatArray, IntArray]:
    """Return the distinct rows of a 2-D array and how often each occurs.

    np.unique(axis=0) sorts rows as opaque records, several times slower than
    a lexsort on the columns.
    """
    if rows.shape[0] == 0:
        return rows, np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.flatnonzero(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)])
    return ordered[starts], np.diff(np.r_[starts, rows.shape[0]]).astype(np.int64)


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
    unit, value = _unit_values(units, coders, values)
    return _fleiss_sorted(unit, value)


def _fleiss_sorted(unit: IntArray, value: FloatArray) -> float | None:
    if unit.size == 0:
        return None
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    m = np.diff(np.r_[starts, unit.size])
    if m[0] < 2 or np.any(m != m[0]):
        return None
    r = float(m[0])
    n_units = m.size
    compact_unit = np.repeat(np.arange(n_units, dtype=np.int64), m)
    categories, cat = _categories(value)
    _, cell_inverse = _unique_inverse(
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
# Intraclass correlations (complete grids)
# --------------------------------------------------------------------------

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
# Absorbed least squares (shared by G(q,k) and the additive model)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _AbsorbedFit:
    """Least-squares fit of y = group + sum of factor effects, group absorbed."""

    beta: FloatArray  # stacked factor effects, minimum-norm (sum-to-zero per factor)
    cov_unscaled: FloatArray | None  # pseudo-inverse of the reduced normal matrix
    reduced_diag: FloatArray  # its diagonal, for the large-problem SE fallback
    rank: int
    sse: float
    group_mean: FloatArray
    xbar: sparse.csr_matrix  # per-group mean of the factor design rows


def _absorbed_fit(
    group: IntArray,
    n_groups: int,
    factors: list[IntArray],
    sizes: list[int],
    y: FloatArray,
    null_space: list[IntArray],
) -> _AbsorbedFit:
    """Fit the additive model by absorbing the (many) group effects.

    1. Subtract group means (the within transformation M): the group effects
       drop out and only the P = sum(sizes) factor effects remain.
    2. Form the reduced normal equations C b = r with C = X'MX = X'X - X'Z
       (Z'Z)^-1 Z'X (P x P): X'X from counts of each level and of each pair
       of levels, X'Z (Z'Z)^-1 Z'X from the sparse per-group counts of each
       level (never a dense n x P design), r = X'My from sums per level.
    3. Solve with the Moore-Penrose pseudo-inverse: its solution is orthogonal
       to C's null space, which for a connected design is spanned by the
       all-ones vector of each factor, so every factor's effects sum to zero,
       and the covariance of that constrained estimator is sigma^2 C^+ (see
       _pseudo_inverse). ``null_space`` lists, per expected null vector, the
       stacked parameters it holds (a factor, or a factor's levels in one
       connected component). Above MAX_DENSE_PARAMETERS use MINRES and
       centre each factor instead.
    4. SSE = y'My - b'r.
    """
    offsets = [int(off) for off in np.cumsum([0, *sizes[:-1]])]
    p = int(sum(sizes))
    stacked = [f + off for f, off in zip(factors, offsets, strict=True)]
    n_g = np.bincount(group, minlength=n_groups).astype(np.float64)
    inv_n = _nan_to_zero(_safe_div(np.ones(n_groups), n_g))
    group_mean = _safe_div(np.bincount(group, y, minlength=n_groups), n_g)
    within = y - group_mean[group]
    # Per-group count of each level; the CSR conversion sums repeated entries.
    zx = sparse.csr_matrix(
        (np.ones(y.size * len(factors)), (np.tile(group, len(factors)), np.concatenate(stacked))),
        shape=(n_groups, p),
    )
    xbar = zx.copy()
    xbar.data *= np.repeat(inv_n, np.diff(zx.indptr))
    r = np.concatenate(
        [np.bincount(f, within, minlength=size) for f, size in zip(factors, sizes, strict=True)]
    )

    cov: FloatArray | None
    if p == 0:
        beta = np.zeros(0)
        cov = np.zeros((0, 0))
        rank = 0
        reduced_diag = np.zeros(0)
    elif p <= MAX_DENSE_PARAMETERS:
        reduced = _cross_counts(factors, sizes, offsets) - (zx.T.tocsr() @ xbar).toarray()
        reduced_diag = np.diag(reduced).copy()
        with _serial_blas():
            cov, rank = _pseudo_inverse(reduced, null_space)
            beta = cov @ r
    else:
        from scipy.sparse.linalg import minres  # only for the largest designs

        rows = np.tile(np.arange(y.size, dtype=np.int64), len(factors))
        x = sparse.csr_matrix(
            (np.ones(rows.size), (rows, np.concatenate(stacked))), shape=(y.size, p)
        )
        s = sparse.diags(np.sqrt(inv_n)) @ zx
        reduced_sparse = (x.T @ x - s.T @ s).tocsr()
        reduced_diag = reduced_sparse.diagonal()
        beta = minres(reduced_sparse, r, rtol=1e-10, maxiter=10 * p)[0]
        for size, off in zip(sizes, offsets, strict=True):
            beta[off : off + size] -= beta[off : off + size].mean()
        cov = None
        rank = p - len(null_space)
    sse = max(float(within @ within) - float(beta @ r), 0.0)
    return _AbsorbedFit(beta, cov, reduced_diag, rank, sse, group_mean, xbar)


@functools.cache
def _openblas() -> tuple[Any, ...]:
    """Return the OpenBLAS libraries loaded in this process that can limit their threads.

    numpy's and scipy's wheels each bundle one. Found by path in the process's
    memory map (Linux); elsewhere, or with another BLAS, none.
    """
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return ()
    libraries = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(library, "openblas_set_num_threads_local"):
            libraries.append(library)
    return tuple(libraries)


@contextmanager
def _serial_blas() -> Iterator[None]:
    """Run BLAS and LAPACK on this thread alone while inside.

    The dense systems here are a few hundred wide: one thread factorises one
    in tens of milliseconds, while OpenBLAS's worker threads, each waiting for
    the others at every block step, took from 0.1 to 6 seconds for the same
    factorisation on a busy two-core machine. The limit is OpenBLAS's
    per-thread one (0.3.27 and later), so other threads are unaffected.
    """
    libraries = _openblas()
    previous = [library.openblas_set_num_threads_local(1) for library in libraries]
    try:
        yield
    finally:
        for library, threads in zip(libraries, previous, strict=True):
            library.openblas_set_num_threads_local(threads)


def _cross_counts(factors: list[IntArray], sizes: list[int], offsets: list[int]) -> FloatArray:
    """Return X'X of the stacked indicator design: level counts and counts of level pairs."""
    p = int(sum(sizes))
    out = np.zeros((p, p))
    for a, (fa, size_a, off_a) in enumerate(zip(factors, sizes, offsets, strict=True)):
        block = slice(off_a, off_a + size_a)
        out[block, block] = np.diag(np.bincount(fa, minlength=size_a).astype(np.float64))
        for fb, size_b, off_b in zip(
            factors[a + 1 :], sizes[a + 1 :], offsets[a + 1 :], strict=True
        ):
            cross = np.bincount(fa * size_b + fb, minlength=size_a * size_b).reshape(size_a, size_b)
            out[block, off_b : off_b + size_b] = cross
            out[off_b : off_b + size_b, block] = cross.T
    return out


# Above this 1-norm condition number of C + s N N' (which bounds the ratio of
# C's largest to smallest non-zero eigenvalue), _pseudo_inverse lets an
# eigendecomposition decide C's rank with its 1e-9 relative tolerance.
MAX_CONDITION_FOR_CHOLESKY = 1e8


def _pseudo_inverse(c: FloatArray, null_space: list[IntArray]) -> tuple[FloatArray, int]:
    """Return (C^+, rank) of a symmetric positive semi-definite C.

    1. If the normalised indicator vectors N of ``null_space`` are null
       vectors of C and span its whole null space, then for s > 0
       C^+ = (C + s N N')^-1 - N N' / s: one Cholesky factorisation, several
       times faster than an eigendecomposition and free of the thread
       contention LAPACK's eigensolver shows on a busy machine.
    2. s = max diag(C) <= C's largest eigenvalue, so C + s N N' is as well
       conditioned as C on its range; a condition number above
       MAX_CONDITION_FOR_CHOLESKY (or a failed factorisation) means C has
       more null directions (effects confounded in the design).
    3. Otherwise, and whenever step 1's premise fails, eigendecompose C and
       invert the eigenvalues above 1e-9 times the largest.
    """
    p = c.shape[0]
    scale = float(np.max(np.diag(c))) if p else 0.0
    if scale > 0 and null_space and all(members.size for members in null_space):
        basis = np.zeros((p, len(null_space)))
        for j, members in enumerate(null_space):
            basis[members, j] = 1.0 / math.sqrt(members.size)
        if float(np.abs(c @ basis).max()) <= 1e-9 * scale:
            augmented = c + scale * (basis @ basis.T)
            inverse = _spd_inverse(augmented)
            if inverse is not None:
                condition = float(np.abs(augmented).sum(axis=0).max()) * float(
                    np.abs(inverse).sum(axis=0).max()
                )
                if condition <= MAX_CONDITION_FOR_CHOLESKY:
                    return inverse - (basis @ basis.T) / scale, p - len(null_space)
    w, vecs = np.linalg.eigh(c)
    tol = max(float(w.max()), 0.0) * 1e-9 if p else 0.0
    keep = w > tol
    vk = vecs[:, keep]
    return (vk / w[keep]) @ vk.T, int(keep.sum())


def _spd_inverse(a: FloatArray) -> FloatArray | None:
    """Return the inverse of a symmetric positive definite matrix, None if not definite.

    LAPACK's potrf/potri: a third of the work of solving against the identity.
    """
    factor, info = linalg.lapack.dpotrf(a, lower=True, clean=True)
    if info != 0:
        return None
    inverse, info = linalg.lapack.dpotri(factor, lower=True)
    if info != 0:
        return None
    lower = np.tril(inverse)
    return lower + np.tril(inverse, -1).T


def _members(labels: npt.NDArray[np.integer], n_labels: int) -> list[IntArray]:
    """Return the indices holding each label 0..n_labels-1."""
    order = np.argsort(labels, kind="stable")
    return np.split(order, np.cumsum(np.bincount(labels, minlength=n_labels))[:-1])


def _nan_to_zero(a: FloatArray) -> FloatArray:
    return np.where(np.isfinite(a), a, 0.0)


# --------------------------------------------------------------------------
# G(q,k) of Putka, Le, McCloy & Diaz (2008)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class VarianceComponents:
    """Variance components of the crossed targets x raters model.

    ``rater`` is None when rater and residual variance are confounded (raters
    nested in targets); ``residual`` then holds their sum.
    """

    target: float
    rater: float | None
    residual: float
    n_targets: int
    n_raters: int
    n_cells: int
    method: str


@dataclass(frozen=True)
class GqkResult:
    """G(q,k) with the ingredients that produced it."""

    g: float | None
    q: float
    k_harmonic: float
    components: VarianceComponents | None


def _cells(
    targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike | None = None
) -> tuple[IntArray, IntArray, FloatArray, int, int]:
    """Return one row per (target, rater) cell with compact codes and the mean score."""
    t = _codes(targets, "targets")
    r = _codes(raters, "raters")
    s = np.zeros(t.size) if scores is None else _floats(scores, "scores")
    _same_length(targets=t, raters=r, scores=s)
    keep = ~np.isnan(s)
    t, r, s = t[keep], r[keep], s[keep]
    if t.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), 0, 0
    return _cells_from(*_pairs(t, r, int(r.max()) + 1), s)


def _pairs(major: IntArray, minor: IntArray, n_minor: int) -> tuple[IntArray, IntArray, IntArray]:
    """Return the distinct (major, minor) pairs in order, as two arrays, and each entry's pair."""
    key, inverse = _unique_inverse(major * n_minor + minor, (int(major.max()) + 1) * n_minor)
    return key // n_minor, key % n_minor, inverse


def _cells_from(
    pair_t: IntArray, pair_r: IntArray, inverse: IntArray, scores: FloatArray
) -> tuple[IntArray, IntArray, FloatArray, int, int]:
    """Return _cells' result from the distinct (target, rater) pairs of non-empty data."""
    cell_t, targets = _compact(pair_t, int(pair_t.max()) + 1)
    cell_r, raters = _compact(pair_r, int(pair_r.max()) + 1)
    mean = np.bincount(inverse, scores) / np.bincount(inverse)
    return cell_t, cell_r, mean, int(targets.size), int(raters.size)


def _putka_q_cells(cell_t: IntArray, cell_r: IntArray, n_t: int, n_r: int) -> tuple[float, float]:
    k_i = np.bincount(cell_t, minlength=n_t).astype(np.float64)
    k_h = n_t / float(np.sum(1.0 / k_i))
    if n_t < 2:
        return 1.0 / k_h, k_h
    # sum_{i != i'} c_ii' / (k_i k_i') = sum_r [(sum_i A_ri / k_i)^2 - sum_i A_ri / k_i^2]
    # for the rater x target incidence A: O(cells) instead of O(targets^2).
    inv = 1.0 / k_i[cell_t]
    per_rater = np.bincount(cell_r, inv, minlength=n_r)
    pair_sum = float(np.sum(per_rater**2) - np.sum(inv**2))
    return 1.0 / k_h - pair_sum / (n_t * (n_t - 1.0)), k_h


def putka_q(targets: npt.ArrayLike, raters: npt.ArrayLike) -> tuple[float, float]:
    """Return Putka et al.'s q multiplier and the harmonic mean k of raters per target.

    q = 1/k_h - [sum_{i != i'} c_ii' / (k_i k_i')] / [N_t (N_t - 1)], where
    c_ii' counts raters shared by targets i and i' and k_i counts target i's
    raters. q = 0 when fully crossed and 1/k when raters are nested in targets.
    """
    cell_t, cell_r, _, n_t, n_r = _cells(targets, raters)
    if n_t == 0:
        return math.nan, math.nan
    return _putka_q_cells(cell_t, cell_r, n_t, n_r)


def _components_from_cells(
    cell_t: IntArray, cell_r: IntArray, y: FloatArray, n_t: int, n_r: int
) -> VarianceComponents | None:
    """Estimate sigma^2_T, sigma^2_R and sigma^2_TR,e by Henderson's Method 3.

    Method 3 (fitting constants) equates reductions in sums of squares from
    the additive model y = mu + t_i + r_j + e to their expectations under the
    random model, so each estimate is free of the other factor's effects even
    when raters are not randomly spread over targets:

    1. sigma^2_e = SSE(T+R) / (N - N_T - N_R + c), c = connected components.
    2. R(R|T) = SSE(T) - SSE(T+R) has expectation
       (N_R - c) sigma^2_e + (N - N_T) sigma^2_R   (one observation per cell).
    3. R(T|R) = SSE(R) - SSE(T+R) has expectation
       (N_T - c) sigma^2_e + (N - N_R) sigma^2_T.
    4. Negative estimates are truncated to zero.

    If the design leaves no residual degrees of freedom (raters nested in
    targets), rater and residual variance are confounded: fall back to the
    one-way random ANOVA, whose within-target variance is their sum.
    On balanced data Method 3 equals the ANOVA estimators.
    """
    n = y.size
    if n_t < 2 or n == 0:
        return None
    graph = sparse.csr_matrix((np.ones(n), (cell_t, cell_r + n_t)), shape=(n_t + n_r, n_t + n_r))
    n_comp, labels = connected_components(graph, directed=False)
    n_comp = int(n_comp)
    df_e = n - n_t - n_r + n_comp
    n_i = np.bincount(cell_t, minlength=n_t).astype(np.float64)
    mean_t = np.bincount(cell_t, y, minlength=n_t) / n_i
    ss_within_t = float(np.sum((y - mean_t[cell_t]) ** 2))

    if df_e <= 0 or n == n_r:
        if n == n_t:
            return None
        msw = ss_within_t / (n - n_t)
        msb = float(np.sum(n_i * (mean_t - y.mean()) ** 2)) / (n_t - 1)
        n0 = (n - float(np.sum(n_i**2)) / n) / (n_t - 1)
        return VarianceComponents(
            target=max((msb - msw) / n0, 0.0),
            rater=None,
            residual=msw,
            n_targets=n_t,
            n_raters=n_r,
            n_cells=n,
            method=(
                "one-way ANOVA (raters nested in targets: rater and residual variance confounded)"
            ),
        )

    # Absorb the larger factor so the dense reduced system stays small.
    # The kept factor's effects are determined up to a constant per component.
    if n_r <= n_t:
        per_comp = _members(labels[n_t:], n_comp)
        fit = _absorbed_fit(cell_t, n_t, [cell_r], [n_r], y, per_comp)
    else:
        per_comp = _members(labels[:n_t], n_comp)
        fit = _absorbed_fit(cell_r, n_r, [cell_t], [n_t], y, per_comp)
    sse = fit.sse
    n_j = np.bincount(cell_r, minlength=n_r).astype(np.float64)
    mean_r = np.bincount(cell_r, y, minlength=n_r) / n_j
    ss_within_r = float(np.sum((y - mean_r[cell_r]) ** 2))
    sigma_e = sse / df_e
    sigma_r = (ss_within_t - sse - (n_r - n_comp) * sigma_e) / (n - n_t) if n > n_t else 0.0
    sigma_t = (ss_within_r - sse - (n_t - n_comp) * sigma_e) / (n - n_r)
    return VarianceComponents(
        target=max(sigma_t, 0.0),
        rater=max(sigma_r, 0.0),
        residual=max(sigma_e, 0.0),
        n_targets=n_t,
        n_raters=n_r,
        n_cells=n,
        method="Henderson method 3 on (target, rater) cell means",
    )


def variance_components(
    targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike
) -> VarianceComponents | None:
    """Return the crossed-model variance components (see _components_from_cells).

    Several scores for one (target, rater) are averaged first: the model's
    observation is a rater's score for a target (e.g. a scorecard's mean over
    its questions). None with fewer than two targets.
    """
    cell_t, cell_r, y, n_t, n_r = _cells(targets, raters, scores)
    return _components_from_cells(cell_t, cell_r, y, n_t, n_r)


def g_qk(targets: npt.ArrayLike, raters: npt.ArrayLike, scores: npt.ArrayLike) -> GqkResult:
    """Return Putka et al. (2008) G(q,k) for ill-structured rating designs.

    G(q,k) = s2_T / (s2_T + q s2_R + s2_TR,e / k_h): the reliability of a
    target's mean score over its own k_h raters, where q (see putka_q)
    charges only the part of rater variance that does not cancel between
    targets sharing raters. Fully crossed (q = 0) it equals the consistency
    ICC(3,k); fully nested (q = 1/k) it equals ICC(1,k).
    """
    cell_t, cell_r, y, n_t, n_r = _cells(targets, raters, scores)
    if n_t == 0:
        return GqkResult(None, math.nan, math.nan, None)
    q, k_h = _putka_q_cells(cell_t, cell_r, n_t, n_r)
    comp = _components_from_cells(cell_t, cell_r, y, n_t, n_r)
    if comp is None:
        return GqkResult(None, q, k_h, None)
    rater = comp.rater if comp.rater is not None else 0.0
    denominator = comp.target + q * rater + comp.residual / k_h
    g = comp.target / denominator if denominator > 0 else None
    return GqkResult(g, q, k_h, comp)


# --------------------------------------------------------------------------
# Leniency
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LeniencyResult:
    """Per-interviewer leniency (rating points above co-panelists) with 95% CI."""

    leniency: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    n_candidates: IntArray


def leniency(
    group: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    rating: npt.ArrayLike,
    n_interviewers: int | None = None,
    confidence: float = CONFIDENCE,
) -> LeniencyResult:
    """Return each interviewer's mean gap to co-panelists on the same candidate.

    1. Average each interviewer's ratings of a candidate (or loop: ``group``).
    2. For candidates with two or more interviewers, the gap is that mean
       minus the mean of the co-panelists' means (each co-panelist weighted
       equally, so a panelist who asked more questions does not dominate).
    3. Average the gaps over the interviewer's candidates, with a t interval
       over candidates (candidates treated as independent).

    Arrays are indexed by interviewer code; NaN where undefined (no candidate
    with a co-panelist; the interval needs two candidates).
    """
    g = _codes(group, "group")
    i = _codes(interviewer, "interviewer")
    y = _floats(rating, "rating")
    _same_length(group=g, interviewer=i, rating=y)
    keep = ~np.isnan(y)
    g, i, y = g[keep], i[keep], y[keep]
    n_i = _size(i, n_interviewers)
    nan = np.full(n_i, np.nan)
    if y.size == 0:
        return LeniencyResult(nan, nan.copy(), nan.copy(), np.zeros(n_i, dtype=np.int64))
    return _leniency_from(*_pairs(g, i, int(i.max()) + 1), y, n_i, confidence)


def _leniency_from(
    cell_g: IntArray,
    cell_i: IntArray,
    inverse: IntArray,
    y: FloatArray,
    n_i: int,
    confidence: float = CONFIDENCE,
) -> LeniencyResult:
    """Return leniency from the distinct (group, interviewer) pairs of non-empty ratings."""
    cell_mean = np.bincount(inverse, y) / np.bincount(inverse)
    cg, _ = _compact(cell_g, int(cell_g.max()) + 1)
    panel = np.bincount(cg).astype(np.float64)
    total = np.bincount(cg, cell_mean)
    shared = panel[cg] >= 2
    gap = cell_mean[shared] - (total[cg][shared] - cell_mean[shared]) / (panel[cg][shared] - 1)
    who = cell_i[shared]
    count = np.bincount(who, minlength=n_i)
    mean = _safe_div(np.bincount(who, gap, minlength=n_i), count)
    dev = gap - mean[who]
    var = _safe_div(np.bincount(who, dev * dev, minlength=n_i), count - 1)
    with np.errstate(invalid="ignore"):
        t_crit = special.stdtrit(np.where(count >= 2, count - 1, 1), 1.0 - (1.0 - confidence) / 2.0)
    half = np.where(
        count >= 2, t_crit * np.sqrt(np.maximum(var, 0.0) / np.maximum(count, 1)), np.nan
    )
    return LeniencyResult(mean, mean - half, mean + half, count.astype(np.int64))


# --------------------------------------------------------------------------
# Additive crossed-effects model
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AdditiveFit:
    """Fit of rating = mu + candidate + interviewer + question + noise.

    Interviewer and question effects sum to zero over the main component.
    ``severity`` = -(interviewer effect): positive means harsher, in rating
    points. ``easiness`` is the question effect (positive = rated higher).
    ``adjusted`` = mu + candidate effect: the expected rating from an average
    interviewer on an average question. NaN outside the main component.
    """

    mu: float
    severity: FloatArray
    severity_se: FloatArray
    easiness: FloatArray
    easiness_se: FloatArray
    adjusted: FloatArray
    adjusted_se: FloatArray
    candidate_comparable: BoolArray
    interviewer_comparable: BoolArray
    question_comparable: BoolArray
    residual_variance: float
    df_residual: int
    n_components: int
    main_share: float


def panel_components(
    candidate: IntArray, interviewer: IntArray, n_candidates: int, n_interviewers: int
) -> tuple[IntArray, IntArray, int]:
    """Return component labels of candidates and interviewers and the main label.

    Components of the bipartite candidate-interviewer graph: severities in
    different components cannot be compared because no candidate links them.
    The main component is the one holding most ratings (-1 when no ratings).
    """
    size = n_candidates + n_interviewers
    graph = sparse.csr_matrix(
        (np.ones(candidate.size), (candidate, interviewer + n_candidates)), shape=(size, size)
    )
    n_comp, labels = connected_components(graph, directed=False)
    if candidate.size == 0:
        return labels[:n_candidates], labels[n_candidates:], -1
    per_comp = np.bincount(labels[candidate], minlength=n_comp)
    return (
        labels[:n_candidates].astype(np.int64),
        labels[n_candidates:].astype(np.int64),
        int(np.argmax(per_comp)),
    )


def fit_additive(
    candidate: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    question: npt.ArrayLike,
    rating: npt.ArrayLike,
    *,
    n_candidates: int | None = None,
    n_interviewers: int | None = None,
    n_questions: int | None = None,
) -> AdditiveFit:
    """Fit the additive crossed-effects model within the main panel component.

    1. Find the candidate-interviewer components; fit only the one with most
       ratings (others are marked not comparable).
    2. Absorb the candidate effects and solve the reduced normal equations
       for interviewer and question effects exactly (see _absorbed_fit).
    3. adjusted_c = mean_c - mean over c's ratings of (interviewer + question
       effect); its variance is sigma^2 / n_c + xbar_c' Cov(b) xbar_c, exact
       under the model because the candidate mean and the within-candidate
       deviations that determine b are independent.
    4. Standard errors use sigma^2 = SSE / (n - C - rank). They assume
       independent residuals; ratings on one scorecard share a halo, so the
       SEs are somewhat optimistic.
    """
    c = _codes(candidate, "candidate")
    i = _codes(interviewer, "interviewer")
    q = _codes(question, "question")
    y = _floats(rating, "rating")
    _same_length(candidate=c, interviewer=i, question=q, rating=y)
    keep = ~np.isnan(y)
    c, i, q, y = c[keep], i[keep], q[keep], y[keep]
    n_c, n_i, n_q = _size(c, n_candidates), _size(i, n_interviewers), _size(q, n_questions)

    def nans(size: int) -> FloatArray:
        return np.full(size, np.nan)

    cand_label, _, main = panel_components(c, i, n_c, n_i)
    if main < 0:
        return AdditiveFit(
            math.nan,
            nans(n_i),
            nans(n_i),
            nans(n_q),
            nans(n_q),
            nans(n_c),
            nans(n_c),
            np.zeros(n_c, bool),
            np.zeros(n_i, bool),
            np.zeros(n_q, bool),
            math.nan,
            0,
            0,
            0.0,
        )
    n_comp = int(np.unique(cand_label[c]).size)
    in_main = cand_label[c] == main
    c_m, i_m, q_m, y_m = c[in_main], i[in_main], q[in_main], y[in_main]
    cc, cand_codes = _compact(c_m, n_c)
    ic, int_codes = _compact(i_m, n_i)
    qc, q_codes = _compact(q_m, n_q)
    n_cm, n_im, n_qm = cand_codes.size, int_codes.size, q_codes.size

    fit = _absorbed_fit(
        cc, n_cm, [ic, qc], [n_im, n_qm], y_m,
        null_space=[np.arange(n_im), n_im + np.arange(n_qm)],
    )  # fmt: skip
    df = int(y_m.size - n_cm - fit.rank)
    sigma2 = fit.sse / df if df > 0 else math.nan

    if fit.cov_unscaled is not None:
        var_beta = np.diag(fit.cov_unscaled) * sigma2
        quad = _row_quadratic_form(
            fit.xbar, fit.cov_unscaled, [slice(0, n_im), slice(n_im, n_im + n_qm)]
        )
    else:
        # Large problems: ignore covariances between effects (slightly optimistic).
        var_beta = _safe_div(np.full(fit.reduced_diag.size, sigma2), fit.reduced_diag)
        quad = np.asarray(
            fit.xbar.multiply(fit.xbar)
            @ _nan_to_zero(_safe_div(np.ones(fit.reduced_diag.size), fit.reduced_diag))
        ).ravel()
    n_per_cand = np.bincount(cc, minlength=n_cm).astype(np.float64)
    adjusted_m = fit.group_mean - np.asarray(fit.xbar @ fit.beta).ravel()
    adjusted_se_m = np.sqrt(sigma2 / n_per_cand + sigma2 * quad)

    severity, severity_se = nans(n_i), nans(n_i)
    severity[int_codes] = -fit.beta[:n_im]
    severity_se[int_codes] = np.sqrt(np.maximum(var_beta[:n_im], 0.0))
    easiness, easiness_se = nans(n_q), nans(n_q)
    easiness[q_codes] = fit.beta[n_im:]
    easiness_se[q_codes] = np.sqrt(np.maximum(var_beta[n_im:], 0.0))
    adjusted, adjusted_se = nans(n_c), nans(n_c)
    adjusted[cand_codes] = adjusted_m
    adjusted_se[cand_codes] = adjusted_se_m

    cand_ok = np.zeros(n_c, bool)
    cand_ok[cand_codes] = True
    int_ok = np.zeros(n_i, bool)
    int_ok[int_codes] = True
    q_ok = np.zeros(n_q, bool)
    q_ok[q_codes] = True
    return AdditiveFit(
        mu=float(adjusted_m.mean()),
        severity=severity,
        severity_se=severity_se,
        easiness=easiness,
        easiness_se=easiness_se,
        adjusted=adjusted,
        adjusted_se=adjusted_se,
        candidate_comparable=cand_ok,
        interviewer_comparable=int_ok,
        question_comparable=q_ok,
        residual_variance=sigma2,
        df_residual=max(df, 0),
        n_components=n_comp,
        main_share=float(y_m.size / y.size),
    )


def _row_quadratic_form(
    rows: sparse.csr_matrix,
    matrix: FloatArray,
    blocks: list[slice] | None = None,
    chunk: int = 8192,
) -> FloatArray:
    """Return x_i' A x_i for every row x_i of a sparse matrix and a symmetric A.

    With ``blocks`` (the columns of each factor), x'Ax = sum_j x_j' A_jj x_j
    + 2 sum_{j<l} x_j' A_jl x_l: each factor's part of x meets only A's
    columns of its own and later blocks, the factor with most entries last so
    that it meets the fewest (half the work of x'A over all columns when one
    factor holds most entries). A chunk of rows at a time, to bound memory.
    """
    spans = blocks or [slice(0, rows.shape[1])]
    parts = [rows[:, span].tocsr() for span in spans]
    order = sorted(range(len(spans)), key=lambda j: parts[j].nnz)
    parts = [parts[j] for j in order]
    spans = [spans[j] for j in order]
    # Per factor, A's rows of that factor and columns of it and the later ones.
    later = [
        np.concatenate([np.arange(sp.start, sp.stop) for sp in spans[a:]])
        for a in range(len(spans))
    ]
    slabs = [np.ascontiguousarray(matrix[spans[a]][:, later[a]]) for a in range(len(spans))]
    out = np.zeros(rows.shape[0])
    for start in range(0, rows.shape[0], chunk):
        stop = min(start + chunk, rows.shape[0])
        pieces = [part[start:stop] for part in parts]
        for a, piece in enumerate(pieces):
            product = piece @ slabs[a]
            offset = 0
            for b in range(a, len(pieces)):
                width = spans[b].stop - spans[b].start
                weight = 1.0 if b == a else 2.0
                out[start:stop] += weight * _row_dot(pieces[b], product[:, offset : offset + width])
                offset += width
    return out


def _row_dot(rows: sparse.csr_matrix, dense: FloatArray) -> FloatArray:
    """Return, per row, the sum of the sparse row times the dense row."""
    which = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
    return np.bincount(which, rows.data * dense[which, rows.indices], minlength=rows.shape[0])


# --------------------------------------------------------------------------
# Questions: discrimination
# --------------------------------------------------------------------------


def _grouped_pearson(
    key: IntArray, x: FloatArray, y: FloatArray, n_keys: int
) -> tuple[FloatArray, IntArray]:
    """Return the Pearson correlation of x and y within each key, and pair counts."""
    count = np.bincount(key, minlength=n_keys)
    mx = _safe_div(np.bincount(key, x, minlength=n_keys), count)
    my = _safe_div(np.bincount(key, y, minlength=n_keys), count)
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
    r = _safe_div(sxy, np.where(degenerate, 0.0, denom))
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
    g = _codes(group, "group")
    qu = _codes(question, "question")
    y = _floats(rating, "rating")
    _same_length(group=g, question=qu, rating=y)
    keep = ~np.isnan(y)
    g, qu, y = g[keep], qu[keep], y[keep]
    n_q = _size(qu, n_questions)
    empty_f = np.full(n_q, np.nan)
    empty_i = np.zeros(n_q, dtype=np.int64)
    if y.size == 0:
        return DiscriminationResult(empty_f, empty_i, empty_f.copy(), empty_i.copy())
    n_g = int(g.max()) + 1
    key, inverse = _unique_inverse(g * n_q + qu, n_g * n_q)
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
        dec = _floats(group_decision, "group_decision")
        if dec.size < n_g:
            raise ValueError("group_decision must cover every group code")
        d = dec[cell_g]
        known = ~np.isnan(d)
        r_dec, n_dec = _grouped_pearson(
            cell_q[known], cell_sum[known] / cell_n[known], d[known], n_q
        )
        r_dec[n_dec < min_pairs] = np.nan
    return DiscriminationResult(r_rest, n_rest, r_dec, n_dec)


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
    g = _codes(group, "group")
    i = _codes(interviewer, "interviewer")
    rec = _floats(recommendation, "recommendation")
    _same_length(group=g, interviewer=i, recommendation=rec)
    n_i = _size(i, n_interviewers)
    dec_all = _floats(group_decision, "group_decision")
    if g.size and dec_all.size <= int(g.max()):
        raise ValueError("group_decision must cover every group code")
    keep = ~np.isnan(rec)
    g, i, rec = g[keep], i[keep], rec[keep]
    if rec.size == 0:
        return np.full(n_i, np.nan), np.zeros(n_i, dtype=np.int64)
    return _agreement_from(*_pairs(g, i, int(i.max()) + 1), rec, dec_all, n_i)


def _agreement_from(
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
    return _safe_div(np.bincount(cell_i[usable], match, minlength=n_i), count), count.astype(
        np.int64
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
    n_cand = _distinct_per(question, candidate, n_questions, n_c)
    n_int = _distinct_per(question, interviewer, n_questions, n_i)
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
    rows, _ = _compact((key // n_i) % n_c, n_c)
    cols, _ = _compact(key % n_i, n_i)
    grid = np.full((int(rows.max()) + 1, int(cols.max()) + 1), np.nan)
    grid[rows, cols] = value
    return best, grid


# --------------------------------------------------------------------------
# JSON helpers
# --------------------------------------------------------------------------


def to_jsonable(obj: Any, ndigits: int | None = None) -> Any:
    """Return ``obj`` with numpy types made plain and NaN/inf replaced by None."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v, ndigits) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v, ndigits) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist(), ndigits)
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        value = float(obj)
        if not math.isfinite(value):
            return None
        return round(value, ndigits) if ndigits is not None else value
    return obj


def _column(values: FloatArray, ndigits: int | None) -> list[float | None]:
    """Return a float array as a list with NaN/inf as None, optionally rounded."""
    a = np.asarray(values, dtype=np.float64)
    if ndigits is not None:
        a = np.round(a, ndigits)
    a = a + 0.0  # turn -0.0 into 0.0 so the JSON does not show "-0.0"
    out = a.astype(object)
    out[~np.isfinite(a)] = None
    return out.tolist()


def _rating_key(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


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


def _per_entity(values: FloatArray, size: int, default: float) -> FloatArray:
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 0:
        return np.full(size, float(a))
    if a.size < size:
        raise ValueError("per-question scale bounds must cover every question code")
    return np.where(np.isnan(a[:size]), default, a[:size])


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
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    ndigits: int | None = 4,
) -> dict[str, Any]:
    """Return the calibration snapshot body as a JSON-safe dict.

    Inputs are parallel per-rating arrays of codes and ratings (NaN ratings
    are dropped). ``loop`` (per rating) groups a candidate's ratings into one
    loop; without it each candidate is one loop. ``decision`` is per
    candidate code (1 hire, 0 no hire, NaN unknown); ``recommendation`` is
    per rating (-2, -1, 1, 2 or NaN). ``scale_min``/``scale_max`` are scalars
    or per-question arrays (``scale_max`` defaults to the highest rating).

    1. Reliability on (loop, question) units with interviewers as coders:
       Krippendorff's alpha (three levels, interval bootstrap CI), Fleiss'
       kappa, ICC on the largest complete single-question grid, and G(q,k)
       on (loop, interviewer) scorecard means.
    2. Interviewers: counts, distribution, leniency, severity (additive
       model), recommendation agreement, flags.
    3. Questions: counts, mean, sd, discrimination, easiness, flags.
    4. Candidates: counts, raw mean, adjusted score.
    Lists are indexed by code; entities without ratings get zero counts and
    nulls. Floats are rounded to ``ndigits`` (None: unrounded).
    """
    c = _codes(candidate, "candidate")
    i = _codes(interviewer, "interviewer")
    qu = _codes(question, "question")
    y = _floats(rating, "rating")
    lp = c if loop is None else _codes(loop, "loop")
    rec = None if recommendation is None else _floats(recommendation, "recommendation")
    arrays: dict[str, np.ndarray] = {
        "candidate": c,
        "interviewer": i,
        "question": qu,
        "rating": y,
        "loop": lp,
    }
    if rec is not None:
        arrays["recommendation"] = rec
    _same_length(**arrays)
    n_c, n_i, n_q = _size(c, n_candidates), _size(i, n_interviewers), _size(qu, n_questions)
    keep = np.isfinite(y)
    c, i, qu, y, lp = c[keep], i[keep], qu[keep], y[keep], lp[keep]
    if rec is not None:
        rec = rec[keep]
    dec = None if decision is None else _floats(decision, "decision")
    if dec is not None and dec.size < n_c:
        raise ValueError("decision must have one entry per candidate code")

    # Loops -> candidate, for per-loop decisions and G(q,k) targets.
    n_loops = int(lp.max()) + 1 if lp.size else 0
    loop_candidate = np.zeros(n_loops, dtype=np.int64)
    loop_candidate[lp] = c
    loop_decision = None if dec is None else dec[loop_candidate]

    # 1. Reliability.
    unit = lp * max(n_q, 1) + qu
    unit_sorted, unit_value = _unit_values(unit, i, y)
    pairable = _pairable(unit_sorted, unit_value)
    alphas = _alphas_from_pairable(pairable)
    alpha_ci = (
        _bootstrap_interval(pairable, bootstrap_resamples, seed, CONFIDENCE)
        if bootstrap_resamples > 0 and alphas["interval"] is not None
        else None
    )
    kappa = _fleiss_sorted(unit_sorted, unit_value)
    # Scorecards: the distinct (loop, interviewer) pairs, shared by G(q,k),
    # leniency and recommendation agreement.
    card_loop, card_int, card_of = _pairs(lp, i, n_i) if y.size else (np.zeros(0, np.int64),) * 3
    if y.size:
        cell_t, cell_r, cell_y, n_t, n_r = _cells_from(card_loop, card_int, card_of, y)
    else:
        cell_t, cell_r, cell_y, n_t, n_r = _cells(lp, i, y)
    if n_t:
        q_mult, k_h = _putka_q_cells(cell_t, cell_r, n_t, n_r)
        comp = _components_from_cells(cell_t, cell_r, cell_y, n_t, n_r)
    else:
        q_mult, k_h, comp = math.nan, math.nan, None
    g_value = None
    if comp is not None:
        denominator = comp.target + q_mult * (comp.rater or 0.0) + comp.residual / k_h
        g_value = comp.target / denominator if denominator > 0 else None
    grid = largest_complete_grid(c, i, qu, y, n_q)
    icc_out: dict[str, Any] | None = None
    if grid is not None:
        result = icc(grid[1])
        icc_out = {
            **result.values,
            "ci95": {name: list(bounds) for name, bounds in result.ci95.items()},
            "question": grid[0],
            "n_candidates": result.n_targets,
            "n_interviewers": result.n_raters,
        }
    reliability = {
        "krippendorff_alpha": alphas,
        "krippendorff_alpha_ci95": {"interval": list(alpha_ci) if alpha_ci else None},
        "pairable_units": pairable.n_units,
        "fleiss_kappa": kappa,
        "g_qk": g_value,
        "variance_components": None
        if comp is None
        else {
            "candidate": comp.target,
            "interviewer": comp.rater,
            "residual": comp.residual,
            "q": q_mult,
            "k_harmonic": k_h,
            "method": comp.method,
        },
        "icc": icc_out,
    }

    # 2. Interviewers.
    fit = fit_additive(c, i, qu, y, n_candidates=n_c, n_interviewers=n_i, n_questions=n_q)
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
                "comparable": comparable,
                "reason": reason,
                "agreement": ag,
                "agreement_n": ag_n,
                "flag": "lenient" if lenient[code] else "harsh" if harsh[code] else None,
            }
        )

    # 3. Questions.
    q_n = np.bincount(qu, minlength=n_q)
    q_mean = _safe_div(np.bincount(qu, y, minlength=n_q), q_n)
    q_dev = y - q_mean[qu] if y.size else y
    q_sd = np.sqrt(_safe_div(np.bincount(qu, q_dev * q_dev, minlength=n_q), q_n - 1))
    disc = question_discrimination(lp, qu, y, n_questions=n_q, group_decision=loop_decision)
    top = _per_entity(
        np.asarray(scale_max if scale_max is not None else (y.max() if y.size else np.nan)),
        n_q,
        np.nan,
    )
    bottom = _per_entity(np.asarray(scale_min), n_q, np.nan)
    at_max = _safe_div(np.bincount(qu, (y >= top[qu]).astype(np.float64), minlength=n_q), q_n)
    at_min = _safe_div(np.bincount(qu, (y <= bottom[qu]).astype(np.float64), minlength=n_q), q_n)
    low_disc = (disc.with_rest < LOW_DISCRIMINATION) & (
        disc.with_rest_pairs >= LOW_DISCRIMINATION_MIN_PAIRS
    )
    questions = []
    for code, (n_q_i, mean_q, sd_q, d_r, d_n, dd_r, dd_n, e_q, e_se, s_max, s_min) in enumerate(
        zip(
            q_n.tolist(),
            _column(q_mean, ndigits),
            _column(q_sd, ndigits),
            _column(disc.with_rest, ndigits),
            disc.with_rest_pairs.tolist(),
            _column(disc.with_decision, ndigits),
            disc.with_decision_pairs.tolist(),
            _column(fit.easiness, ndigits),
            _column(fit.easiness_se, ndigits),
            _column(at_max, ndigits),
            _column(at_min, ndigits),
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

    # 4. Candidates.
    c_n = np.bincount(c, minlength=n_c)
    c_mean = _safe_div(np.bincount(c, y, minlength=n_c), c_n)
    candidates = [
        {
            "candidate": code,
            "ratings": n_c_i,
            "raw_mean": raw,
            "adjusted": adj,
            "adjusted_se": adj_se,
            "comparable": ok,
        }
        for code, (n_c_i, raw, adj, adj_se, ok) in enumerate(
            zip(
                c_n.tolist(),
                _column(c_mean, ndigits),
                _column(fit.adjusted, ndigits),
                _column(fit.adjusted_se, ndigits),
                fit.candidate_comparable.tolist(),
                strict=True,
            )
        )
    ]

    scorecards = int(cell_t.size)  # one (loop, interviewer) cell per scorecard
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
                "mu": fit.mu,
                "residual_sd": math.sqrt(fit.residual_variance)
                if fit.residual_variance >= 0
                else None,
                "df_residual": fit.df_residual,
                "components": fit.n_components,
                "main_component_share": fit.main_share,
            },
            ndigits,
        ),
        "interviewers": interviewers,
        "questions": questions,
        "candidates": candidates,
    }


@dataclass(frozen=True)
class SeverityAdjusted:
    raw_mean: float
    adjusted_mean: float
    ratings: int
    corrected: int  # ratings whose interviewer has a severity


def severity_adjusted_mean(
    interviewer: list[Any],
    rating: list[float],
    severity: dict[Any, float | None],
    *,
    scale: tuple[float, float] | None = None,
) -> SeverityAdjusted | None:
    """Return one candidate's mean rating, as given and adjusted for the severity of
    each rating's interviewer.

    Under the additive model behind ``fit_additive`` (rating = overall + candidate
    + interviewer + question), an interviewer of severity s gives s points less
    than an average interviewer would: adding s back to each of their ratings
    gives the average interviewer's rating, kept within ``scale`` (low, high)
    when given, as no interviewer rates outside it. An interviewer without a
    severity (not calibrated yet, or outside the model's main component) counts
    as given. None when there is no rating.
    """
    if len(interviewer) != len(rating):
        raise ValueError("interviewer and rating differ in length")
    if not rating:
        return None
    shifts = [severity.get(who) for who in interviewer]
    moved = np.array([r + (s or 0.0) for r, s in zip(rating, shifts, strict=True)])
    if scale is not None:
        moved = np.clip(moved, *scale)
    return SeverityAdjusted(
        raw_mean=float(np.mean(rating)),
        adjusted_mean=float(np.mean(moved)),
        ratings=len(rating),
        corrected=sum(s is not None for s in shifts),
    )
