"""The additive model's standard errors allow for the scorecard halo (issue 16, item 3).

Reference values: tests/data/calibration_reml_reference.json, written by
``Rscript --vanilla tests/data/calibration_reml_reference.R`` (R 4.2.2, lme4
1.1.31 from Debian) from tests/data/calibration_reml_reference.csv; the model
``halo_fixed_interviewers`` is lmer(rating ~ 0 + candidate + interviewer +
question + (1 | scorecard), REML = TRUE) with sum-to-zero interviewer and
question contrasts: the same fixed effects as fit_additive, plus the halo.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scoring.calibration import stats

DATA = Path(__file__).resolve().parents[2] / "data"


def _reference_data() -> tuple[np.ndarray, ...]:
    table = np.genfromtxt(DATA / "calibration_reml_reference.csv", delimiter=",", skip_header=1)
    candidate, interviewer, question, scorecard = (table[:, k].astype(int) - 1 for k in range(4))
    return candidate, interviewer, question, scorecard, table[:, 4]


def _reml() -> dict:
    return json.loads((DATA / "calibration_reml_reference.json").read_text())["reml"]


def test_the_halo_and_within_card_variances_agree_with_lme4_reml() -> None:
    candidate, interviewer, question, scorecard, rating = _reference_data()
    fit = stats.fit_additive(candidate, interviewer, question, rating, scorecard=scorecard)
    expected = _reml()["halo_fixed_interviewers"]["variance_components"]
    # Henderson's method III against REML: the same target, estimated differently.
    assert fit.halo_variance == pytest.approx(expected["scorecard"], rel=0.02)
    assert fit.within_variance == pytest.approx(expected["residual"], rel=0.01)


def test_severity_standard_errors_agree_with_lme4_with_a_scorecard_effect() -> None:
    candidate, interviewer, question, scorecard, rating = _reference_data()
    fit = stats.fit_additive(candidate, interviewer, question, rating, scorecard=scorecard)
    reference = _reml()["halo_fixed_interviewers"]["interviewer"]
    expected = np.asarray(reference["se"])
    # lme4's are GLS errors; least squares is a little less efficient, never more.
    assert fit.severity_se == pytest.approx(expected, rel=0.02)
    assert np.all(fit.severity_se >= expected * 0.995)
    ignoring_halo = stats.fit_additive(
        candidate, interviewer, question, rating, scorecard=np.arange(rating.size)
    )
    assert np.all(ignoring_halo.severity_se < 0.8 * expected)


def test_standard_errors_equal_the_least_squares_sandwich_under_the_halo_covariance() -> None:
    candidate, interviewer, question, scorecard, rating = _reference_data()
    fit = stats.fit_additive(candidate, interviewer, question, rating, scorecard=scorecard)
    n_c, n_i, n_q = 40, 12, 8

    # Dense reference: one column per candidate, deviation coding for the rest,
    # Cov(b) = (X'X)^-1 X' V X (X'X)^-1 with V = within I + halo Z Z'.
    def deviation(codes: np.ndarray, levels: int) -> np.ndarray:
        out = np.zeros((codes.size, levels - 1))
        for level in range(levels - 1):
            out[:, level] = (codes == level).astype(float) - (codes == levels - 1)
        return out

    x = np.hstack([np.eye(n_c)[candidate], deviation(interviewer, n_i), deviation(question, n_q)])
    z = np.eye(int(scorecard.max()) + 1)[scorecard]
    v = fit.within_variance * np.eye(rating.size) + fit.halo_variance * (z @ z.T)
    bread = np.linalg.inv(x.T @ x)
    cov = bread @ x.T @ v @ x @ bread
    coef = bread @ x.T @ rating
    assert fit.adjusted == pytest.approx(coef[:n_c], abs=1e-9)
    # Cards hold 3 to 5 ratings, so the candidate mean and its correction covary.
    assert fit.adjusted_se == pytest.approx(np.sqrt(np.diag(cov)[:n_c]), rel=1e-8)
    interviewer_cov = cov[n_c : n_c + n_i - 1, n_c : n_c + n_i - 1]
    assert fit.severity_se[: n_i - 1] == pytest.approx(np.sqrt(np.diag(interviewer_cov)), rel=1e-8)
    last = np.ones(n_i - 1)  # the last interviewer's effect is minus the sum of the others
    assert fit.severity_se[n_i - 1] == pytest.approx(np.sqrt(last @ interviewer_cov @ last))


def test_one_rating_per_scorecard_leaves_no_halo_to_estimate() -> None:
    candidate, interviewer, question, _, rating = _reference_data()
    fit = stats.fit_additive(
        candidate, interviewer, question, rating, scorecard=np.arange(rating.size)
    )
    assert fit.halo_variance == 0.0
    assert fit.within_variance == pytest.approx(fit.residual_variance)


def test_by_default_a_scorecard_is_one_candidate_and_interviewer() -> None:
    candidate, interviewer, question, scorecard, rating = _reference_data()
    given = stats.fit_additive(candidate, interviewer, question, rating, scorecard=scorecard)
    default = stats.fit_additive(candidate, interviewer, question, rating)
    # The reference data has one scorecard per (candidate, interviewer).
    assert default.severity_se == pytest.approx(given.severity_se, rel=1e-12)
    assert default.halo_variance == pytest.approx(given.halo_variance, rel=1e-12)


@pytest.mark.parametrize("distinct_weights", [1, 3, 40, 500])
def test_groups_sharing_a_weight_share_a_product_and_both_sums_stay_exact(
    distinct_weights: int,
) -> None:
    from scipy import sparse

    from scoring.calibration.stats._least_squares import _grams

    rng = np.random.default_rng(16)
    groups, levels = 500, 30
    counts = sparse.random(groups, levels, density=0.2, random_state=rng, format="csr")
    counts.data = rng.integers(1, 4, counts.data.size).astype(float)
    sizes = np.asarray(counts.sum(axis=1)).ravel() + 1.0
    means = sparse.diags(1.0 / sizes) @ counts
    # Skewed, so that some weights are common and the rest rare.
    weights = np.round(rng.pareto(1.0, groups) % distinct_weights) + 0.5
    between, weighted = _grams(counts, means.tocsr(), weights)
    dense, dense_means = counts.toarray(), means.toarray()
    assert between.toarray() == pytest.approx(dense.T @ dense_means, abs=1e-12)
    assert weighted is not None
    assert weighted.toarray() == pytest.approx(
        dense.T @ (weights[:, None] * dense_means), abs=1e-12
    )


def test_a_scorecard_spanning_two_interviewers_is_refused() -> None:
    candidate, interviewer, question, scorecard, rating = _reference_data()
    merged = scorecard.copy()
    other = np.flatnonzero((candidate == candidate[0]) & (interviewer != interviewer[0]))[0]
    merged[other] = scorecard[0]
    with pytest.raises(ValueError, match="share one candidate and one interviewer"):
        stats.fit_additive(candidate, interviewer, question, rating, scorecard=merged)
