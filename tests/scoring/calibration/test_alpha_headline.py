"""No ordinal or interval alpha headline where questions have too few pairable ratings."""

from __future__ import annotations

import numpy as np

from scoring.calibration.stats import summarise
from scoring.calibration.stats.summary import MIN_PAIRABLE_PER_QUESTION


def _pairs_of_raters(seed: int, per_question: int, questions: int = 6) -> tuple[np.ndarray, ...]:
    """Return loops rated by two interviewers on every question, ``per_question`` ratings."""
    rng = np.random.default_rng(seed)
    rows = []
    for loop in range(per_question // 2):
        who = rng.choice(8, 2, replace=False)
        truth = rng.normal(0, 0.7, questions)
        rows += [(loop, int(i), q, truth[q]) for q in range(questions) for i in who]
    c, i, q, t = (np.array(col) for col in zip(*rows, strict=True))
    rating = np.clip(np.round(3 + t + rng.normal(0, 0.6, t.size)), 1, 5)
    return c, i, q, rating


def test_small_questions_get_no_ordinal_or_interval_headline_and_say_why() -> None:
    c, i, q, rating = _pairs_of_raters(1, per_question=18)
    reliability = summarise(c, i, q, rating, bootstrap_resamples=0)["reliability"]
    assert reliability["pairable_ratings_per_question"] == 18
    headline = reliability["krippendorff_alpha_headline"]
    assert headline["ordinal"] is None and headline["interval"] is None
    assert headline["nominal"] == reliability["krippendorff_alpha"]["nominal"]
    assert (
        f"fewer than {MIN_PAIRABLE_PER_QUESTION}"
        in reliability["krippendorff_alpha_headline_reason"]
    )
    # The values themselves stay where they were, for older readers.
    assert reliability["krippendorff_alpha"]["ordinal"] is not None


def test_questions_with_enough_ratings_keep_every_headline() -> None:
    c, i, q, rating = _pairs_of_raters(1, per_question=60)
    reliability = summarise(c, i, q, rating, bootstrap_resamples=0)["reliability"]
    assert reliability["pairable_ratings_per_question"] == 60
    assert reliability["krippendorff_alpha_headline"] == reliability["krippendorff_alpha"]
    assert reliability["krippendorff_alpha_headline_reason"] is None
