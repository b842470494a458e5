"""Tests for the agreement family: Krippendorff's alpha, Fleiss' kappa, recommendations.

Published worked examples, and the krippendorff and statsmodels packages as
references on random data. No database and no Django.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from scoring.calibration import stats
from tests.scoring.calibration.stats_data import FLEISS_WIKIPEDIA
from tests.support.simulate import simulate_panel

HYPOTHESIS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
# Annenberg School for Communication Departmental Papers, University of
# Pennsylvania. Section C: 4 observers x 12 units with missing values.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


def _triples(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    coders, units = np.indices(matrix.shape)
    return units.ravel(), coders.ravel(), matrix.ravel()


# --------------------------------------------------------------------------
# Published worked examples
# --------------------------------------------------------------------------


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


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_from_sums_equals_the_package_where_the_counts_would_not_fit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = simulate_panel(60, 8, 5, panel_size=3, seed=seed)
    units = panel.candidate * 10 + panel.question
    from_package = stats.krippendorff_alphas(units, panel.interviewer, panel.rating)
    monkeypatch.setattr("scoring.calibration.stats.agreement.PACKAGE_CELLS", 0)

    from_sums = stats.krippendorff_alphas(units, panel.interviewer, panel.rating)

    for level in stats.LEVELS:
        assert from_sums[level] == pytest.approx(from_package[level], rel=1e-9, abs=1e-12), level


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
# Recommendation agreement
# --------------------------------------------------------------------------


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
