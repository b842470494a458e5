"""Tests for the snapshot body: summarise and to_jsonable over the stats families.

A simulated 200k-rating panel, edge cases (no ratings, one rating, one
interviewer, identical ratings) and the flags. The families have their own
test_stats_*.py files. No database and no Django.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.calibration import stats
from tests.scoring.calibration.stats_data import SHROUT_FLEISS_GRID
from tests.support.simulate import simulate_panel


def _json_roundtrip(obj: object) -> object:
    # allow_nan=False fails on any NaN/inf that slipped through.
    return json.loads(json.dumps(obj, allow_nan=False))


# --------------------------------------------------------------------------
# summarise
# --------------------------------------------------------------------------


def test_summarise_runs_on_a_simulated_200k_rating_panel() -> None:
    panel = simulate_panel(10_000, 120, 60, panel_size=4, questions_per_interview=4, seed=21)
    assert panel.n_ratings >= 200_000
    out = stats.summarise(
        panel.candidate,
        panel.interviewer,
        panel.question,
        panel.rating,
        loop=panel.loop,
        decision=panel.decision,
        recommendation=panel.recommendation,
        scale_max=4,
    )
    assert _json_roundtrip(out) == out
    assert out["inputs"]["ratings"] == panel.n_ratings
    assert len(out["interviewers"]) == 120
    assert len(out["questions"]) == 60
    assert len(out["candidates"]) == 10_000
    rel = out["reliability"]
    assert set(rel["krippendorff_alpha"]) == {"nominal", "ordinal", "interval"}
    assert 0 < rel["krippendorff_alpha"]["interval"] < 1
    lo, hi = rel["krippendorff_alpha_ci95"]["interval"]
    assert lo <= rel["krippendorff_alpha"]["interval"] <= hi
    assert 0 < rel["g_qk"] < 1
    assert rel["fleiss_kappa"] is None  # units have one or two ratings
    assert rel["icc"] is None  # no question is rated by everyone
    assert all(row["comparable"] for row in out["interviewers"])
    assert all(row["discrimination"] is not None for row in out["questions"])
    assert all(row["agreement"] is not None for row in out["interviewers"])


def _check_edge_output(out: dict, n_interviewers: int) -> None:
    assert _json_roundtrip(out) == out
    assert len(out["interviewers"]) == n_interviewers
    assert set(out) >= {"inputs", "reliability", "interviewers", "questions", "candidates"}


def test_summarise_handles_empty_input() -> None:
    out = stats.summarise([], [], [], [])
    _check_edge_output(out, 0)
    assert out["inputs"]["ratings"] == 0
    assert out["reliability"]["krippendorff_alpha"] == {
        "nominal": None,
        "ordinal": None,
        "interval": None,
    }
    assert out["candidates"] == [] and out["questions"] == []


def test_summarise_handles_a_single_rating() -> None:
    out = stats.summarise([0], [0], [0], [3.0], decision=[1.0], recommendation=[2.0])
    _check_edge_output(out, 1)
    assert out["reliability"]["g_qk"] is None
    assert out["candidates"][0]["raw_mean"] == 3.0
    assert out["candidates"][0]["adjusted"] == 3.0
    assert out["interviewers"][0]["leniency"] is None
    assert out["interviewers"][0]["agreement"] == 1.0
    assert out["questions"][0]["flag"] is None  # one rating is no ceiling


def test_summarise_handles_identical_ratings() -> None:
    candidate = np.repeat(np.arange(6), 4)
    interviewer = np.tile(np.arange(4), 6)
    question = np.zeros(24, dtype=int)
    out = stats.summarise(candidate, interviewer, question, np.full(24, 3.0))
    _check_edge_output(out, 4)
    rel = out["reliability"]
    assert rel["krippendorff_alpha"] == {"nominal": None, "ordinal": None, "interval": None}
    assert rel["fleiss_kappa"] is None
    assert rel["icc"]["ICC1"] is None  # complete grid, but zero variance
    assert [row["leniency"] for row in out["interviewers"]] == [0.0] * 4
    assert [row["severity"] for row in out["interviewers"]] == [0.0] * 4


def test_summarise_handles_one_interviewer_only() -> None:
    rng = np.random.default_rng(0)
    candidate = np.repeat(np.arange(30), 3)
    question = np.tile(np.arange(3), 30)
    rating = rng.integers(1, 5, 90).astype(float)
    out = stats.summarise(candidate, np.zeros(90, dtype=int), question, rating)
    _check_edge_output(out, 1)
    only = out["interviewers"][0]
    # Nobody else asks their questions: no severity to speak of.
    assert only["separable"] is False and only["severity"] is None
    assert only["reason"].startswith("not separable from their questions")
    assert only["leniency"] is None and only["flag"] is None
    assert out["reliability"]["g_qk"] is None
    assert out["reliability"]["krippendorff_alpha"]["interval"] is None


def test_summarise_reports_icc_for_the_largest_complete_grid() -> None:
    grid = np.array(SHROUT_FLEISS_GRID, dtype=float)
    candidate, interviewer = np.indices(grid.shape)
    # Question 1 is a 2 x 2 calibration grid; question 0 the 6 x 4 one; the
    # question 2 ratings are an incomplete grid and must be ignored.
    extra_c = np.array([0, 0, 1, 1, 0, 1, 2])
    extra_i = np.array([0, 1, 0, 1, 0, 1, 2])
    extra_q = np.array([1, 1, 1, 1, 2, 2, 2])
    out = stats.summarise(
        np.r_[candidate.ravel(), extra_c],
        np.r_[interviewer.ravel(), extra_i],
        np.r_[np.zeros(24, dtype=int), extra_q],
        np.r_[grid.ravel(), [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0]],
        ndigits=None,
    )
    icc_out = out["reliability"]["icc"]
    assert icc_out["question"] == 0
    assert (icc_out["n_candidates"], icc_out["n_interviewers"]) == (6, 4)
    reference = stats.icc(grid)
    for form in stats.ICC_FORMS:
        assert icc_out[form] == pytest.approx(reference.values[form])
        assert icc_out["ci95"][form] == pytest.approx(list(reference.ci95[form]))


def test_summarise_agreement_skips_scorecards_without_a_recommendation() -> None:
    loop = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2])
    interviewer = np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    question = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 0])
    rating = np.array([3.0, 4.0, 2.0, 2.0, 4.0, 4.0, 1.0, 2.0, 3.0, 3.0])
    recommendation = np.array([1.0, 1.0, np.nan, np.nan, 2.0, np.nan, -1.0, -1.0, -2.0, 1.0])
    decision = np.array([1.0, 0.0, np.nan])
    out = stats.summarise(
        loop, interviewer, question, rating, decision=decision, recommendation=recommendation
    )
    share, count = stats.recommendation_agreement(loop, interviewer, recommendation, decision)
    # summarise rounds to 4 digits (ndigits=4).
    assert [row["agreement"] for row in out["interviewers"]] == pytest.approx(
        share.tolist(), abs=5e-5
    )
    assert [row["agreement_n"] for row in out["interviewers"]] == count.tolist() == [2, 1]


def test_summarise_counts_each_rating_of_an_interviewer_in_their_distribution() -> None:
    out = stats.summarise(
        [0, 0, 1, 1, 2], [1, 0, 1, 0, 1], [0, 0, 0, 0, 0], [2.5, 4.0, 1.0, 4.0, 2.5]
    )
    assert [row["distribution"] for row in out["interviewers"]] == [
        {"4": 2},
        {"1": 1, "2.5": 2},
    ]


def test_summarise_reports_fleiss_kappa_when_every_unit_has_the_same_count() -> None:
    rng = np.random.default_rng(3)
    candidate = np.repeat(np.arange(20), 3)
    interviewer = np.tile(np.arange(3), 20)
    rating = rng.integers(1, 5, 60).astype(float)
    out = stats.summarise(candidate, interviewer, np.zeros(60, dtype=int), rating, ndigits=None)
    assert out["reliability"]["fleiss_kappa"] == pytest.approx(
        stats.fleiss_kappa(candidate, interviewer, rating)
    )


def test_summarise_flags_a_lenient_and_a_harsh_interviewer() -> None:
    panel = simulate_panel(1500, 30, 20, noise_sd=0.4, seed=9)
    rating = panel.rating.copy()
    # Move interviewer 0 up and interviewer 1 down by a full point, then clip.
    rating[panel.interviewer == 0] += 1.0
    rating[panel.interviewer == 1] -= 1.0
    rating = np.clip(rating, 1, 4)
    out = stats.summarise(panel.candidate, panel.interviewer, panel.question, rating)
    flags = [row["flag"] for row in out["interviewers"]]
    assert flags[0] == "lenient"
    assert flags[1] == "harsh"
    assert out["interviewers"][0]["leniency"] > 0.5
    assert out["interviewers"][0]["leniency_ci"][0] > 0
    # One sign everywhere: positive = harsher.
    assert out["interviewers"][0]["copanelist_gap"] == -out["interviewers"][0]["leniency"]
    assert out["interviewers"][0]["severity_shrunk"] < -stats.FLAG_MIN_POINTS
    assert out["interviewers"][1]["severity_shrunk"] > stats.FLAG_MIN_POINTS
    assert out["interviewers"][1]["severity_q"] <= stats.FLAG_FDR
    assert out["interviewers"][1]["severity"] > out["interviewers"][0]["severity"]


def test_summarise_flags_noise_questions_and_ceilings() -> None:
    panel = simulate_panel(1500, 30, 20, seed=12)
    rating = panel.rating.copy()
    rng = np.random.default_rng(12)
    noise_q = panel.question == 0
    rating[noise_q] = rng.integers(1, 5, int(noise_q.sum())).astype(float)
    ceiling_q = panel.question == 1
    rating[ceiling_q] = 4.0
    out = stats.summarise(panel.candidate, panel.interviewer, panel.question, rating, scale_max=4)
    assert out["questions"][0]["flag"] == "low discrimination: consider retiring"
    assert out["questions"][1]["flag"] == "ceiling"
    assert out["questions"][1]["share_at_max"] == 1.0
    assert all(row["flag"] is None for row in out["questions"][2:])


def test_summarise_keeps_lists_indexed_by_code_including_unused_codes() -> None:
    out = stats.summarise(
        [0, 2], [1, 1], [0, 0], [2.0, 3.0], n_candidates=4, n_interviewers=3, n_questions=2
    )
    _check_edge_output(out, 3)
    assert [row["candidate"] for row in out["candidates"]] == [0, 1, 2, 3]
    assert [row["ratings"] for row in out["candidates"]] == [1, 0, 1, 0]
    assert out["interviewers"][0]["comparable"] is False
    assert out["interviewers"][0]["reason"] == "no ratings"
    assert out["questions"][1]["mean"] is None


def test_summarise_rejects_arrays_of_different_lengths() -> None:
    with pytest.raises(ValueError):
        stats.summarise([0, 1], [0], [0, 0], [1.0, 2.0])


def test_to_jsonable_turns_numpy_and_nan_into_plain_values() -> None:
    value = stats.to_jsonable(
        {"a": np.float64(np.nan), "b": [np.int64(2), np.inf], "c": np.arange(2)}, ndigits=2
    )
    assert value == {"a": None, "b": [2, None], "c": [0, 1]}


def test_summarise_says_why_fleiss_kappa_is_missing() -> None:
    # Loop 0's question has 3 ratings, loop 1's has 2: kappa needs equal counts.
    out = stats.summarise([0, 0, 0, 1, 1], [0, 1, 2, 0, 1], [0] * 5, [1.0, 2.0, 2.0, 3.0, 3.0])
    reliability = out["reliability"]
    assert reliability["fleiss_kappa"] is None
    assert reliability["fleiss_kappa_reason"] == (
        "units are rated by different numbers of interviewers (2 to 3); "
        "kappa needs the same number for every unit"
    )
    single = stats.summarise([0, 1], [0, 1], [0, 0], [2.0, 3.0])["reliability"]
    assert single["fleiss_kappa_reason"] == (
        "no question was rated by two or more interviewers in the same loop"
    )
    balanced = stats.summarise([0, 0, 1, 1], [0, 1, 0, 1], [0] * 4, [1.0, 2.0, 2.0, 2.0])
    assert balanced["reliability"]["fleiss_kappa"] is not None
    assert balanced["reliability"]["fleiss_kappa_reason"] is None


def test_summarise_keeps_a_small_grids_icc_but_says_the_dashboard_will_not_headline_it() -> None:
    grid = np.array(SHROUT_FLEISS_GRID, dtype=float)  # 6 targets x 4 judges
    candidate, interviewer = np.indices(grid.shape)
    out = stats.summarise(
        candidate.ravel(), interviewer.ravel(), np.zeros(grid.size, dtype=int), grid.ravel()
    )
    assert out["reliability"]["icc"]["n_candidates"] == 6
    assert out["reliability"]["icc_reason"] == (
        "the largest complete grid has 6 candidates; the dashboard shows the ICC from 10"
    )


def test_each_rating_is_judged_against_its_own_versions_scale() -> None:
    # One question, asked on 1-4 (first six ratings) and, after an edit, on 1-10: a 4 is
    # the top of the first scale and the middle of the second.
    rating = [4.0] * 12
    scale = [4.0] * 6 + [10.0] * 6
    candidate = np.repeat(np.arange(6), 2)
    interviewer = np.tile([0, 1], 6)
    out = stats.summarise(
        candidate, interviewer, [0] * 12, rating, scale_max=[10.0], rating_scale_max=scale
    )
    assert out["questions"][0]["share_at_max"] == 0.5
    assert out["questions"][0]["flag"] is None  # not "ceiling": half the ratings are mid-scale
    last_version_wins = stats.summarise(candidate, interviewer, [0] * 12, rating, scale_max=[4.0])
    assert last_version_wins["questions"][0]["flag"] == "ceiling"
