"""Severities for a stated period and their change (the hook for issue 33's item 2)."""

from __future__ import annotations

import numpy as np

from scoring.calibration.stats.periods import period_severities


def _two_halves(seed: int, before: float, after: float) -> tuple[np.ndarray, ...]:
    """Return 400 candidates over two periods; interviewer 0 is ``before`` points harsh in
    the first and ``after`` in the second, the other eleven neutral."""
    rng = np.random.default_rng(seed)
    rows = []
    for cand in range(400):
        half = int(cand >= 200)
        for who in rng.choice(12, 3, replace=False):
            rows += [(cand, int(who), int(k), half) for k in rng.choice(6, 3, replace=False)]
    c, i, q, period = (np.array(col) for col in zip(*rows, strict=True))
    harsh = np.where(period == 0, before, after) * (i == 0)
    rating = 3 + rng.normal(0, 0.7, 400)[c] - harsh + rng.normal(0, 0.5, c.size)
    return c, i, q, rating, period


def test_a_harshness_that_ended_is_not_in_the_stated_period_and_the_change_shows() -> None:
    c, i, q, rating, period = _two_halves(1, before=0.8, after=0.0)
    out = period_severities(c, i, q, rating, period)
    assert out.severity.shape == (2, 12)
    assert out.severity[0, 0] - 1.96 * out.severity_se[0, 0] > 0.4  # harsh then
    assert abs(out.severity[1, 0]) < 1.96 * out.severity_se[1, 0]  # not now
    assert out.change[0] + 1.96 * out.change_se[0] < 0  # and the change is seen


def test_a_harshness_that_began_in_the_stated_period_is_there() -> None:
    c, i, q, rating, period = _two_halves(2, before=0.0, after=0.8)
    out = period_severities(c, i, q, rating, period)
    assert out.severity[1, 0] - 1.96 * out.severity_se[1, 0] > 0.4
    assert out.change[0] - 1.96 * out.change_se[0] > 0
