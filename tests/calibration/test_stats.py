"""Tests for scoring.calibration.stats: published worked examples, reference packages,
edge cases.

No database and no Django: scoring.calibration.stats is pure numpy/scipy. pingouin,
statsmodels and krippendorff serve only as references here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from scoring.calibration.stats import summary as stats
from scoring.simulate import simulate_panel

HYPOTHESIS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in
# assessing rater reliability. Psychological Bulletin, 86(2), 420-428.
# Table 2 data (6 targets x 4 judges) and the Table 4 estimates.
SHROUT_FLEISS_GRID = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]
SHROUT_FLEISS_TABLE_4 = {
    "ICC1": 0.17,
    "ICC2": 0.29,
    "ICC3": 0.71,
    "ICC1k": 0.44,
    "ICC2k": 0.62,
    "ICC3k": 0.91,
}

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
# Annenberg School for Communication Departmental Papers, University of
# Pennsylvania. Section C: 4 observers x 12 units with missing values.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]

# Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
# Psychological Bulletin, 76(5), 378-382; the worked example reproduced in
# Wikipedia's "Fleiss' kappa" article: 10 subjects, 14 raters, 5 categories.
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def _triples(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    coders, units = np.indices(matrix.shape)
    return units.ravel(), coders.ravel(), matrix.ravel()


def _json_roundtrip(obj: object) -> object:
    # allow_nan=False fails on any NaN/inf that slipped through.
    return json.loads(json.dumps(obj, allow_nan=False))


@contextmanager
def _pingouin_unrounded() -> Iterator[None]:
    # pingouin rounds CI95 to 2 decimals by default; compare at full precision.
    saved = dict(pingouin.options)
    pingouin.options["round.column.CI95"] = None
    try:
        yield
    finally:
        pingouin.options.clear()
        pingouin.options.update(saved)


# --------------------------------------------------------------------------
# Published worked examples
# --------------------------------------------------------------------------


def test_it_matches_shrout_fleiss_table_4() -> None:
    result = stats.icc(SHROUT_FLEISS_GRID)
    for form, published in SHROUT_FLEISS_TABLE_4.items():
        assert round(result.values[form], 2) == published, form
    assert (result.n_targets, result.n_raters) == (6, 4)


def test_it_matches_krippendorff_2011_worked_example() -> None:
    data = np.array(KRIPPENDORFF_2011)
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}
    for level, value in published.items():
        alpha = stats.krippendorff_alpha_from_matrix(data, level)
        assert alpha is not None
        assert round(alpha, 3) == value, level
        assert alpha == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12
        )


def test_it_matches_fleiss_1971_worked_example_from_a_table() -> None:
    kappa = stats.fleiss_kappa_from_table(FLEISS_WIKIPEDIA)
    assert kappa is not None
    assert round(kappa, 3) == 0.210


def test_it_matches_fleiss_1971_worked_example_from_triples() -> None:
    table = np.array(FLEISS_WIKIPEDIA)
    units = np.repeat(np.arange(10), 14)
    coders = np.tile(np.arange(14), 10)
    values = np.concatenate([np.repeat(np.arange(5), row) for row in table])
    kappa = stats.fleiss_kappa(units, coders, values)
    assert kappa == pytest.approx(sm_fleiss_kappa(table, method="fleiss"), abs=1e-12)


# --------------------------------------------------------------------------
# Krippendorff's alpha against the krippendorff package
# --------------------------------------------------------------------------

reliability_matrices = st.integers(2, 5).flatmap(
    lambda coders: st.integers(1, 14).flatmap(
        lambda units: arrays(
            np.float64,
            (coders, units),
            elements=st.sampled_from([np.nan, 1.0, 2.0, 3.0, 4.0, 5.0]),
        )
    )
)


def _package_alpha(matrix: np.ndarray, level: str) -> float | None:
    try:
        with np.errstate(all="ignore"):
            value = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    except ValueError:  # the package refuses a one-value domain
        return None
    return value if np.isfinite(value) else None


@HYPOTHESIS
@given(matrix=reliability_matrices)
def test_alpha_matches_the_krippendorff_package_on_random_matrices(matrix: np.ndarray) -> None:
    mine = stats.krippendorff_alphas(*_triples(matrix))
    for level in stats.LEVELS:
        expected = _package_alpha(matrix, level)
        if mine[level] is None:
            assert expected is None, level
        else:
            assert expected is not None, level
            assert mine[level] == pytest.approx(expected, rel=1e-9, abs=1e-9), level


@HYPOTHESIS
@given(
    matrix=arrays(
        np.float64,
        st.tuples(st.integers(2, 4), st.integers(2, 12)),
        elements=st.one_of(st.just(np.nan), st.floats(-5, 5, allow_nan=False, width=32)),
    )
)
def test_interval_alpha_matches_the_package_on_continuous_values(matrix: np.ndarray) -> None:
    mine = stats.krippendorff_alpha(*_triples(matrix), level="interval")
    expected = _package_alpha(matrix, "interval")
    if mine is None:
        assert expected is None
    else:
        assert expected is not None
        assert mine == pytest.approx(expected, rel=1e-7, abs=1e-7)


def test_alpha_ignores_the_order_of_the_triples() -> None:
    units, coders, values = _triples(np.array(KRIPPENDORFF_2011))
    order = np.random.default_rng(3).permutation(units.size)
    assert stats.krippendorff_alphas(units, coders, values) == pytest.approx(
        stats.krippendorff_alphas(units[order], coders[order], values[order])
    )


def test_alpha_keeps_the_first_value_of_a_repeated_unit_and_coder() -> None:
    units, coders, values = _triples(np.array(KRIPPENDORFF_2011))
    # A second, contradicting value from coder 0 on unit 0 must not count.
    dup = (np.r_[units, 0], np.r_[coders, 0], np.r_[values, 5.0])
    assert stats.krippendorff_alpha(*dup, level="nominal") == pytest.approx(0.743421052631579)


def test_alpha_is_none_when_all_values_agree_or_nothing_is_pairable() -> None:
    assert stats.krippendorff_alpha([0, 0, 1, 1], [0, 1, 0, 1], [3, 3, 3, 3]) is None
    assert stats.krippendorff_alpha([0, 1, 2], [0, 0, 0], [1, 2, 3]) is None
    assert stats.krippendorff_alpha([], [], []) is None


def test_alpha_bootstrap_interval_is_seeded_and_brackets_the_estimate() -> None:
    panel = simulate_panel(400, 20, 15, seed=5)
    units = panel.candidate * 15 + panel.question
    alpha = stats.krippendorff_alpha(units, panel.interviewer, panel.rating)
    first = stats.krippendorff_alpha_bootstrap(units, panel.interviewer, panel.rating, seed=1)
    again = stats.krippendorff_alpha_bootstrap(units, panel.interviewer, panel.rating, seed=1)
    assert alpha is not None and first is not None
    assert first == again
    assert first[0] < alpha < first[1]
    assert first[1] - first[0] < 0.3


def test_alpha_bootstrap_draws_kinds_of_units_as_it_would_draw_units() -> None:
    # Ratings on a 1-4 scale: pairable units come in few kinds, so a resample
    # is one multinomial draw over kinds. A negligible jitter makes every unit
    # its own kind, so units are drawn one by one: same bootstrap distribution.
    panel = simulate_panel(3000, 40, 30, seed=7)
    units = panel.candidate * 30 + panel.question
    jitter = np.random.default_rng(7).uniform(-1e-9, 1e-9, panel.rating.size)
    alpha = stats.krippendorff_alpha(units, panel.interviewer, panel.rating)
    kinds = stats.krippendorff_alpha_bootstrap(
        units, panel.interviewer, panel.rating, resamples=800
    )
    one_by_one = stats.krippendorff_alpha_bootstrap(
        units, panel.interviewer, panel.rating + jitter, resamples=800
    )
    assert alpha is not None and kinds is not None and one_by_one is not None
    assert kinds[0] < alpha < kinds[1]
    assert kinds == pytest.approx(one_by_one, abs=0.01)
    assert kinds[1] - kinds[0] == pytest.approx(one_by_one[1] - one_by_one[0], rel=0.25)


def test_distinct_rows_counts_each_row_once() -> None:
    rows = np.array([[1.0, 2.0], [0.5, 2.0], [1.0, 2.0], [1.0, -1.0]])
    kinds, count = stats._distinct_rows(rows)
    assert kinds.tolist() == [[0.5, 2.0], [1.0, -1.0], [1.0, 2.0]]
    assert count.tolist() == [1, 1, 2]


@pytest.mark.parametrize("size", [50, 10**12])
def test_unique_inverse_matches_numpy_by_table_and_by_sort(size: int) -> None:
    key = np.random.default_rng(2).integers(0, min(size, 50), 400) * (size // 50)
    distinct, inverse = stats._unique_inverse(key, size)
    expected, expected_inverse = np.unique(key, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert inverse.tolist() == expected_inverse.tolist()


def test_f_and_t_quantiles_match_scipy_stats() -> None:
    for dfn, dfd in [(5, 15), (1, 2.5), (30, 1e6)]:
        assert stats._f_ppf(0.975, dfn, dfd) == pytest.approx(sps.f.ppf(0.975, dfn, dfd))
    for dfn, dfd in [(0, 3), (3, -1), (math.nan, 4)]:
        assert math.isnan(stats._f_ppf(0.975, dfn, dfd))
        assert math.isnan(sps.f.ppf(0.975, dfn, dfd))
    df = np.array([1, 2, 7, 40])
    assert stats.special.stdtrit(df, 0.975) == pytest.approx(sps.t.ppf(0.975, df))


# --------------------------------------------------------------------------
# Fleiss' kappa
# --------------------------------------------------------------------------


@HYPOTHESIS
@given(
    table=st.integers(2, 6).flatmap(
        lambda raters: st.integers(1, 12).flatmap(
            lambda units: st.lists(
                st.lists(st.integers(0, 3), min_size=raters, max_size=raters),
                min_size=units,
                max_size=units,
            )
        )
    )
)
def test_fleiss_kappa_matches_statsmodels_on_random_ratings(table: list[list[int]]) -> None:
    ratings = np.array(table, dtype=np.float64)  # units x raters, category codes
    counts = np.stack([(ratings == c).sum(axis=1) for c in range(4)], axis=1)
    assume(np.count_nonzero(counts.sum(axis=0)) >= 2)
    units = np.repeat(np.arange(ratings.shape[0]), ratings.shape[1])
    coders = np.tile(np.arange(ratings.shape[1]), ratings.shape[0])
    mine = stats.fleiss_kappa(units, coders, ratings.ravel())
    assert mine == pytest.approx(sm_fleiss_kappa(counts, method="fleiss"), rel=1e-9, abs=1e-12)
    assert stats.fleiss_kappa_from_table(counts) == pytest.approx(mine, abs=1e-12)


def test_fleiss_kappa_is_none_when_units_have_different_numbers_of_ratings() -> None:
    assert stats.fleiss_kappa([0, 0, 1, 1, 1], [0, 1, 0, 1, 2], [1, 2, 1, 1, 2]) is None
    assert stats.fleiss_kappa([0, 1], [0, 0], [1, 2]) is None
    assert stats.fleiss_kappa_from_table([[2, 0], [0, 3]]) is None


# --------------------------------------------------------------------------
# ICC against pingouin
# --------------------------------------------------------------------------

PINGOUIN_TYPES = {
    "ICC(1,1)": "ICC1",
    "ICC(A,1)": "ICC2",
    "ICC(C,1)": "ICC3",
    "ICC(1,k)": "ICC1k",
    "ICC(A,k)": "ICC2k",
    "ICC(C,k)": "ICC3k",
}


def _pingouin_icc(grid: np.ndarray) -> pd.DataFrame:
    targets, raters = np.indices(grid.shape)
    frame = pd.DataFrame(
        {"target": targets.ravel(), "rater": raters.ravel(), "rating": grid.ravel()}
    )
    with _pingouin_unrounded():
        result = pingouin.intraclass_corr(
            data=frame, targets="target", raters="rater", ratings="rating"
        )
    return result.set_index("Type")


@settings(max_examples=25, deadline=None)
@given(
    grid=arrays(
        np.float64,
        st.tuples(st.integers(3, 10), st.integers(2, 5)),
        elements=st.integers(1, 6).map(float),
    )
)
def test_icc_matches_pingouin_on_random_grids(grid: np.ndarray) -> None:
    mine = stats.icc(grid)
    ms = mine.mean_squares
    assume(min(ms["MSR"], ms["MSE"], ms["MSW"], ms["MSC"]) > 1e-9)
    reference = _pingouin_icc(grid)
    for row_type, form in PINGOUIN_TYPES.items():
        expected = reference.at[row_type, "ICC"]
        if math.isnan(mine.values[form]):
            # Ours refuses a denominator that is zero up to rounding; pingouin
            # divides anyway and returns noise of order 1e16.
            assert not abs(expected) < 1e6, form
            continue
        assert mine.values[form] == pytest.approx(expected, abs=1e-9), form
        for ours, theirs in zip(mine.ci95[form], reference.at[row_type, "CI95"], strict=True):
            if not math.isfinite(theirs):
                # A bound pingouin reports as ±inf or NaN is undefined for us too.
                assert not math.isfinite(ours), form
            else:
                assert ours == pytest.approx(theirs, abs=1e-9), form


def test_icc_confidence_intervals_match_pingouin_on_shrout_fleiss_data() -> None:
    grid = np.array(SHROUT_FLEISS_GRID, dtype=np.float64)
    mine = stats.icc(grid)
    reference = _pingouin_icc(grid)
    for row_type, form in PINGOUIN_TYPES.items():
        assert mine.ci95[form] == pytest.approx(tuple(reference.at[row_type, "CI95"]), abs=1e-9)
        assert mine.ci95[form][0] < mine.values[form] < mine.ci95[form][1]


def test_icc_rejects_incomplete_grids() -> None:
    with pytest.raises(ValueError):
        stats.icc([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError):
        stats.icc([[1.0, 2.0]])


# --------------------------------------------------------------------------
# G(q,k)
# --------------------------------------------------------------------------


def test_putka_q_matches_a_brute_force_pair_sum() -> None:
    rng = np.random.default_rng(11)
    n_targets, n_raters = 40, 9
    k = rng.integers(1, 5, n_targets)
    targets = np.repeat(np.arange(n_targets), k)
    raters = np.concatenate([rng.choice(n_raters, size, replace=False) for size in k])
    sets = [set(raters[targets == t].tolist()) for t in range(n_targets)]
    pair_sum = sum(
        len(sets[a] & sets[b]) / (len(sets[a]) * len(sets[b]))
        for a in range(n_targets)
        for b in range(n_targets)
        if a != b
    )
    k_h = n_targets / sum(1 / len(s) for s in sets)
    expected = 1 / k_h - pair_sum / (n_targets * (n_targets - 1))
    q, k_hat = stats.putka_q(targets, raters)
    assert k_hat == pytest.approx(k_h)
    assert q == pytest.approx(expected)


def _crossed(seed: int, n: int = 300, k: int = 5) -> tuple[np.ndarray, dict[str, float]]:
    rng = np.random.default_rng(seed)
    truth = {"target": 1.0, "rater": 0.5, "residual": 0.8}
    grid = (
        rng.normal(0, np.sqrt(truth["target"]), n)[:, None]
        + rng.normal(0, np.sqrt(truth["rater"]), k)[None, :]
        + rng.normal(0, np.sqrt(truth["residual"]), (n, k))
    )
    return grid, truth


def test_g_qk_equals_icc3k_on_a_fully_crossed_design() -> None:
    grid, truth = _crossed(seed=1)
    targets, raters = np.indices(grid.shape)
    result = stats.g_qk(targets.ravel(), raters.ravel(), grid.ravel())
    assert result.q == pytest.approx(0.0, abs=1e-12)
    assert result.k_harmonic == pytest.approx(5.0)
    assert result.g == pytest.approx(stats.icc(grid).values["ICC3k"], rel=1e-10)
    # Close to the planted consistency reliability s2_T / (s2_T + s2_e / k).
    planted = truth["target"] / (truth["target"] + truth["residual"] / 5)
    assert result.g == pytest.approx(planted, abs=0.03)
    assert result.components is not None
    assert result.components.residual == pytest.approx(truth["residual"], rel=0.1)


def test_g_qk_equals_icc1k_on_a_fully_nested_design() -> None:
    rng = np.random.default_rng(2)
    n, k = 300, 4
    s2_t, s2_r, s2_e = 1.0, 0.5, 0.8
    grid = (
        rng.normal(0, np.sqrt(s2_t), n)[:, None]
        + rng.normal(0, np.sqrt(s2_r), (n, k))  # every target has its own raters
        + rng.normal(0, np.sqrt(s2_e), (n, k))
    )
    targets = np.repeat(np.arange(n), k)
    raters = np.arange(n * k)
    result = stats.g_qk(targets, raters, grid.ravel())
    assert result.q == pytest.approx(1 / k)
    assert result.g == pytest.approx(stats.icc(grid).values["ICC1k"], rel=1e-10)
    planted = s2_t / (s2_t + (s2_r + s2_e) / k)
    assert result.g == pytest.approx(planted, abs=0.04)
    assert result.components is not None
    assert result.components.rater is None  # confounded with the residual


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_variance_components_track_planted_effects_on_an_ill_structured_design(
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    n_targets, n_raters, k = 4000, 60, 3
    targets = np.repeat(np.arange(n_targets), k)
    raters = np.argsort(rng.random((n_targets, n_raters)), axis=1)[:, :k].ravel()
    target_effect = rng.normal(0, 1.0, n_targets)
    rater_effect = rng.normal(0, np.sqrt(0.5), n_raters)
    y = target_effect[targets] + rater_effect[raters] + rng.normal(0, np.sqrt(0.8), targets.size)
    result = stats.g_qk(targets, raters, y)
    comp = result.components
    assert comp is not None and comp.rater is not None
    # With only 60 raters their population variance is uncertain; the realised
    # variance of the planted effects is what the data can recover.
    assert comp.rater == pytest.approx(rater_effect.var(ddof=1), abs=0.05)
    assert comp.target == pytest.approx(target_effect.var(ddof=1), abs=0.08)
    assert comp.residual == pytest.approx(0.8, abs=0.05)
    assert 0 < result.q < 1 / k
    assert result.g == pytest.approx(
        comp.target / (comp.target + result.q * comp.rater + comp.residual / k)
    )


def test_g_qk_is_none_without_two_targets_or_two_raters_per_target() -> None:
    assert stats.g_qk([0, 0], [0, 1], [1.0, 2.0]).g is None
    assert stats.g_qk([0, 1, 2], [0, 1, 2], [1.0, 2.0, 3.0]).g is None
    assert stats.g_qk([], [], []).g is None


# --------------------------------------------------------------------------
# Leniency
# --------------------------------------------------------------------------


def test_leniency_compares_each_interviewer_with_co_panelists_per_candidate() -> None:
    # Candidate 0: interviewers 0, 1, 2 give means 4, 2, 3 (interviewer 0 asks
    # two questions, so per-interviewer means are averaged first).
    # Candidate 1: interviewers 0 and 1 give 3 and 2.
    # Candidate 2: interviewer 2 alone, so it has no co-panelist and is skipped.
    group = [0, 0, 0, 0, 1, 1, 2]
    interviewer = [0, 0, 1, 2, 0, 1, 2]
    rating = [4.0, 4.0, 2.0, 3.0, 3.0, 2.0, 1.0]
    result = stats.leniency(group, interviewer, rating)
    gaps_0 = [4 - (2 + 3) / 2, 3 - 2]
    gaps_1 = [2 - (4 + 3) / 2, 2 - 3]
    assert result.leniency.tolist() == pytest.approx(
        [np.mean(gaps_0), np.mean(gaps_1), 3 - (4 + 2) / 2]
    )
    assert result.n_candidates.tolist() == [2, 2, 1]
    lo, hi = sps.t.interval(0.95, 1, loc=np.mean(gaps_0), scale=sps.sem(gaps_0))
    assert (result.ci_low[0], result.ci_high[0]) == pytest.approx((lo, hi))
    assert np.isnan(result.ci_low[2])  # one candidate: no interval


def test_leniency_is_nan_without_co_panelists() -> None:
    result = stats.leniency([0, 1], [0, 1], [3.0, 4.0], n_interviewers=3)
    assert np.isnan(result.leniency).all()
    assert result.n_candidates.tolist() == [0, 0, 0]


# --------------------------------------------------------------------------
# Additive model
# --------------------------------------------------------------------------


def _connected_design(
    seed: int, n_candidates: int = 60, n_interviewers: int = 8, n_questions: int = 6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    per = 6
    candidate = np.repeat(np.arange(n_candidates), per)
    interviewer = rng.integers(0, n_interviewers, candidate.size)
    question = rng.integers(0, n_questions, candidate.size)
    return candidate, interviewer, question


def test_additive_model_recovers_exact_effects_without_noise() -> None:
    candidate, interviewer, question = _connected_design(seed=4)
    rng = np.random.default_rng(4)
    ability = rng.normal(0, 1, 60)
    severity = rng.normal(0, 0.5, 8)
    difficulty = rng.normal(0, 0.3, 6)
    severity -= severity.mean()
    difficulty -= difficulty.mean()
    rating = 3.0 + ability[candidate] - severity[interviewer] - difficulty[question]
    fit = stats.fit_additive(candidate, interviewer, question, rating)
    assert fit.severity == pytest.approx(severity, abs=1e-9)
    assert fit.easiness == pytest.approx(-difficulty, abs=1e-9)
    assert fit.adjusted == pytest.approx(3.0 + ability, abs=1e-9)
    assert fit.residual_variance == pytest.approx(0.0, abs=1e-12)
    assert fit.candidate_comparable.all() and fit.interviewer_comparable.all()


def test_additive_model_standard_errors_equal_ols_with_sum_to_zero_coding() -> None:
    candidate, interviewer, question = _connected_design(seed=6, n_candidates=40)
    rng = np.random.default_rng(6)
    rating = rng.normal(3, 1, candidate.size)
    fit = stats.fit_additive(candidate, interviewer, question, rating)

    # Reference: OLS with one column per candidate (no intercept) and
    # deviation (sum-to-zero) coding for interviewers and questions, so each
    # candidate coefficient is mu + candidate effect = adjusted.
    def deviation(codes: np.ndarray, levels: int) -> np.ndarray:
        out = np.zeros((codes.size, levels - 1))
        for level in range(levels - 1):
            out[:, level] = (codes == level).astype(float) - (codes == levels - 1)
        return out

    design = np.hstack([np.eye(40)[candidate], deviation(interviewer, 8), deviation(question, 6)])
    ols = OLS(rating, design).fit()
    coef, se = ols.params, ols.bse
    assert fit.adjusted == pytest.approx(coef[:40], abs=1e-9)
    assert fit.adjusted_se == pytest.approx(se[:40], rel=1e-8)
    effect = coef[40:47]
    assert fit.severity[:7] == pytest.approx(-effect, abs=1e-9)
    assert fit.severity[7] == pytest.approx(effect.sum(), abs=1e-9)
    assert fit.severity_se[:7] == pytest.approx(se[40:47], rel=1e-8)
    assert fit.residual_variance == pytest.approx(ols.scale, rel=1e-9)


def _reduced_normal_matrix(
    candidate: np.ndarray, interviewer: np.ndarray, question: np.ndarray, n_i: int, n_q: int
) -> np.ndarray:
    """X'MX of the interviewer and question columns, candidates absorbed, built densely."""
    x = np.hstack([np.eye(n_i)[interviewer], np.eye(n_q)[question]])
    z = np.eye(int(candidate.max()) + 1)[candidate]
    within = x - z @ np.linalg.solve(z.T @ z, z.T @ x)
    return x.T @ within


def test_pseudo_inverse_of_a_connected_design_is_numpys() -> None:
    candidate, interviewer, question = _connected_design(seed=9)
    c = _reduced_normal_matrix(candidate, interviewer, question, 8, 6)
    blocks = [np.arange(8), 8 + np.arange(6)]
    inverse, rank = stats._pseudo_inverse(c, blocks)
    assert rank == 14 - 2
    assert inverse == pytest.approx(np.linalg.pinv(c, rcond=1e-9), abs=1e-10)


def test_pseudo_inverse_finds_effects_the_design_confounds() -> None:
    # Interviewer 8 is the only one to ask question 6, and asks nothing else:
    # their effects are confounded, a third null direction the Cholesky
    # shortcut cannot see, so the eigendecomposition decides the rank.
    candidate, interviewer, question = _connected_design(seed=9)
    extra = np.arange(60)
    candidate = np.r_[candidate, extra]
    interviewer = np.r_[interviewer, np.full(60, 8)]
    question = np.r_[question, np.full(60, 6)]
    c = _reduced_normal_matrix(candidate, interviewer, question, 9, 7)
    blocks = [np.arange(9), 9 + np.arange(7)]
    inverse, rank = stats._pseudo_inverse(c, blocks)
    assert rank == 16 - 3
    assert inverse == pytest.approx(np.linalg.pinv(c, rcond=1e-9), abs=1e-10)


def test_additive_model_marks_a_disconnected_group_as_not_comparable() -> None:
    # Candidates 0-2 with interviewers 0-1; candidate 3 only met interviewer 2.
    candidate = [0, 0, 1, 1, 2, 2, 3, 3]
    interviewer = [0, 1, 0, 1, 0, 1, 2, 2]
    question = [0, 1, 0, 1, 1, 0, 0, 1]
    rating = [3.0, 2.0, 4.0, 3.0, 2.0, 2.0, 1.0, 4.0]
    fit = stats.fit_additive(candidate, interviewer, question, rating)
    assert fit.interviewer_comparable.tolist() == [True, True, False]
    assert fit.candidate_comparable.tolist() == [True, True, True, False]
    assert np.isnan(fit.severity[2]) and np.isnan(fit.adjusted[3])
    assert fit.n_components == 2
    assert fit.main_share == pytest.approx(6 / 8)


# --------------------------------------------------------------------------
# Questions and agreement
# --------------------------------------------------------------------------


def test_discrimination_is_the_correlation_with_the_rest_of_the_loop() -> None:
    rng = np.random.default_rng(8)
    n_loops, n_questions = 80, 5
    loop = np.repeat(np.arange(n_loops), 6)
    question = rng.integers(0, n_questions, loop.size)
    rating = rng.integers(1, 5, loop.size).astype(float)
    decision = rng.integers(0, 2, n_loops).astype(float)
    decision[:5] = np.nan
    result = stats.question_discrimination(
        loop, question, rating, n_questions=n_questions, group_decision=decision
    )
    for q in range(n_questions):
        xs, rests, xs_known, decisions = [], [], [], []
        for g in range(n_loops):
            mine = (loop == g) & (question == q)
            other = (loop == g) & (question != q)
            if mine.any() and other.any():
                xs.append(rating[mine].mean())
                rests.append(rating[other].mean())
            if mine.any() and not np.isnan(decision[g]):
                xs_known.append(rating[mine].mean())
                decisions.append(decision[g])
        assert result.with_rest_pairs[q] == len(xs)
        assert result.with_rest[q] == pytest.approx(sps.pearsonr(xs, rests)[0])
        assert result.with_decision_pairs[q] == len(xs_known)
        assert result.with_decision[q] == pytest.approx(sps.pearsonr(xs_known, decisions)[0])


def test_discrimination_is_nan_under_ten_pairs() -> None:
    loop = np.repeat(np.arange(9), 2)
    question = np.tile([0, 1], 9)
    rating = np.arange(18, dtype=float)
    result = stats.question_discrimination(loop, question, rating)
    assert np.isnan(result.with_rest).all()
    assert result.with_rest_pairs.tolist() == [9, 9]


def test_recommendation_agreement_counts_matching_scorecards() -> None:
    # Scorecards (loop, interviewer): (0,0) yes & hired, (1,0) strong_no & hired,
    # (0,1) no & hired, (2,1) yes & unknown decision (skipped).
    group = [0, 0, 1, 0, 2]
    interviewer = [0, 0, 0, 1, 1]
    recommendation = [1.0, 1.0, -2.0, -1.0, 1.0]
    decision = [1.0, 1.0, np.nan]
    share, count = stats.recommendation_agreement(group, interviewer, recommendation, decision)
    assert share.tolist() == pytest.approx([0.5, 0.0])
    assert count.tolist() == [2, 1]


# --------------------------------------------------------------------------
# summarise
# --------------------------------------------------------------------------


def test_summarise_runs_on_a_simulated_200k_rating_panel() -> None:
    panel = simulate_panel(10_000, 120, 60, panel_size=4, questions_per_interview=4, seed=21)
    assert panel.n_ratings >= 200_000
    out = stats.summarise(
        panel.candidate,
        panel.interviewer,
        panel.question,
        panel.rating,
        loop=panel.loop,
        decision=panel.decision,
        recommendation=panel.recommendation,
        scale_max=4,
    )
    assert _json_roundtrip(out) == out
    assert out["inputs"]["ratings"] == panel.n_ratings
    assert len(out["interviewers"]) == 120
    assert len(out["questions"]) == 60
    assert len(out["candidates"]) == 10_000
    rel = out["reliability"]
    assert set(rel["krippendorff_alpha"]) == {"nominal", "ordinal", "interval"}
    assert 0 < rel["krippendorff_alpha"]["interval"] < 1
    lo, hi = rel["krippendorff_alpha_ci95"]["interval"]
    assert lo <= rel["krippendorff_alpha"]["interval"] <= hi
    assert 0 < rel["g_qk"] < 1
    assert rel["fleiss_kappa"] is None  # units have one or two ratings
    assert rel["icc"] is None  # no question is rated by everyone
    assert all(row["comparable"] for row in out["interviewers"])
    assert all(row["discrimination"] is not None for row in out["questions"])
    assert all(row["agreement"] is not None for row in out["interviewers"])


def _check_edge_output(out: dict, n_interviewers: int) -> None:
    assert _json_roundtrip(out) == out
    assert len(out["interviewers"]) == n_interviewers
    assert set(out) >= {"inputs", "reliability", "interviewers", "questions", "candidates"}


def test_summarise_handles_empty_input() -> None:
    out = stats.summarise([], [], [], [])
    _check_edge_output(out, 0)
    assert out["inputs"]["ratings"] == 0
    assert out["reliability"]["krippendorff_alpha"] == {
        "nominal": None,
        "ordinal": None,
        "interval": None,
    }
    assert out["candidates"] == [] and out["questions"] == []


def test_summarise_handles_a_single_rating() -> None:
    out = stats.summarise([0], [0], [0], [3.0], decision=[1.0], recommendation=[2.0])
    _check_edge_output(out, 1)
    assert out["reliability"]["g_qk"] is None
    assert out["candidates"][0]["raw_mean"] == 3.0
    assert out["candidates"][0]["adjusted"] == 3.0
    assert out["interviewers"][0]["leniency"] is None
    assert out["interviewers"][0]["agreement"] == 1.0
    assert out["questions"][0]["flag"] is None  # one rating is no ceiling


def test_summarise_handles_identical_ratings() -> None:
    candidate = np.repeat(np.arange(6), 4)
    interviewer = np.tile(np.arange(4), 6)
    question = np.zeros(24, dtype=int)
    out = stats.summarise(candidate, interviewer, question, np.full(24, 3.0))
    _check_edge_output(out, 4)
    rel = out["reliability"]
    assert rel["krippendorff_alpha"] == {"nominal": None, "ordinal": None, "interval": None}
    assert rel["fleiss_kappa"] is None
    assert rel["icc"]["ICC1"] is None  # complete grid, but zero variance
    assert [row["leniency"] for row in out["interviewers"]] == [0.0] * 4
    assert [row["severity"] for row in out["interviewers"]] == [0.0] * 4


def test_summarise_handles_one_interviewer_only() -> None:
    rng = np.random.default_rng(0)
    candidate = np.repeat(np.arange(30), 3)
    question = np.tile(np.arange(3), 30)
    rating = rng.integers(1, 5, 90).astype(float)
    out = stats.summarise(candidate, np.zeros(90, dtype=int), question, rating)
    _check_edge_output(out, 1)
    only = out["interviewers"][0]
    assert only["severity"] == 0.0  # the average interviewer is this one
    assert only["leniency"] is None and only["flag"] is None
    assert out["reliability"]["g_qk"] is None
    assert out["reliability"]["krippendorff_alpha"]["interval"] is None


def test_summarise_reports_icc_for_the_largest_complete_grid() -> None:
    grid = np.array(SHROUT_FLEISS_GRID, dtype=float)
    candidate, interviewer = np.indices(grid.shape)
    # Question 1 is a 2 x 2 calibration grid; question 0 the 6 x 4 one; the
    # question 2 ratings are an incomplete grid and must be ignored.
    extra_c = np.array([0, 0, 1, 1, 0, 1, 2])
    extra_i = np.array([0, 1, 0, 1, 0, 1, 2])
    extra_q = np.array([1, 1, 1, 1, 2, 2, 2])
    out = stats.summarise(
        np.r_[candidate.ravel(), extra_c],
        np.r_[interviewer.ravel(), extra_i],
        np.r_[np.zeros(24, dtype=int), extra_q],
        np.r_[grid.ravel(), [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0]],
        ndigits=None,
    )
    icc_out = out["reliability"]["icc"]
    assert icc_out["question"] == 0
    assert (icc_out["n_candidates"], icc_out["n_interviewers"]) == (6, 4)
    reference = stats.icc(grid)
    for form in stats.ICC_FORMS:
        assert icc_out[form] == pytest.approx(reference.values[form])
        assert icc_out["ci95"][form] == pytest.approx(list(reference.ci95[form]))


def test_a_question_with_enough_ratings_but_a_missing_cell_is_no_complete_grid() -> None:
    # Question 0: 2 candidates x 2 interviewers but candidate 0 was rated twice
    # by interviewer 0 and never by interviewer 1: four ratings, three cells.
    candidate = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    interviewer = np.array([0, 0, 0, 1, 0, 1, 0, 1])
    question = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    rating = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 3.0, 2.0])
    best = stats.largest_complete_grid(candidate, interviewer, question, rating, 2)
    assert best is not None
    assert best[0] == 1
    assert best[1].tolist() == [[2.0, 3.0], [3.0, 2.0]]
    assert (
        stats.largest_complete_grid(candidate[:4], interviewer[:4], question[:4], rating[:4], 1)
        is None
    )


def test_summarise_agreement_skips_scorecards_without_a_recommendation() -> None:
    loop = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2])
    interviewer = np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    question = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 0])
    rating = np.array([3.0, 4.0, 2.0, 2.0, 4.0, 4.0, 1.0, 2.0, 3.0, 3.0])
    recommendation = np.array([1.0, 1.0, np.nan, np.nan, 2.0, np.nan, -1.0, -1.0, -2.0, 1.0])
    decision = np.array([1.0, 0.0, np.nan])
    out = stats.summarise(
        loop, interviewer, question, rating, decision=decision, recommendation=recommendation
    )
    share, count = stats.recommendation_agreement(loop, interviewer, recommendation, decision)
    assert [row["agreement"] for row in out["interviewers"]] == share.tolist()
    assert [row["agreement_n"] for row in out["interviewers"]] == count.tolist() == [2, 1]


def test_summarise_counts_each_rating_of_an_interviewer_in_their_distribution() -> None:
    out = stats.summarise(
        [0, 0, 1, 1, 2], [1, 0, 1, 0, 1], [0, 0, 0, 0, 0], [2.5, 4.0, 1.0, 4.0, 2.5]
    )
    assert [row["distribution"] for row in out["interviewers"]] == [
        {"4": 2},
        {"1": 1, "2.5": 2},
    ]


def test_summarise_reports_fleiss_kappa_when_every_unit_has_the_same_count() -> None:
    rng = np.random.default_rng(3)
    candidate = np.repeat(np.arange(20), 3)
    interviewer = np.tile(np.arange(3), 20)
    rating = rng.integers(1, 5, 60).astype(float)
    out = stats.summarise(candidate, interviewer, np.zeros(60, dtype=int), rating, ndigits=None)
    assert out["reliability"]["fleiss_kappa"] == pytest.approx(
        stats.fleiss_kappa(candidate, interviewer, rating)
    )


def test_summarise_flags_a_lenient_and_a_harsh_interviewer() -> None:
    panel = simulate_panel(1500, 30, 20, noise_sd=0.4, seed=9)
    rating = panel.rating.copy()
    # Move interviewer 0 up and interviewer 1 down by a full point, then clip.
    rating[panel.interviewer == 0] += 1.0
    rating[panel.interviewer == 1] -= 1.0
    rating = np.clip(rating, 1, 4)
    out = stats.summarise(panel.candidate, panel.interviewer, panel.question, rating)
    flags = [row["flag"] for row in out["interviewers"]]
    assert flags[0] == "lenient"
    assert flags[1] == "harsh"
    assert out["interviewers"][0]["leniency"] > stats.LENIENCY_FLAG_POINTS
    assert out["interviewers"][0]["leniency_ci"][0] > 0
    assert out["interviewers"][1]["severity"] > out["interviewers"][0]["severity"]


def test_summarise_flags_noise_questions_and_ceilings() -> None:
    panel = simulate_panel(1500, 30, 20, seed=12)
    rating = panel.rating.copy()
    rng = np.random.default_rng(12)
    noise_q = panel.question == 0
    rating[noise_q] = rng.integers(1, 5, int(noise_q.sum())).astype(float)
    ceiling_q = panel.question == 1
    rating[ceiling_q] = 4.0
    out = stats.summarise(panel.candidate, panel.interviewer, panel.question, rating, scale_max=4)
    assert out["questions"][0]["flag"] == "low discrimination: consider retiring"
    assert out["questions"][1]["flag"] == "ceiling"
    assert out["questions"][1]["share_at_max"] == 1.0
    assert all(row["flag"] is None for row in out["questions"][2:])


def test_summarise_keeps_lists_indexed_by_code_including_unused_codes() -> None:
    out = stats.summarise(
        [0, 2], [1, 1], [0, 0], [2.0, 3.0], n_candidates=4, n_interviewers=3, n_questions=2
    )
    _check_edge_output(out, 3)
    assert [row["candidate"] for row in out["candidates"]] == [0, 1, 2, 3]
    assert [row["ratings"] for row in out["candidates"]] == [1, 0, 1, 0]
    assert out["interviewers"][0]["comparable"] is False
    assert out["interviewers"][0]["reason"] == "no ratings"
    assert out["questions"][1]["mean"] is None


def test_summarise_rejects_arrays_of_different_lengths() -> None:
    with pytest.raises(ValueError):
        stats.summarise([0, 1], [0], [0, 0], [1.0, 2.0])


def test_to_jsonable_turns_numpy_and_nan_into_plain_values() -> None:
    value = stats.to_jsonable(
        {"a": np.float64(np.nan), "b": [np.int64(2), np.inf], "c": np.arange(2)}, ndigits=2
    )
    assert value == {"a": None, "b": [2, None], "c": [0, 1]}


# --- severity_adjusted_mean --------------------------------------------------------------


@given(
    true_score=st.floats(1.5, 4.5),
    severities=st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=6),
    per_interviewer=st.integers(1, 4),
)
def test_the_adjusted_mean_recovers_what_an_average_interviewer_gives(
    true_score: float, severities: list[float], per_interviewer: int
) -> None:
    # Ratings made exactly by the additive model: each interviewer gives the
    # candidate's score less their severity. Adjusting undoes that, whatever the mix.
    names = [f"i{n}" for n in range(len(severities))]
    interviewer = [name for name in names for _ in range(per_interviewer)]
    severity = dict(zip(names, severities, strict=True))
    rating = [true_score - severity[who] for who in interviewer]

    result = stats.severity_adjusted_mean(interviewer, rating, severity)

    assert result is not None
    assert result.adjusted_mean == pytest.approx(true_score)
    assert result.raw_mean == pytest.approx(float(np.mean(rating)))
    assert (result.ratings, result.corrected) == (len(rating), len(rating))


def test_an_interviewer_without_a_severity_counts_as_given() -> None:
    result = stats.severity_adjusted_mean(
        ["harsh", "new", "unfitted"], [2.0, 3.0, 4.0], {"harsh": 0.5, "unfitted": None}
    )

    assert result is not None
    assert (result.raw_mean, result.ratings, result.corrected) == (3.0, 3, 1)
    assert result.adjusted_mean == pytest.approx((2.5 + 3.0 + 4.0) / 3)


def test_an_adjusted_rating_stays_on_the_scale() -> None:
    # A harsh interviewer's top rating cannot become more than the top of the scale.
    result = stats.severity_adjusted_mean(
        ["harsh", "lenient"], [4.0, 1.0], {"harsh": 0.8, "lenient": -0.6}, scale=(1.0, 4.0)
    )

    assert result is not None
    assert result.adjusted_mean == pytest.approx((4.0 + 1.0) / 2)


def test_no_ratings_give_no_mean() -> None:
    assert stats.severity_adjusted_mean([], [], {"a": 1.0}) is None


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        stats.severity_adjusted_mean(["a", "b"], [3.0], {})
