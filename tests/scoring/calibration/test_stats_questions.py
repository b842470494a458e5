"""Tests for question discrimination: correlations with the rest of the loop and the decision.

scipy's pearsonr is the reference. No database and no Django.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from scoring.calibration import stats


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
