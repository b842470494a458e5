"""The snapshot's headline alpha: stratified by question, with intervals at every level."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.calibration import stats
from scoring.calibration.stats import question_alpha as qa
from tests.support.sparse_panels import simulate_sparse_panels


def _roster(seed: int = 5):  # type: ignore[no-untyped-def]
    return simulate_sparse_panels(np.random.default_rng(seed), easiness_sd=0.6)


def test_the_headline_alpha_is_stratified_by_question_and_the_pooled_one_is_kept() -> None:
    r = _roster()
    body = stats.summarise(r.candidate, r.interviewer, r.question, r.rating, scale_max=4, seed=2)
    reliability = body["reliability"]

    expected = qa.question_alphas(
        r.candidate, r.question, r.interviewer, r.rating, scale_min=1, scale_max=4, seed=2
    )
    pooled = stats.krippendorff_alphas(r.candidate * 1000 + r.question, r.interviewer, r.rating)
    for level in stats.LEVELS:
        assert reliability["krippendorff_alpha"][level] == pytest.approx(
            expected.alpha[level], abs=1e-4
        )
        assert reliability["krippendorff_alpha_pooled"][level] == pytest.approx(
            pooled[level], abs=1e-4
        )
        lo, hi = reliability["krippendorff_alpha_ci95"][level]
        assert [lo, hi] == pytest.approx(list(expected.ci[level]), abs=1e-4)
        assert lo < reliability["krippendorff_alpha"][level] < hi
    # Questions differing in difficulty: pooling counts that as agreement.
    assert reliability["krippendorff_alpha_pooled"]["interval"] > (
        reliability["krippendorff_alpha"]["interval"] + 0.05
    )


def test_a_question_rated_on_two_scales_is_two_strata() -> None:
    # Question 0 was edited from 1-4 to 1-10 halfway: its 1-4 ratings and its
    # 1-10 ratings are not one distribution, nor one scale.
    r = _roster(7)
    on_ten = (r.question == 0) & (r.candidate >= 75)
    rating = np.where(on_ten, np.round(r.rating * 2.5), r.rating)
    scale = np.where(on_ten, 10.0, 4.0)
    body = stats.summarise(
        r.candidate,
        r.interviewer,
        r.question,
        rating,
        scale_max=np.full(int(r.question.max()) + 1, 10.0),
        rating_scale_max=scale,
        bootstrap_resamples=0,
    )

    stratum = np.where(on_ten, int(r.question.max()) + 1, r.question)
    high = np.r_[np.full(int(r.question.max()) + 1, 4.0), 10.0]
    expected = qa.question_alphas(
        r.candidate, stratum, r.interviewer, rating, scale_min=1, scale_max=high, resamples=0
    )
    for level in stats.LEVELS:
        assert body["reliability"]["krippendorff_alpha"][level] == pytest.approx(
            expected.alpha[level], abs=1e-4
        )
        assert body["reliability"]["krippendorff_alpha_ci95"][level] is None


def test_ratings_outside_the_declared_scale_widen_it_rather_than_fail() -> None:
    # An imported history can hold a 5 on a question declared 1-4.
    body = stats.summarise(
        [0, 0, 1, 1, 2, 2],
        [0, 1, 0, 1, 0, 1],
        [0, 0, 0, 0, 0, 0],
        [1.0, 2.0, 5.0, 4.0, 3.0, 3.0],
        scale_max=4,
        bootstrap_resamples=0,
    )

    alpha = body["reliability"]["krippendorff_alpha"]
    assert alpha["interval"] == pytest.approx(
        stats.krippendorff_alpha([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [1, 2, 5, 4, 3, 3]),
        abs=1e-4,
    )
