"""Tests for the shared array helpers the stats families count and group with.

No database and no Django.
"""

from __future__ import annotations

import numpy as np
import pytest

# The module rather than the package: these helpers are private.
from scoring.calibration.stats import _arrays as stats


def test_distinct_rows_counts_each_row_once() -> None:
    rows = np.array([[1.0, 2.0], [0.5, 2.0], [1.0, 2.0], [1.0, -1.0]])
    kinds, count = stats.distinct_rows(rows)
    assert kinds.tolist() == [[0.5, 2.0], [1.0, -1.0], [1.0, 2.0]]
    assert count.tolist() == [1, 1, 2]


@pytest.mark.parametrize("size", [50, 10**12])
def test_unique_inverse_matches_numpy_by_table_and_by_sort(size: int) -> None:
    key = np.random.default_rng(2).integers(0, min(size, 50), 400) * (size // 50)
    distinct, inverse = stats.unique_inverse(key, size)
    expected, expected_inverse = np.unique(key, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert inverse.tolist() == expected_inverse.tolist()


@pytest.mark.parametrize("keys", [0, 1, 5_000])
def test_unique_inverse_of_keys_in_runs_over_a_wide_range_matches_numpy(keys: int) -> None:
    # As (loop, interviewer) keys come from the database: a scorecard's ratings together,
    # the loops spread over 400 interviewers each (no table: far over four slots a key).
    rng = np.random.default_rng(3)
    runs = rng.integers(0, 2_000 * 400, max(keys // 5, 1))
    key = np.repeat(runs, 5)[:keys]
    distinct, inverse = stats.unique_inverse(key, 2_000 * 400)
    expected, expected_inverse = np.unique(key, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert inverse.tolist() == expected_inverse.tolist()
    assert distinct.dtype == inverse.dtype == np.int64


@pytest.mark.parametrize(
    "values",
    [
        [3.0, 1.0, 4.0, 1.0, 5.0, 2.0, 6.0, 5.0],  # whole numbers: counted
        [3.5, 1.0, 4.0, 1.0, 5.0, 2.0, 6.0, 5.0],  # a half: numpy's ufunc.at
        [0.0, 100.0, 4.0, 1.0, 5.0, 2.0, 6.0, 5.0],  # too wide a range to count
        [-2.0, -1.0, 1.0, 2.0, -2.0, 2.0, 1.0, 1.0],  # negative
    ],
)
def test_group_extremes_match_numpy_and_leave_empty_groups_open(values: list[float]) -> None:
    group = np.array([0, 0, 1, 1, 1, 3, 3, 0])
    y = np.array(values)
    low, high = stats.group_extremes(group, y, 5)
    expected_low, expected_high = np.full(5, np.inf), np.full(5, -np.inf)
    np.minimum.at(expected_low, group, y)
    np.maximum.at(expected_high, group, y)
    assert low.tolist() == expected_low.tolist()
    assert high.tolist() == expected_high.tolist()
    assert (low[2], high[4]) == (np.inf, -np.inf)  # groups without values
