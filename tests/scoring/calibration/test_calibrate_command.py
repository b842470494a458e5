"""`manage.py calibrate [--role NAME] [--json]` after `import_scorecards`, end to end.

Acceptance: "`import_scorecards FILE.csv` then `calibrate --json` reproduces
published reliability values to 3 decimals on SQLite and PostgreSQL". These
tests go through both real commands and run on whichever database the suite
uses; none of them is PostgreSQL-only.
"""

import datetime as dt
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from kit.models import Role
from scoring.calibration.definitions import ALPHA, band
from scoring.models import CalibrationJob, CalibrationSnapshot
from tests.scoring.calibration.helpers import (
    ROLE,
    calibrate_json,
    counts,
    grid_rows,
    import_scorecards,
    lenient_panel_rows,
    live_panel,
    write_csv,
)
from tests.scoring.calibration.stats_data import FLEISS_WIKIPEDIA as FLEISS_1971
from tests.scoring.calibration.stats_data import SHROUT_FLEISS_GRID as SHROUT_FLEISS_1979
from tests.support.factories import RoleFactory

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
# observers (A-D) rate twelve units, with missing values. Rows are units, columns coders.
KRIPPENDORFF_2011 = [
    # A     B     C     D
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, 3, None, None],
]


def imported_and_calibrated(
    tmp_path: Path, rows: list[Any], *args: str, name: str = "ratings.csv"
) -> dict[str, Any]:
    path = write_csv(tmp_path / name, rows)
    import_scorecards(path, "--role", ROLE, *args)
    return calibrate_json("--role", ROLE)


# --- published values ---------------------------------------------------------------------


def test_it_reproduces_krippendorff_2011_alphas(role: Role, tmp_path: Path) -> None:
    """Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg
    School for Communication, University of Pennsylvania, section C (4 observers x 12
    units with missing values): nominal 0.743, ordinal 0.815, interval 0.849.

    Units are candidates, coders interviewers, all on one question of a 1-5 scale.
    """
    rows = grid_rows(KRIPPENDORFF_2011, unit="Unit {n:02}", coder="observer-{n}")

    result = imported_and_calibrated(tmp_path, rows, "--scale-max", "5")

    alpha = result["reliability"]["krippendorff_alpha"]
    assert {level: round(value, 3) for level, value in alpha.items()} == {
        "nominal": 0.743,
        "ordinal": 0.815,
        "interval": 0.849,
    }
    assert result["inputs"] == {
        "ratings": 41,
        "scorecards": 41,
        "candidates": 12,
        "interviewers": 4,
        "questions": 1,
    }
    # Unit 12 has one value only: not pairable, so 11 units count.
    assert result["reliability"]["pairable_units"] == 11


def test_it_reproduces_shrout_and_fleiss_1979_iccs(role: Role, tmp_path: Path) -> None:
    """Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
    rater reliability. Psychological Bulletin 86(2), 420-428, Table 4 (6 targets x 4
    judges). Published to two decimals: ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71,
    ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91; exact values .166 .290 .715 .443 .620 .909.

    Targets are candidates, judges interviewers, one question on a 1-10 scale: a
    complete grid, so the snapshot has the six ICC forms.
    """
    rows = grid_rows(SHROUT_FLEISS_1979, unit="Target {n}", coder="judge-{n}")

    result = imported_and_calibrated(tmp_path, rows, "--scale-max", "10")

    icc = result["reliability"]["icc"]
    forms = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
    assert {f: round(icc[f], 2) for f in forms} == {
        "ICC1": 0.17,
        "ICC2": 0.29,
        "ICC3": 0.71,
        "ICC1k": 0.44,
        "ICC2k": 0.62,
        "ICC3k": 0.91,
    }
    assert {f: round(icc[f], 3) for f in forms} == {
        "ICC1": 0.166,
        "ICC2": 0.290,
        "ICC3": 0.715,
        "ICC1k": 0.443,
        "ICC2k": 0.620,
        "ICC3k": 0.909,
    }
    assert (icc["question"], icc["n_candidates"], icc["n_interviewers"]) == (
        "Calibration exercise",
        6,
        4,
    )


def test_it_reproduces_the_fleiss_1971_kappa(role: Role, tmp_path: Path) -> None:
    """Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    Psychological Bulletin 76(5), 378-382; the worked example of Wikipedia's
    "Fleiss' kappa" article (10 subjects, 14 raters, 5 categories): kappa 0.210.

    Subjects are candidates and raters interviewers; every unit has 14 ratings, so
    Fleiss' kappa applies. Which rater gave which category does not matter to kappa.
    """
    rows = [
        (f"Subject {s:02}", f"rater-{r:02}", "Categorise the answer", category)
        for s, counts_ in enumerate(FLEISS_1971, start=1)
        for r, category in enumerate(
            (c for c, n in enumerate(counts_, start=1) for _ in range(n)), start=1
        )
    ]
    assert len(rows) == 140

    result = imported_and_calibrated(tmp_path, rows, "--scale-max", "5")

    assert round(result["reliability"]["fleiss_kappa"], 3) == 0.210


# --- the JSON contract --------------------------------------------------------------------


INTERVIEWER_KEYS = {"interviewer", "ratings", "mean", "leniency", "leniency_ci", "severity",
                    "severity_se", "flag"}  # fmt: skip
QUESTION_KEYS = {"question", "ratings", "mean", "sd", "discrimination", "rubric_hit_rates", "flag"}
CANDIDATE_KEYS = {"candidate", "ratings", "raw_mean", "adjusted", "adjusted_se"}


def test_the_json_has_the_keys_design_md_promises(role: Role, tmp_path: Path) -> None:
    result = imported_and_calibrated(tmp_path, lenient_panel_rows(), "--scale-max", "7")

    assert result["scope"]["role"] == ROLE and result["scope"]["level"] is None
    assert result["scope"]["flags"] == "confirmatory" and result["scope"]["period"]["months"] == 12
    assert dt.datetime.fromisoformat(result["computed_at"]).tzinfo is not None
    assert result["inputs"] == {
        "ratings": 140,
        "scorecards": 70,
        "candidates": 10,
        "interviewers": 7,
        "questions": 2,
    }
    reliability = result["reliability"]
    assert {"krippendorff_alpha", "fleiss_kappa", "g_qk", "icc"} <= set(reliability)
    assert set(reliability["krippendorff_alpha"]) == {"nominal", "ordinal", "interval"}
    assert all(isinstance(v, float) for v in reliability["krippendorff_alpha"].values())
    assert isinstance(reliability["g_qk"], float)
    # Every unit (candidate, question) has 7 ratings: kappa applies. Every candidate was
    # rated by every interviewer on each question: a complete grid, so ICC applies too.
    assert isinstance(reliability["fleiss_kappa"], float)
    assert {"ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"} <= set(reliability["icc"])

    interviewers = {row["interviewer"]: row for row in result["interviewers"]}
    assert sorted(interviewers) == ["rater-1", "rater-2", "rater-3", "rater-4", "rater-5",
                                    "rater-6", "rater-x"]  # fmt: skip
    for row in interviewers.values():
        assert set(row) >= INTERVIEWER_KEYS
        assert row["ratings"] == 20
        lo, hi = row["leniency_ci"]
        assert lo <= row["leniency"] <= hi
        assert isinstance(row["severity"], float) and row["severity_se"] > 0
    assert interviewers["rater-x"]["flag"] == "lenient"
    assert interviewers["rater-x"]["leniency"] > 1.0
    assert interviewers["rater-x"]["leniency_ci"][0] > 0.5
    assert interviewers["rater-x"]["severity"] < -1.0  # harsher is positive
    assert {row["flag"] for name, row in interviewers.items() if name != "rater-x"} == {None}

    questions = {row["question"]: row for row in result["questions"]}
    assert sorted(questions) == ["Question 1", "Question 2"]
    for row in questions.values():
        assert set(row) >= QUESTION_KEYS
        assert row["ratings"] == 70
        # Imported questions get one rubric item; nobody ticked it.
        assert row["rubric_hit_rates"] == {"Answer meets the bar for this question.": 0.0}

    candidates = {row["candidate"]: row for row in result["candidates"]}
    assert sorted(candidates) == [f"Candidate {c:03}" for c in range(1, 11)]
    for row in candidates.values():
        assert set(row) >= CANDIDATE_KEYS
        assert row["ratings"] == 14
        assert row["adjusted_se"] > 0

    # The document printed is the one stored.
    stored = CalibrationSnapshot.objects.get(role=role, level=None)
    assert stored.result == result
    assert result["watermark"] == stored.watermark


def test_it_prints_a_summary_line_without_json(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "ratings.csv", lenient_panel_rows())
    import_scorecards(path, "--role", ROLE, "--scale-max", "7")
    out = StringIO()

    call_command("calibrate", stdout=out)

    alpha = CalibrationSnapshot.objects.get(level=None).result["reliability"]
    value = alpha["krippendorff_alpha"]["interval"]
    reads = band(ALPHA, value)
    assert reads is not None
    assert out.getvalue() == (
        f"{ROLE}: 140 ratings, 7 interviewers, 10 candidates; "
        f"Krippendorff's alpha (interval) {value} ({reads.reads})\n"
    )


def test_it_refuses_an_unknown_role(role: Role) -> None:
    before = counts()

    with pytest.raises(CommandError) as failure:
        call_command("calibrate", "--role", "Astronaut", stdout=StringIO())

    assert str(failure.value) == "no role named 'Astronaut'"
    assert counts() == before


def test_the_json_printed_is_the_stored_snapshot_body(role: Role, tmp_path: Path) -> None:
    l4 = write_csv(tmp_path / "l4.csv", grid_rows(SHROUT_FLEISS_1979, unit="Junior {n}"))
    import_scorecards(l4, "--role", ROLE, "--scale-max", "10", "--level", "L4")
    out = StringIO()

    call_command("calibrate", "--json", "--role", ROLE, stdout=out)

    stored = CalibrationSnapshot.objects.get(role=role, level=None)
    assert json.loads(out.getvalue()) == stored.result


def test_it_prints_a_list_when_it_calibrates_several_roles(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "a.csv", grid_rows(SHROUT_FLEISS_1979))
    import_scorecards(path, "--role", ROLE, "--scale-max", "10")
    other = write_csv(tmp_path / "b.csv", grid_rows(KRIPPENDORFF_2011))
    import_scorecards(other, "--role", "Data Engineer", "--scale-max", "5")

    result = calibrate_json()

    assert [(r["scope"]["role"], r["scope"]["level"]) for r in result] == [
        (ROLE, None),
        ("Data Engineer", None),
    ]


def test_a_role_without_ratings_gets_an_empty_snapshot(role: Role, tmp_path: Path) -> None:
    RoleFactory(name="Data Engineer")
    path = write_csv(tmp_path / "a.csv", grid_rows(SHROUT_FLEISS_1979))
    import_scorecards(path, "--role", ROLE, "--scale-max", "10")

    full, empty = calibrate_json()

    assert full["inputs"]["ratings"] == 24
    assert empty["scope"] == {
        "role": "Data Engineer",
        "level": None,
        "period": None,
        "flags": "confirmatory",
    }
    assert empty["inputs"] == dict.fromkeys(
        ("ratings", "scorecards", "candidates", "interviewers", "questions"), 0
    )
    assert (empty["interviewers"], empty["questions"], empty["candidates"]) == ([], [], [])


# --- snapshots keyed by their inputs ------------------------------------------------------


def test_running_twice_on_unchanged_ratings_stores_one_snapshot(role: Role, tmp_path: Path) -> None:
    first = imported_and_calibrated(tmp_path, grid_rows(SHROUT_FLEISS_1979), "--scale-max", "10")
    stored = list(CalibrationSnapshot.objects.values_list("pk", "watermark"))

    second = calibrate_json("--role", ROLE)

    assert list(CalibrationSnapshot.objects.values_list("pk", "watermark")) == stored
    assert second == first
    role_wide = CalibrationSnapshot.objects.get(role=role, level=None)
    jobs = CalibrationJob.objects.filter(status="done")
    assert jobs.count() == 2
    assert {job.snapshot_id for job in jobs} == {role_wide.pk}


def test_a_new_submitted_rating_changes_the_watermark_and_stores_a_new_snapshot(
    role: Role, tmp_path: Path
) -> None:
    first = imported_and_calibrated(tmp_path, grid_rows(SHROUT_FLEISS_1979), "--scale-max", "10")

    more = write_csv(tmp_path / "more.csv", [("Target 7", "judge-1", "Calibration exercise", 5)])
    import_scorecards(more, "--role", ROLE, "--scale-max", "10")
    second = calibrate_json("--role", ROLE)

    assert second["watermark"] != first["watermark"]
    assert second["inputs"]["ratings"] == first["inputs"]["ratings"] + 1
    assert CalibrationSnapshot.objects.filter(role=role, level=None).count() == 2


def test_shadow_scorecards_and_drafts_are_left_out(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "ratings.csv", grid_rows(SHROUT_FLEISS_1979))
    import_scorecards(path, "--role", ROLE, "--scale-max", "10", "--level", "L5")
    live_panel()

    result = calibrate_json("--role", ROLE)

    assert result["inputs"] == {
        "ratings": 24 + 4,
        "scorecards": 24 + 1,
        "candidates": 6 + 1,
        "interviewers": 4 + 1,
        "questions": 1 + 4,
    }
    names = {row["interviewer"] for row in result["interviewers"]}
    assert names == {"coder-1", "coder-2", "coder-3", "coder-4", "pat"}


def test_a_snapshot_is_stored_per_level_with_ratings(role: Role, tmp_path: Path) -> None:
    l4 = write_csv(tmp_path / "l4.csv", grid_rows(SHROUT_FLEISS_1979, unit="Junior {n}"))
    l6 = write_csv(tmp_path / "l6.csv", grid_rows(KRIPPENDORFF_2011, unit="Staff {n}"))
    import_scorecards(l4, "--role", ROLE, "--scale-max", "10", "--level", "L4")
    import_scorecards(l6, "--role", ROLE, "--scale-max", "10", "--level", "L6")

    whole = calibrate_json("--role", ROLE)

    snapshots = {
        (s.level.name if s.level else None): s.result
        for s in CalibrationSnapshot.objects.select_related("level")
    }
    assert set(snapshots) == {None, "L4", "L6"}
    assert snapshots[None] == whole
    assert snapshots["L4"]["scope"]["level"] == "L4"
    assert snapshots["L6"]["scope"]["level"] == "L6"
    assert snapshots["L6"]["scope"]["flags"] == "exploratory"
    assert snapshots["L4"]["inputs"]["ratings"] == 24
    assert snapshots["L6"]["inputs"]["ratings"] == 41
    assert whole["inputs"]["ratings"] == 24 + 41
    assert {r["candidate"] for r in snapshots["L4"]["candidates"]} == {
        f"Junior {n}" for n in range(1, 7)
    }


def test_the_json_carries_issue_33s_marks_and_their_definitions(role: Role, tmp_path: Path) -> None:
    result = imported_and_calibrated(tmp_path, lenient_panel_rows(), "--scale-max", "7")

    model = result["model"]
    assert model["estimability"] == {"aliased_directions": 0, "method": "null space", "groups": []}
    assert model["detectable_severity"]["power"] == 0.8
    assert {"interaction_sd", "ceiling_share", "ceiling_warning"} <= set(model)
    assert {"krippendorff_alpha_headline", "pairable_ratings_per_question"} <= set(
        result["reliability"]
    )
    for row in result["interviewers"]:
        assert row["separable"] is True and row["estimability_group"] == 0
        assert row["compared_within"] is None and row["severity_within"] is None
        low, high = row["severity_named_ci"]
        assert low <= row["severity"] <= high
        assert row["detectable_severity"] > 0
        assert {"agreement_kappa", "peer_agreement_kappa"} <= set(row)
    definitions = result["definitions"]
    for key in ("interviewers.severity_within", "interviewers.severity_named_ci",
                "interviewers.detectable_severity", "interviewers.agreement_kappa",
                "model.estimability", "reliability.krippendorff_alpha_headline"):  # fmt: skip
        assert definitions[key]["what"]
    assert "at most 5% of flags are expected to be false" not in str(definitions)
