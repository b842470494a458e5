"""Tests for G(q,k): Putka's q, the variance components and their reliability.

Brute-force sums, the ICCs G(q,k) reduces to on crossed and nested designs,
and planted variance components. No database and no Django.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.calibration import stats


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


def _panel_cells(seed: int, targets: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    t = np.repeat(np.arange(targets), 4)
    r = np.concatenate([rng.choice(40, 4, replace=False) for _ in range(targets)])
    y = rng.normal(0, 0.6, targets)[t] + rng.normal(0, 0.2, 40)[r] + rng.normal(0, 0.5, t.size)
    return t, r, y


def test_the_g_interval_holds_the_estimate_and_narrows_with_more_candidates() -> None:
    widths = []
    for targets in (60, 600):
        t, r, y = _panel_cells(4, targets)
        g = stats.g_qk(t, r, y).g
        low, high = stats.g_qk_interval(t, r, y, targets, 40)
        assert 0.0 <= low <= g <= high <= 1.0
        widths.append(high - low)
    assert widths[1] < widths[0] / 2  # about sqrt(10) narrower


def test_the_g_interval_is_the_same_for_the_same_seed_and_needs_five_candidates() -> None:
    t, r, y = _panel_cells(5, 80)
    assert stats.g_qk_interval(t, r, y, 80, 40) == stats.g_qk_interval(t, r, y, 80, 40)
    few = t < 4
    assert stats.g_qk_interval(t[few], r[few], y[few], 4, 40) is None


def test_the_g_interval_given_the_whole_g_is_the_interval_that_computes_it() -> None:
    t, r, y = _panel_cells(6, 80)
    whole = stats.g_qk(t, r, y).g
    interval = stats.g_qk_interval(t, r, y, 80, 40, whole=whole)
    computed = stats.g_qk_interval(t, r, y, 80, 40)
    assert interval is not None and computed is not None
    # g_qk groups the cells again before computing G, so its sums run in another order
    # than the interval's own: the two agree to rounding, not to the last bit.
    assert interval == pytest.approx(computed, rel=1e-12, abs=1e-12)
    assert interval[0] < whole < interval[1]


@pytest.mark.slow  # Monte Carlo: 200 simulated panels
def test_the_g_interval_covers_the_panel_pools_reliability_about_95_percent() -> None:
    # The truth: G computed from the planted components with this design's q and k.
    covered = []
    for seed in range(200):
        rng = np.random.default_rng(1000 + seed)
        targets = 80
        t = np.repeat(np.arange(targets), 4)
        r = np.concatenate([rng.choice(40, 4, replace=False) for _ in range(targets)])
        rater = np.random.default_rng(7).normal(0, 0.3, 40)  # one panel pool
        y = rng.normal(0, 0.6, targets)[t] + rater[r] + rng.normal(0, 0.5, t.size)
        result = stats.g_qk(t, r, y)
        var_r = float(np.var(rater, ddof=1))
        truth = 0.36 / (0.36 + result.q * var_r + 0.25 / result.k_harmonic)
        interval = stats.g_qk_interval(t, r, y, targets, 40, seed=seed)
        covered.append(interval[0] <= truth <= interval[1])
    assert 0.90 <= float(np.mean(covered)) <= 0.99
