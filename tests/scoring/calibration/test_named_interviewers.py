"""Labels on the interviewers who get named (issue 33): their intervals, what a scope
can detect, the ceiling and specialists, on rosters from the project's simulator."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from scipy import special

from scoring.calibration.stats import summarise
from scoring.calibration.stats.interviewers import (
    FLAG_FDR,
    benjamini_hochberg,
    benjamini_hochberg_across,
    detectable_severity,
)
from tests.support.sparse_panels import (
    SparsePanels,
    simulate_sparse_panels,
    simulate_specialists,
)

FAR = 0.5


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


@cache
def _coverage(seed: int, rosters: int, **options: Any) -> tuple[list[bool], list[bool], list[bool]]:
    """Return, over the rosters' interviewers with a severity, whether severity_named_ci
    covers the truth (all; those beyond FAR) and whether severity_shrunk_ci does (beyond)."""
    named, named_far, shrunk_far = [], [], []
    for child in np.random.SeedSequence(seed).spawn(rosters):
        roster = simulate_sparse_panels(np.random.default_rng(child), severity_sd=0.5, **options)
        for code, row in enumerate(_summary(roster)["interviewers"]):
            if row["severity_named_ci"] is None:
                continue
            truth = float(roster.severity_points[code])
            low, high = row["severity_named_ci"]
            named.append(low <= truth <= high)
            if abs(roster.severity[code]) > FAR:
                named_far.append(low <= truth <= high)
                low, high = row["severity_shrunk_ci"]
                shrunk_far.append(low <= truth <= high)
    return named, named_far, shrunk_far


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"interaction_sd": 0.3},  # persistent interviewer x question deviations
        {"interaction_sd": 0.3, "centre_shift": 0.8},  # and a ceiling
    ],
    ids=["plain", "interaction", "interaction-and-ceiling"],
)
def test_the_interval_beside_a_named_interviewer_covers_far_from_neutral_too(
    options: dict[str, float],
) -> None:
    named, named_far, shrunk_far = _coverage(3301, 40, **options)
    assert len(named) > 1500 and len(named_far) > 500
    assert 0.93 <= float(np.mean(named)) <= 0.97
    assert 0.93 <= float(np.mean(named_far)) <= 0.97
    # The shrunk interval, by construction, covers the far ones less.
    assert float(np.mean(shrunk_far)) < float(np.mean(named_far))


def test_persistent_interviewer_question_deviations_widen_the_flags_standard_error() -> None:
    rng = np.random.default_rng(3302)
    roster = simulate_sparse_panels(rng, severity_sd=0.4, interaction_sd=0.4)
    out = _summary(roster)
    assert out["model"]["interaction_sd"] > 0.2
    rows = [row for row in out["interviewers"] if row["severity_se"] is not None]
    assert all(row["severity_se_robust"] >= row["severity_se"] for row in rows)
    assert any(row["severity_se_robust"] > 1.1 * row["severity_se"] for row in rows)
    # Without them the estimate stays near 0 and the two errors near each other.
    plain = _summary(simulate_sparse_panels(np.random.default_rng(3302), severity_sd=0.4))
    assert plain["model"]["interaction_sd"] < 0.15


def test_a_ceiling_is_warned_about_and_an_ordinary_scale_is_not() -> None:
    piled = _summary(simulate_sparse_panels(np.random.default_rng(3303), centre_shift=1.2))
    assert piled["model"]["ceiling_share"] >= 0.3
    assert "top of their scale" in piled["model"]["ceiling_warning"]
    plain = _summary(simulate_sparse_panels(np.random.default_rng(3303)))
    assert plain["model"]["ceiling_share"] < 0.3 and plain["model"]["ceiling_warning"] is None


def test_the_detectable_severity_is_flagged_about_80_percent_of_the_time() -> None:
    # One interviewer's estimate ~ N(d, se): the flag rule's two hurdles at level alpha.
    se, reliability = np.array([0.15, 0.3]), np.array([0.8, 0.5])
    d, alpha = detectable_severity(se, reliability, n_tests=20, discoveries=0)
    assert alpha == pytest.approx(FLAG_FDR / 20)
    rng = np.random.default_rng(3304)
    z_alpha = special.ndtri(1 - alpha / 2)
    for k in range(2):
        draws = rng.normal(d[k], se[k], 20_000)
        flagged = (np.abs(draws) / se[k] >= z_alpha) & (reliability[k] * np.abs(draws) >= 0.2)
        assert float(flagged.mean()) == pytest.approx(0.8, abs=0.01)
    # Nothing can be flagged where the scope sees no spread beyond noise.
    none, _ = detectable_severity(np.array([0.2]), np.array([0.0]), n_tests=5, discoveries=0)
    assert np.isnan(none[0])


def test_every_interviewer_with_a_severity_says_what_the_scope_could_detect() -> None:
    out = _summary(simulate_sparse_panels(np.random.default_rng(3305), severity_sd=0.4))
    rows = [row for row in out["interviewers"] if row["severity"] is not None]
    assert rows and all(row["detectable_severity"] > 0 for row in rows)
    summary = out["model"]["detectable_severity"]
    assert summary["power"] == 0.8 and summary["interviewers"] == len(rows)
    assert summary["median"] == pytest.approx(np.median([r["detectable_severity"] for r in rows]))
    # A thin interviewer (large SE) needs a larger severity to be seen.
    by_se = sorted(rows, key=lambda row: row["severity_se_robust"])
    assert by_se[0]["detectable_severity"] < by_se[-1]["detectable_severity"]


def test_one_false_discovery_rate_across_a_role_and_its_levels() -> None:
    role, level = np.array([0.001, 0.02, 0.5]), np.array([0.01, np.nan, 0.04])
    q_role, q_level = benjamini_hochberg_across([role, level])
    pooled = benjamini_hochberg(np.array([0.001, 0.02, 0.5, 0.01, 0.04]))
    assert q_role.tolist() == pytest.approx(pooled[:3].tolist())
    assert q_level[0] == pytest.approx(pooled[3]) and np.isnan(q_level[1])
    assert q_level[2] == pytest.approx(pooled[4])


@pytest.mark.slow  # Monte Carlo: simulated rosters per design
@pytest.mark.parametrize(
    "design",
    [
        {"n_competencies": 2, "interviewers_per_competency": 3, "n_candidates": 60},
        {"n_competencies": 4, "interviewers_per_competency": 6, "n_candidates": 120},
    ],
    ids=["6-interviewers-2-competencies", "24-interviewers-4-competencies"],
)
def test_specialists_under_the_null_flag_at_most_five_percent_of_rosters(
    design: dict[str, int],
) -> None:
    flagged = 0
    rosters = 40
    for child in np.random.SeedSequence(3306).spawn(rosters):
        roster = simulate_specialists(np.random.default_rng(child), competency_sd=0.6, **design)
        out = _summary(roster)
        assert out["model"]["estimability"]["aliased_directions"] == design["n_competencies"] - 1
        flagged += any(row["flag"] for row in out["interviewers"])
    assert flagged / rosters <= 0.05  # issue 33 measured 59% and 26% before


def test_a_harsh_specialist_shows_within_their_competency_and_is_not_flagged() -> None:
    severity = np.zeros(6)
    severity[0] = 1.0
    roster = simulate_specialists(
        np.random.default_rng(3307), severity=severity, n_candidates=150, competency_sd=0.6
    )
    rows = _summary(roster)["interviewers"]
    assert rows[0]["severity_within_ci"][0] > 0
    assert rows[0]["compared_within"]["interviewers"] == 3
    assert all(row["flag"] is None and row["severity"] is None for row in rows)
