"""Separability of severity from question difficulty, and the flags' false discovery control."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.calibration import stats
from scoring.calibration.stats.interviewers import benjamini_hochberg
from scoring.calibration.stats.separability import shared_question_share


def test_it_counts_only_questions_two_other_interviewers_also_ask() -> None:
    # Question 0: interviewers 0, 1, 2; question 1: 0 and 1; question 2: 3 alone.
    interviewer = np.array([0, 0, 1, 1, 2, 3, 3])
    question = np.array([0, 1, 0, 1, 0, 2, 2])
    share = shared_question_share(interviewer, question, 5, 3)
    assert share[:4].tolist() == [0.5, 0.5, 1.0, 0.0]
    assert np.isnan(share[4])  # no ratings


def _roster(seed: int, shift: float) -> tuple[np.ndarray, ...]:
    """Return 200 candidates seen by 3 of 12 interviewers on 3 shared questions each;
    interviewer 0 rates ``shift`` points lower than the rest."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(200):
        for i in rng.choice(12, 3, replace=False):
            for q in rng.choice(6, 3, replace=False):
                rows.append((c, i, q))
    c, i, q = (np.array(col) for col in zip(*rows, strict=True))
    ability = rng.normal(0, 0.7, 200)
    rating = 2.5 + ability[c] - shift * (i == 0) + rng.normal(0, 0.5, c.size)
    return c, i, q, rating


def test_a_clearly_harsh_interviewer_is_flagged_and_nobody_else() -> None:
    c, i, q, rating = _roster(5, shift=1.0)
    rows = stats.summarise(c, i, q, rating, bootstrap_resamples=0)["interviewers"]
    assert rows[0]["flag"] == "harsh"
    assert rows[0]["severity_q"] <= stats.FLAG_FDR
    assert [row["flag"] for row in rows[1:]] == [None] * 11


def test_no_flag_without_a_false_discovery_rate_of_five_percent() -> None:
    c, i, q, rating = _roster(5, shift=0.0)
    rows = stats.summarise(c, i, q, rating, bootstrap_resamples=0, ndigits=None)["interviewers"]
    assert all(row["flag"] is None for row in rows)
    assert all(row["severity_q"] > stats.FLAG_FDR for row in rows)
    # The adjusted values are Benjamini-Hochberg's over the 12 interviewers.
    p = np.array([row["severity_p"] for row in rows])
    order = np.argsort(p)
    expected = np.minimum.accumulate((p[order] * 12 / np.arange(1, 13))[::-1])[::-1]
    assert np.array([row["severity_q"] for row in rows])[order] == pytest.approx(
        np.minimum(expected, 1.0), rel=1e-12
    )


def test_an_interviewer_on_private_questions_gets_no_number_and_no_flag() -> None:
    c, i, q, rating = _roster(5, shift=1.0)
    private = i == 0
    q = np.where(private, 10 + q, q)  # only interviewer 0 asks questions 10-15
    rows = stats.summarise(c, i, q, rating, bootstrap_resamples=0)["interviewers"]
    assert rows[0]["separable"] is False and rows[0]["shared_question_share"] == 0.0
    assert rows[0]["severity"] is None and rows[0]["severity_ci"] is None
    assert rows[0]["flag"] is None
    assert all(row["separable"] for row in rows[1:])


@pytest.mark.parametrize("seed", range(5))
def test_benjamini_hochberg_matches_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = np.r_[rng.uniform(size=40), rng.uniform(0, 0.01, size=10), [0.5, 0.5]]
    assert benjamini_hochberg(p) == pytest.approx(
        scipy_stats.false_discovery_control(p, method="bh"), abs=1e-15
    )
