"""Estimability from the design: interviewers aliased with their questions get no flag."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.calibration import stats
from scoring.calibration.stats import _least_squares
from scoring.calibration.stats.estimability import (
    groups_from_components,
    groups_from_null_basis,
)
from scoring.calibration.stats.raters import fit_additive


def _specialists(
    seed: int,
    *,
    groups: int = 2,
    per_group: int = 3,
    candidates: int = 150,
    harsh: float = 0.0,
    generalist: bool = False,
) -> tuple[np.ndarray, ...]:
    """Each candidate meets one interviewer of each competency, who asks only its
    three questions; competencies differ in difficulty, interviewers do not
    (but interviewer 0 is ``harsh`` points harsher). With ``generalist`` one more
    interviewer asks every competency's questions of every tenth candidate."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(candidates):
        for g in range(groups):
            who = g * per_group + int(rng.integers(per_group))
            rows += [(c, who, 3 * g + k) for k in range(3)]
        if generalist and c % 10 == 0:
            rows += [(c, groups * per_group, 3 * g + k) for g in range(groups) for k in range(3)]
    c, i, q = (np.array(col) for col in zip(*rows, strict=True))
    ability = rng.normal(0, 0.7, candidates)
    difficulty = np.repeat(np.linspace(0, 0.8, groups), 3)
    rating = 3 + ability[c] - difficulty[q] - harsh * (i == 0) + rng.normal(0, 0.7, c.size)
    return c, i, q, np.clip(np.round(rating), 1, 5)


def _rank_deficit(c: np.ndarray, i: np.ndarray, q: np.ndarray) -> int:
    """Return the null directions of X'MX beyond the two sum-to-zero ones, built densely."""
    n_i, n_q = int(i.max()) + 1, int(q.max()) + 1
    x = np.hstack([np.eye(n_i)[i], np.eye(n_q)[q]])
    z = np.eye(int(c.max()) + 1)[c]
    within = x - z @ np.linalg.lstsq(z, x, rcond=None)[0]
    return n_i + n_q - int(np.linalg.matrix_rank(x.T @ within)) - 2


def test_specialists_are_aliased_with_their_questions_and_get_no_severity_or_flag() -> None:
    c, i, q, rating = _specialists(3)
    result = stats.summarise(c, i, q, rating, bootstrap_resamples=0)
    assert result["model"]["estimability"] == {
        "aliased_directions": 1,
        "method": "null space",
        "groups": [
            {"group": 0, "interviewers": [0, 1, 2], "reference": False},
            {"group": 1, "interviewers": [3, 4, 5], "reference": False},
        ],
    }
    for row in result["interviewers"]:
        assert row["separable"] is False
        assert row["severity"] is None and row["severity_shrunk"] is None
        assert row["severity_q"] is None and row["flag"] is None
        assert row["severity_within"] is not None
        assert row["compared_within"]["group"] == row["estimability_group"]
        assert row["compared_within"]["interviewers"] == 3
        assert "compared within their group" in row["reason"]


@pytest.mark.parametrize("groups, per_group", [(2, 3), (4, 6), (3, 2)])
def test_the_aliases_found_are_the_dense_designs_rank_deficit(groups: int, per_group: int) -> None:
    c, i, q, rating = _specialists(7, groups=groups, per_group=per_group, candidates=80)
    fit = fit_additive(c, i, q, rating)
    assert fit.aliased_directions == _rank_deficit(c, i, q) == groups - 1
    assert fit.interviewer_group.tolist() == np.repeat(np.arange(groups), per_group).tolist()
    # The components shortcut of the largest designs finds the same groups here.
    by_components = groups_from_components(i, q, groups * per_group, 3 * groups)
    assert by_components.group.tolist() == fit.interviewer_group.tolist()
    assert by_components.aliased_directions == groups - 1


def test_one_generalist_breaks_the_alias_and_severities_are_estimable_again() -> None:
    c, i, q, rating = _specialists(3, generalist=True)
    assert _rank_deficit(c, i, q) == 0
    result = stats.summarise(c, i, q, rating, bootstrap_resamples=0)
    assert result["model"]["estimability"]["aliased_directions"] == 0
    assert all(row["separable"] for row in result["interviewers"])
    assert all(row["compared_within"] is None for row in result["interviewers"])


def test_a_harsh_specialist_is_seen_within_their_group() -> None:
    c, i, q, rating = _specialists(11, harsh=1.0, candidates=240)
    rows = stats.summarise(c, i, q, rating, bootstrap_resamples=0)["interviewers"]
    low = rows[0]["severity_within_ci"][0]
    assert low > 0 and rows[0]["flag"] is None  # clear within the group, never a flag
    assert all(r["severity_within_ci"][0] < 0.3 for r in rows[3:])  # the other group


def test_a_majority_group_is_the_reference_and_the_aliased_rest_is_not() -> None:
    # Interviewer 8 asks only their own questions 6-8: aliased alone with them.
    rng = np.random.default_rng(5)
    rows = []
    for cand in range(200):
        for who in rng.choice(8, 2, replace=False):
            rows += [(cand, int(who), int(k)) for k in rng.choice(6, 2, replace=False)]
        if cand % 4 == 0:
            rows += [(cand, 8, 6 + k) for k in range(3)]
    c, i, q = (np.array(col) for col in zip(*rows, strict=True))
    rating = np.clip(np.round(3 + rng.normal(0, 0.7, 200)[c] + rng.normal(0, 0.6, c.size)), 1, 5)
    fit = fit_additive(c, i, q, rating)
    assert fit.aliased_directions == _rank_deficit(c, i, q) == 1
    assert fit.interviewer_separable.tolist() == [True] * 8 + [False]
    # The reference group's severities are relative to its own mean: they sum to zero.
    assert fit.severity[:8].sum() == pytest.approx(0.0, abs=1e-9)
    assert np.isnan(fit.severity_within[8])  # a group of one: nothing to compare with


def test_groups_from_a_null_basis_ignore_its_rotation() -> None:
    c, i, q, rating = _specialists(3, groups=3)
    fit = fit_additive(c, i, q, rating)
    basis = np.linalg.qr(np.random.default_rng(0).normal(size=(15, 4)))[0]  # not a null basis
    assert groups_from_null_basis(basis, 9, i).n_groups == 9  # rows all differ
    assert fit.aliased_directions == 2


def test_specialists_under_the_null_flag_no_roster() -> None:
    flagged = 0
    for seed in range(20):
        c, i, q, rating = _specialists(100 + seed, groups=2, per_group=3, candidates=60)
        rows = stats.summarise(c, i, q, rating, bootstrap_resamples=0)["interviewers"]
        flagged += any(row["flag"] for row in rows)
    assert flagged == 0  # issue 33 saw 59% of such rosters flagged


def test_designs_too_large_for_the_dense_null_space_use_the_components(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_least_squares, "MAX_DENSE_PARAMETERS", 4)  # the iterative path
    c, i, q, rating = _specialists(3, groups=3)
    result = stats.summarise(c, i, q, rating, bootstrap_resamples=0)
    estimability = result["model"]["estimability"]
    assert estimability["method"] == "components" and estimability["aliased_directions"] == 2
    assert [g["interviewers"] for g in estimability["groups"]] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    rows = result["interviewers"]
    assert all(row["flag"] is None and row["severity"] is None for row in rows)
    assert all(row["severity_within_se"] > 0 for row in rows)
