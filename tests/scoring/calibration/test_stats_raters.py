"""Tests for the raters family: leniency, the additive model's severity, adjusted means.

statsmodels' OLS is the reference for the model's standard errors. No database
and no Django.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS

from scoring.calibration import stats
from tests.scoring.calibration.stats_data import _connected_design

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
    # One scorecard per rating: no halo to allow for, so the errors are OLS's.
    fit = stats.fit_additive(
        candidate, interviewer, question, rating, scorecard=np.arange(candidate.size)
    )

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
