"""Tests for the intraclass family: the six Shrout and Fleiss ICCs and the grid they need.

The published Table 4, and pingouin as the reference on random grids. No
database and no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pingouin
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as sps

# The module rather than the package: one test reads its private F quantile (and
# the scipy.special it computes with).
from scoring.calibration.stats import intraclass as stats
from tests.scoring.calibration.stats_data import SHROUT_FLEISS_GRID, SHROUT_FLEISS_TABLE_4


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
# Published worked example
# --------------------------------------------------------------------------


def test_it_matches_shrout_fleiss_table_4() -> None:
    result = stats.icc(SHROUT_FLEISS_GRID)
    for form, published in SHROUT_FLEISS_TABLE_4.items():
        assert round(result.values[form], 2) == published, form
    assert (result.n_targets, result.n_raters) == (6, 4)


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
# F and t quantiles without scipy.stats
# --------------------------------------------------------------------------


def test_f_and_t_quantiles_match_scipy_stats() -> None:
    for dfn, dfd in [(5, 15), (1, 2.5), (30, 1e6)]:
        assert stats._f_ppf(0.975, dfn, dfd) == pytest.approx(sps.f.ppf(0.975, dfn, dfd))
    for dfn, dfd in [(0, 3), (3, -1), (math.nan, 4)]:
        assert math.isnan(stats._f_ppf(0.975, dfn, dfd))
        assert math.isnan(sps.f.ppf(0.975, dfn, dfd))
    df = np.array([1, 2, 7, 40])
    assert stats.special.stdtrit(df, 0.975) == pytest.approx(sps.t.ppf(0.975, df))


# --------------------------------------------------------------------------
# The largest complete grid
# --------------------------------------------------------------------------


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
