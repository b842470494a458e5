"""Labels on people that hold up (issue 16, item 7): flags, intervals and errors on
realistic sparse rosters simulated with tests.support.sparse_panels.

Each roster: 150 candidates, 50 interviewers of whom a quarter have 10 ratings or
fewer, panels of 4, personal question repertoires, ratings 1-4 with a scorecard
halo. Seeds are fixed; bench/calibration_power.py prints the same measures for
200 rosters per scenario (docs/calibration.md quotes it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.calibration.stats import summarise
from tests.support.sparse_panels import SparsePanels, expected_rating, simulate_sparse_panels

# Monte Carlo over 80 rosters per scenario: seconds per test.
pytestmark = pytest.mark.slow

ROSTERS = 80
BIG, NEUTRAL, THIN = 0.5, 0.2, 10


@dataclass
class Measures:
    rosters: int = 0
    rosters_flagged: int = 0
    big: int = 0
    big_right: int = 0
    flags: int = 0
    flags_neutral: int = 0
    severity_covered: list[bool] = field(default_factory=list)
    thin_errors: list[float] = field(default_factory=list)
    adjusted_covered: list[bool] = field(default_factory=list)
    rho_adjusted: list[float] = field(default_factory=list)
    rho_raw: list[float] = field(default_factory=list)
    solo_rows: list[dict[str, Any]] = field(default_factory=list)
    others: int = 0
    others_not_separable: int = 0


def _summary(roster: SparsePanels) -> dict[str, Any]:
    return summarise(
        roster.candidate,
        roster.interviewer,
        roster.question,
        roster.rating,
        n_candidates=roster.ability.size,
        n_interviewers=roster.severity.size,
        n_questions=roster.easiness.size,
        scale_max=float(roster.scale_max),
        bootstrap_resamples=0,
        ndigits=None,
    )


def _candidate_truth(roster: SparsePanels) -> np.ndarray:
    """Return each candidate's expected rating from the roster's average interviewer on
    its average asked question, in rating points (what ``adjusted`` estimates)."""
    asked = np.unique(roster.question)
    latent = (
        roster.centre
        + roster.ability[:, None, None]
        + roster.easiness[asked][None, None, :]
        - roster.severity[None, :, None]
    )
    sd = math.hypot(0.35, 0.55)  # simulate_sparse_panels' default halo_sd and noise_sd
    return expected_rating(latent, sd, roster.scale_max).mean(axis=(1, 2))


def _measure(measures: Measures, roster: SparsePanels, out: dict[str, Any]) -> None:
    counts = np.bincount(roster.interviewer, minlength=roster.severity.size)
    rows = out["interviewers"]
    measures.rosters += 1
    measures.rosters_flagged += any(row["flag"] for row in rows)
    for code, row in enumerate(rows):
        true, points = float(roster.severity[code]), float(roster.severity_points[code])
        if abs(true) > BIG:
            measures.big += 1
            measures.big_right += row["flag"] == ("harsh" if true > 0 else "lenient")
        if row["flag"]:
            measures.flags += 1
            measures.flags_neutral += abs(true) < NEUTRAL
        if roster.not_separable[code]:
            measures.solo_rows.append(row)
        elif row["comparable"]:
            measures.others += 1
            measures.others_not_separable += row["separable"] is False
        if row["severity_shrunk"] is None:
            continue
        low, high = row["severity_shrunk_ci"]
        measures.severity_covered.append(low <= points <= high)
        if counts[code] <= THIN:
            measures.thin_errors.append(row["severity_shrunk"] - points)
    truth = _candidate_truth(roster)
    adjusted = np.array(
        [np.nan if r["adjusted"] is None else r["adjusted"] for r in out["candidates"]]
    )
    raw = np.array([np.nan if r["raw_mean"] is None else r["raw_mean"] for r in out["candidates"]])
    for row, value in zip(out["candidates"], truth, strict=True):
        if row["adjusted_ci"] is not None:
            measures.adjusted_covered.append(
                row["adjusted_ci"][0] <= value <= row["adjusted_ci"][1]
            )
    ok = np.isfinite(adjusted) & np.isfinite(raw)
    measures.rho_adjusted.append(scipy_stats.spearmanr(adjusted[ok], roster.ability[ok])[0])
    measures.rho_raw.append(scipy_stats.spearmanr(raw[ok], roster.ability[ok])[0])


@cache
def _scenario(seed: int, **options: Any) -> Measures:
    measures = Measures()
    for child in np.random.SeedSequence(seed).spawn(ROSTERS):
        roster = simulate_sparse_panels(np.random.default_rng(child), **options)
        _measure(measures, roster, _summary(roster))
    return measures


def _null() -> Measures:
    # Every interviewer identical; questions differ in difficulty.
    return _scenario(1601, severity_sd=0.0, easiness_sd=0.3)


def _assortative() -> Measures:
    # Interviewers differ (sd 0.4 points); harsher interviewers meet stronger candidates.
    return _scenario(1602, severity_sd=0.4, easiness_sd=0.3, assortativity=0.4)


def _solo() -> Measures:
    # As _assortative, and one interviewer asks only questions nobody else asks.
    return _scenario(1603, severity_sd=0.4, easiness_sd=0.3, assortativity=0.4, solo_interviewers=1)


def test_under_the_null_at_most_five_percent_of_rosters_show_any_flag() -> None:
    measures = _null()
    assert measures.rosters == ROSTERS
    assert measures.rosters_flagged / measures.rosters <= 0.05


def test_most_clearly_harsh_or_lenient_interviewers_are_flagged_the_right_way() -> None:
    measures = _assortative()
    assert measures.big > 500  # about a fifth of 50 interviewers, over every roster
    assert measures.big_right / measures.big >= 0.60


def test_few_flags_fall_on_interviewers_near_neutral() -> None:
    measures = _assortative()
    assert measures.flags > 500
    assert measures.flags_neutral / measures.flags <= 0.10


def test_severity_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    # The truth in rating points (severity_points): rounding to whole ratings shrinks
    # a latent severity, and the model measures what reaches the ratings.
    covered = _assortative().severity_covered
    assert len(covered) > 3000
    assert 0.93 <= float(np.mean(covered)) <= 0.97


def test_thinly_rated_interviewers_severity_errs_by_at_most_three_tenths_of_a_point() -> None:
    errors = np.asarray(_assortative().thin_errors)
    assert errors.size > 500
    assert float(np.sqrt(np.mean(errors**2))) <= 0.30


def test_adjusted_score_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    covered = _assortative().adjusted_covered
    assert len(covered) > 10_000
    assert 0.93 <= float(np.mean(covered)) <= 0.97


def test_adjusted_scores_rank_candidates_better_than_raw_means() -> None:
    measures = _assortative()
    assert np.mean(measures.rho_adjusted) > np.mean(measures.rho_raw) + 0.02


def test_an_interviewer_who_alone_asks_their_questions_is_reported_not_separable() -> None:
    rows = _solo().solo_rows
    assert len(rows) == ROSTERS
    for row in rows:
        assert row["separable"] is False
        assert row["severity"] is None and row["severity_shrunk"] is None
        assert row["severity_shrunk_ci"] is None and row["flag"] is None
        assert row["reason"].startswith("not separable from their questions")


@pytest.mark.parametrize("scenario", [_null, _assortative, _solo])
def test_everyone_who_shares_questions_stays_separable(scenario: Any) -> None:
    # The criterion's cost: no interviewer with a shared repertoire loses their number.
    measures = scenario()
    assert measures.others > 3000
    assert measures.others_not_separable == 0
