"""Tests for tests.support.sparse_panels.simulate_sparse_panels: issue 16's sparse rosters.

The design properties the calibration evidence relies on: counts, the thinly
rated quarter, panels, the scale, the scorecard halo, assortative assignment
and a null that is really null. Pure numpy, no database. Fixed seeds; where a
statistic is checked, the spread seen over seeds 0-19 is noted beside it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats as sps

from tests.support.sparse_panels import SparsePanels, expected_rating, simulate_sparse_panels

SEEDS = [0, 1, 2, 3, 4]


def roster(seed: int, **options: Any) -> SparsePanels:
    return simulate_sparse_panels(np.random.default_rng(seed), **options)


def card_residuals(panels: SparsePanels, *, with_severity: bool = True) -> np.ndarray:
    """Return rating minus its exact expectation given the truths, one row per scorecard.

    Without severity this is the expectation under "every interviewer is average".
    """
    mean = panels.centre + panels.ability[panels.candidate] + panels.easiness[panels.question]
    if with_severity:
        mean = mean - panels.severity[panels.interviewer]
    spread = float(np.hypot(0.35, 0.55))  # the default halo_sd and noise_sd
    residual = panels.rating - expected_rating(mean, spread, panels.scale_max)
    return residual.reshape(-1, 3)  # the default three questions per scorecard


def no_interviewer_effect_p(panels: SparsePanels) -> float:
    """Return the p-value of "no interviewer shifts the ratings" (chi-square over interviewers).

    A scorecard's mean residual has mean zero when its interviewer is average,
    whatever candidate and questions it had; scorecards are independent.
    """
    card = card_residuals(panels, with_severity=False).mean(axis=1)
    who = panels.interviewer[::3]
    n = np.bincount(who)
    stat = float(np.sum(np.bincount(who, card) ** 2 / n) / np.mean(card**2))
    return float(sps.chi2.sf(stat, n.size))


def within_card_correlation(rosters: list[SparsePanels]) -> float:
    """Return the correlation of residuals of two ratings on the same scorecard."""
    pairs = [(0, 1), (0, 2), (1, 2)]
    r = np.vstack([card_residuals(p) for p in rosters])
    first = np.concatenate([r[:, a] for a, _ in pairs])
    second = np.concatenate([r[:, b] for _, b in pairs])
    return float(np.corrcoef(first, second)[0, 1])


# --------------------------------------------------------------------------
# Design
# --------------------------------------------------------------------------


def test_it_is_reproducible_from_the_callers_generator() -> None:
    a, b, c = roster(7), roster(7), roster(8)
    for name in ("candidate", "interviewer", "question", "scorecard", "rating", "severity"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not np.array_equal(a.severity, c.severity)
    assert not np.array_equal(a.interviewer, c.interviewer)


@pytest.mark.parametrize("seed", SEEDS)
def test_it_draws_issue_16s_design_by_default(seed: int) -> None:
    panels = roster(seed)
    n = panels.n_ratings
    assert n == 150 * 4 * 3
    for name in ("candidate", "interviewer", "question", "scorecard", "rating"):
        assert getattr(panels, name).shape == (n,), name
    assert panels.ability.shape == (150,)
    assert panels.severity.shape == panels.severity_points.shape == (50,)
    assert panels.thin.shape == panels.not_separable.shape == panels.private_share.shape == (50,)
    assert panels.easiness.shape == (40,)
    assert panels.halo.shape == (600,)
    assert np.array_equal(panels.loop, panels.candidate)
    assert set(panels.candidate.tolist()) == set(range(150))
    assert set(panels.interviewer.tolist()) == set(range(50))

    # A scorecard is one interviewer's interview of one candidate: three distinct
    # questions, and one scorecard per (candidate, interviewer).
    cards = panels.scorecard.reshape(-1, 3)
    assert np.all(cards == cards[:, :1])
    for name in ("candidate", "interviewer"):
        per_card = getattr(panels, name).reshape(-1, 3)
        assert np.all(per_card == per_card[:, :1]), name
    questions = np.sort(panels.question.reshape(-1, 3), axis=1)
    assert np.all(questions[:, 1:] != questions[:, :-1])
    pairs = np.unique(panels.candidate[::3] * 50 + panels.interviewer[::3])
    assert pairs.size == 600


@pytest.mark.parametrize("seed", SEEDS)
def test_every_candidate_meets_a_panel_of_four_distinct_interviewers(seed: int) -> None:
    panels = roster(seed, assortativity=0.8)  # sorting on severity makes repeats likely
    seats = panels.interviewer[::3].reshape(150, 4)
    assert np.array_equal(panels.candidate[::3].reshape(150, 4)[:, 0], np.arange(150))
    assert all(np.unique(row).size == 4 for row in seats)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_quarter_of_the_interviewers_have_ten_ratings_or_fewer(seed: int) -> None:
    panels = roster(seed)
    counts = np.bincount(panels.interviewer, minlength=50)
    assert int(np.sum(counts <= 10)) == 13  # a quarter of 50, rounded half up
    assert np.array_equal(counts <= 10, panels.thin)
    assert counts[panels.thin].min() >= 3  # at least one scorecard
    assert counts[~panels.thin].min() >= 12  # at least four scorecards


def test_the_thin_share_and_limit_follow_the_options() -> None:
    panels = roster(3, n_interviewers=40, thin_share=0.5, thin_max_ratings=6)
    counts = np.bincount(panels.interviewer, minlength=40)
    assert int(np.sum(counts <= 6)) == 20
    assert np.array_equal(counts <= 6, panels.thin)


@pytest.mark.parametrize("scale_max", [4, 5])
def test_ratings_are_whole_points_covering_the_scale(scale_max: int) -> None:
    panels = roster(2, scale_max=scale_max)
    assert np.all(panels.rating == np.round(panels.rating))
    assert set(np.unique(panels.rating).tolist()) == set(range(1, scale_max + 1))
    assert panels.centre == (1 + scale_max) / 2


# --------------------------------------------------------------------------
# The rating model and its truths
# --------------------------------------------------------------------------


def test_without_halo_or_noise_ratings_are_the_rounded_sum_of_the_centred_truths() -> None:
    panels = roster(3, halo_sd=0.0, noise_sd=0.0)
    latent = (
        panels.centre
        + panels.ability[panels.candidate]
        + panels.easiness[panels.question]
        - panels.severity[panels.interviewer]
    )
    assert np.array_equal(panels.rating, np.clip(np.round(latent), 1, 4))
    # Centred like the additive model's sum-to-zero effects.
    assert panels.severity.mean() == pytest.approx(0.0, abs=1e-12)
    assert panels.easiness[np.unique(panels.question)].mean() == pytest.approx(0.0, abs=1e-12)


def test_the_halo_makes_ratings_on_one_scorecard_correlate() -> None:
    # Residuals about each rating's exact expectation, pooled over five rosters.
    # One roster gives -0.03..0.06 without a halo and 0.17-0.26 with the default
    # one (0.29 before rounding) over seeds 0-19, and 0.36-0.42 with halo and
    # noise sd 0.5 (0.5 before rounding) over seeds 0-4.
    none = within_card_correlation(
        [roster(s, halo_sd=0.0, noise_sd=float(np.hypot(0.35, 0.55))) for s in SEEDS]
    )
    default = within_card_correlation([roster(s) for s in SEEDS])
    assert abs(none) < 0.05
    assert 0.15 < default < 0.35**2 / (0.35**2 + 0.55**2)
    strong = [roster(s, halo_sd=0.5, noise_sd=0.5) for s in SEEDS]
    residual = np.vstack(
        [
            p.rating
            - expected_rating(
                p.centre
                + p.ability[p.candidate]
                + p.easiness[p.question]
                - p.severity[p.interviewer],
                float(np.hypot(0.5, 0.5)),
                4,
            )
            for p in strong
        ]
    ).reshape(-1, 3)
    assert np.corrcoef(residual[:, 0], residual[:, 1])[0, 1] > 0.3
    # The planted halo is one draw per scorecard with the requested spread.
    assert np.std(np.concatenate([p.halo for p in strong])) == pytest.approx(0.5, rel=0.05)


def test_severity_in_rating_points_equals_the_latent_severity_away_from_the_scale_ends() -> None:
    wide = roster(3, scale_max=30)  # nobody near 1 or 30: rounding only
    assert np.allclose(wide.severity_points, wide.severity, atol=1e-3)
    narrow = roster(3)  # clipping to 1..4 shrinks effects
    slope = np.polyfit(narrow.severity, narrow.severity_points, 1)[0]
    assert 0.6 < slope < 0.95
    assert np.all(np.sign(narrow.severity_points) == np.sign(narrow.severity))


def test_expected_rating_matches_simulated_ratings() -> None:
    rng = np.random.default_rng(0)
    for mean in (0.2, 1.7, 2.5, 3.1, 4.4):
        draws = np.clip(np.round(mean + rng.normal(0.0, 0.65, 200_000)), 1, 4)
        assert expected_rating(mean, 0.65, 4) == pytest.approx(draws.mean(), abs=0.01)
    assert np.array_equal(expected_rating([0.0, 1.6, 2.4, 9.0], 0.0, 4), [1.0, 2.0, 2.0, 4.0])


# --------------------------------------------------------------------------
# Options: null, questions, severity distribution, assortative assignment
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_null_is_really_null(seed: int) -> None:
    null = roster(seed, severity_sd=0.0, assortativity=0.6)
    assert np.all(null.severity == 0.0)
    assert np.all(null.severity_points == 0.0)
    assert null.easiness.std() > 0.15  # questions still differ
    # Ratings carry no interviewer effect (over seeds 0-19, p 0.02-0.96) ...
    assert no_interviewer_effect_p(null) > 0.01
    # ... and with nothing to sort on, assortativity leaves panels random: the
    # abilities each interviewer meets do not differ beyond chance (p 0.05-0.82).
    who, met = null.interviewer[::3], null.ability[null.candidate[::3]]
    assert sps.f_oneway(*[met[who == i] for i in range(50)]).pvalue > 0.01
    assert np.isnan(null.severity_ability_correlation())  # no severity spread to correlate


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_null_checks_fail_when_interviewers_differ(seed: int) -> None:
    differ = roster(seed, assortativity=0.6)
    assert differ.severity.std() > 0.25
    assert no_interviewer_effect_p(differ) < 1e-6
    who, met = differ.interviewer[::3], differ.ability[differ.candidate[::3]]
    assert sps.f_oneway(*[met[who == i] for i in range(50)]).pvalue < 1e-6


def test_equal_questions_have_no_easiness() -> None:
    panels = roster(4, easiness_sd=0.0)
    assert np.all(panels.easiness == 0.0)
    assert roster(4, easiness_sd=0.3).easiness.std() == pytest.approx(0.3, rel=0.3)


def test_a_chosen_severity_distribution_is_used() -> None:
    def two_point(rng: np.random.Generator, n: int) -> np.ndarray:
        return np.where(rng.random(n) < 0.2, 0.8, 0.0)

    panels = roster(5, severity_draw=two_point)
    values = np.unique(np.round(panels.severity, 12))
    assert values.size == 2
    assert values[1] - values[0] == pytest.approx(0.8)
    assert panels.severity.mean() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("requested", [-0.4, 0.3, 0.6])
def test_assortative_assignment_gives_the_requested_correlation(requested: float) -> None:
    # Over scorecards, between the interviewer's severity and the ability of the
    # candidate they met; over seeds 0-19 the mean is within 0.01 of the request
    # (up to 0.6) and one roster's sd about 0.03.
    realised = [roster(s, assortativity=requested).severity_ability_correlation() for s in SEEDS]
    assert np.mean(realised) == pytest.approx(requested, abs=0.05)
    assert all(np.sign(r) == np.sign(requested) for r in realised)


def test_random_panels_have_no_severity_ability_correlation() -> None:
    realised = [roster(s).severity_ability_correlation() for s in SEEDS]
    assert abs(np.mean(realised)) < 0.05


def test_harsher_interviewers_meet_stronger_candidates_under_assortative_assignment() -> None:
    panels = roster(6, assortativity=0.5)
    who = panels.interviewer[::3]
    met = np.bincount(who, panels.ability[panels.candidate[::3]]) / np.bincount(who)
    busy = ~panels.thin
    assert sps.spearmanr(panels.severity[busy], met[busy])[0] > 0.5


# --------------------------------------------------------------------------
# Estimability: interviewers who alone ask their questions
# --------------------------------------------------------------------------


def test_nobody_is_inseparable_from_their_questions_by_default() -> None:
    for seed in SEEDS:
        panels = roster(seed)
        assert not panels.not_separable.any()
        assert np.all(panels.private_share == 0.0)


def test_solo_interviewers_alone_ask_their_questions_and_are_marked_not_separable() -> None:
    panels = roster(8, solo_interviewers=2, solo_easiness_shift=-1.0)
    assert panels.easiness.shape == (40 + 2 * 6,)
    solo = np.flatnonzero(panels.not_separable)
    assert solo.size == 2
    assert not panels.thin[solo].any()
    assert np.all(panels.private_share[solo] == 1.0)
    for who in solo:
        theirs = np.unique(panels.question[panels.interviewer == who])
        assert np.all(theirs >= 40)
        askers = np.unique(panels.interviewer[np.isin(panels.question, theirs)])
        assert askers.tolist() == [who]
    private = panels.easiness[40:]
    assert private.mean() < panels.easiness[:40].mean() - 0.5


def test_solo_interviewers_who_also_ask_shared_questions_are_separable() -> None:
    panels = roster(8, solo_interviewers=2, solo_private_share=0.5)
    assert not panels.not_separable.any()
    partly = np.flatnonzero(panels.private_share > 0)
    assert partly.size == 2
    assert np.all((panels.private_share[partly] > 0.2) & (panels.private_share[partly] < 0.8))


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


# Checked before anything is drawn, so the caller's generator is left untouched.
UP_FRONT = [
    ({"panel_size": 51}, "panel_size must be 1..n_interviewers"),
    ({"questions_per_interview": 7}, "questions_per_interview <= repertoire_size"),
    ({"repertoire_size": 41}, "repertoire_size <= n_questions"),
    ({"thin_max_ratings": 2}, "must allow one scorecard of 3 questions"),
    ({"thin_share": 1.0}, r"thin_share must be within \[0, 1\)"),
    ({"assortativity": 1.5}, "assortativity is a correlation within -1..1"),
    ({"severity_sd": -0.1}, "severity_sd must be a finite number >= 0"),
    ({"halo_sd": float("nan")}, "halo_sd must be a finite number >= 0"),
    ({"off_repertoire_rate": 2.0}, "off_repertoire_rate must be within 0..1"),
    ({"workload_concentration": 0.0}, "workload_concentration must be > 0"),
    ({"solo_interviewers": 38}, "cannot exceed the 37 interviewers who are not thin"),
    ({"solo_private_share": -0.5}, "solo_private_share must be within 0..1"),
    ({"scale_max": 1}, "scale_max must be at least 2"),
    ({"n_candidates": 0}, "need at least one candidate"),
]
# Found only once the truths or the workload are drawn.
WHILE_DRAWING = [
    ({"n_candidates": 20}, "80 seats cannot give 13 thin interviewers"),
    ({"severity_draw": lambda rng, n: np.zeros(n - 1)}, "must return 50 finite severities"),
    ({"severity_draw": lambda rng, n: np.full(n, np.inf)}, "must return 50 finite severities"),
]


@pytest.mark.parametrize(("options", "message"), UP_FRONT)
def test_it_rejects_impossible_designs_before_drawing(
    options: dict[str, Any], message: str
) -> None:
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match=message):
        simulate_sparse_panels(rng, **options)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize(("options", "message"), WHILE_DRAWING)
def test_it_rejects_designs_found_impossible_while_drawing(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        simulate_sparse_panels(np.random.default_rng(0), **options)
