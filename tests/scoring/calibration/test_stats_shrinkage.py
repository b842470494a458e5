"""stats.shrinkage: severities shrunk toward zero by their reliability (fixed seeds)."""

import math

import numpy as np
import pytest

from scoring.calibration.stats import summarise
from scoring.calibration.stats.shrinkage import shrink


def simulated(seed: int, n: int, tau: float, se: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """True values ~ N(0, tau²) and estimates = truth + N(0, se²)."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, tau, n)
    return truth, truth + rng.normal(0.0, 1.0, n) * se


def test_it_estimates_the_spread_of_true_values() -> None:
    se = np.full(4000, 0.3)
    _, estimate = simulated(1, 4000, 0.4, se)

    result = shrink(estimate, se)

    assert math.sqrt(result.tau2) == pytest.approx(0.4, abs=0.02)


def test_each_estimate_is_multiplied_by_its_reliability() -> None:
    estimate = np.array([1.0, -0.5, 0.2, 0.8])
    se = np.array([0.1, 0.2, 0.4, 0.8])

    result = shrink(estimate, se)

    expected = result.tau2 / (result.tau2 + se**2)
    assert result.tau2 > 0
    np.testing.assert_allclose(result.reliability, expected)
    np.testing.assert_allclose(result.shrunk, expected * estimate)
    np.testing.assert_allclose(result.shrunk_se, np.sqrt(expected) * se)
    np.testing.assert_allclose(result.ci_high - result.ci_low, 2 * 1.959964 * result.shrunk_se)
    # The most precise estimate keeps most of itself; the noisiest loses most.
    assert result.reliability[0] > 0.9 > result.reliability[-1]


def test_with_no_spread_beyond_noise_everything_shrinks_to_zero() -> None:
    result = shrink([0.01, -0.02, 0.015], [0.5, 0.5, 0.5])

    assert result.tau2 == 0.0
    np.testing.assert_array_equal(result.shrunk, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(result.reliability, [0.0, 0.0, 0.0])


def test_missing_estimates_or_errors_stay_missing_and_take_no_part() -> None:
    with_gaps = shrink([1.0, np.nan, -1.0, 0.5], [0.2, 0.2, np.nan, 0.0])
    alone = shrink([1.0], [0.2])

    assert np.isnan(with_gaps.shrunk[1:]).all()
    assert with_gaps.tau2 == alone.tau2 == 0.0  # one usable entity: nothing to learn from
    assert with_gaps.shrunk[0] == 0.0


def test_it_refuses_arrays_of_different_shapes() -> None:
    with pytest.raises(ValueError, match="same shape"):
        shrink([1.0, 2.0], [0.1])


def test_shrinking_cuts_the_error_of_thin_estimates_and_its_interval_covers() -> None:
    # A quarter thinly rated (se 0.4, the spread of true values), the rest well rated.
    se = np.where(np.arange(2000) % 4 == 0, 0.4, 0.1)
    truth, estimate = simulated(7, 2000, 0.4, se)

    result = shrink(estimate, se)

    thin = se == 0.4
    raw_rmse = np.sqrt(np.mean((estimate[thin] - truth[thin]) ** 2))
    shrunk_rmse = np.sqrt(np.mean((result.shrunk[thin] - truth[thin]) ** 2))
    assert shrunk_rmse < 0.8 * raw_rmse
    covered = (result.ci_low <= truth) & (truth <= result.ci_high)
    assert 0.93 <= covered.mean() <= 0.97


def test_the_snapshot_rows_carry_the_shrunk_severity_its_interval_and_reliability() -> None:
    rng = np.random.default_rng(3)
    candidate = np.repeat(np.arange(60), 6)
    interviewer = np.concatenate([rng.choice(8, 3, replace=False).repeat(2) for _ in range(60)])
    question = np.tile([0, 1], 180)
    severity = np.linspace(-0.6, 0.6, 8)
    rating = np.clip(np.rint(2.5 - severity[interviewer] + rng.normal(0, 0.6, 360)), 1, 4)

    body = summarise(candidate, interviewer, question, rating, bootstrap_resamples=0)

    rows = body["interviewers"]
    tau = body["model"]["severity_sd"]
    assert tau > 0
    for row in rows:
        reliability = tau**2 / (tau**2 + row["severity_se"] ** 2)
        assert row["severity_reliability"] == pytest.approx(reliability, abs=1e-3)
        assert row["severity_shrunk"] == pytest.approx(reliability * row["severity"], abs=1e-3)
        low, high = row["severity_shrunk_ci"]
        assert low < row["severity_shrunk"] < high
        # Toward zero, never past it.
        assert abs(row["severity_shrunk"]) <= abs(row["severity"])
        assert row["severity_shrunk"] * row["severity"] >= 0
