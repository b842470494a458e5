"""What `import_scorecards` writes, and the problems it names, on every database.

The import's rules live once, in Python; its rows reach the database by COPY on
PostgreSQL and by bulk INSERTs elsewhere. These tests read back everything it
wrote (run them with DATABASE_URL set for PostgreSQL, without for SQLite).
"""

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management.base import CommandError

from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit import services as kit_services
from kit.models import Question, Role
from scoring.calibration import history
from scoring.models import QuestionRating, Scorecard
from tests.scoring.calibration.helpers import ROLE, counts, import_scorecards, write_csv

FULL = ("candidate", "interviewer", "question", "rating", "recommendation", "decision",
        "interviewed_at")  # fmt: skip


def written(since: dt.datetime) -> dict[str, Any]:
    """Everything an import writes, without ids; moments at or after `since` read "now"."""

    def when(moment: dt.datetime | None) -> object:
        return "now" if moment is not None and moment >= since else moment

    return {
        "users": sorted(
            (u.username, u.has_usable_password(), sorted(g.name for g in u.groups.all()))
            for u in User.objects.prefetch_related("groups")
        ),
        "candidates": sorted(Candidate.objects.values_list("name", "email", "phone", "notes")),
        "questions": sorted(
            (
                q.title,
                q.status,
                v.number,
                v.prompt,
                v.outline,
                v.scale_max,
                v.in_use,
                [(r.text, r.kind) for r in v.rubric.all()],
            )
            for q in Question.objects.select_related("current")
            for v in [q.current]
        ),
        "loops": sorted(
            (
                loop.candidate.name,
                loop.role.name,
                loop.level.name,
                loop.status,
                loop.decision,
                loop.decision_rationale,
                when(loop.decided_at),
                loop.warnings,
            )
            for loop in Loop.objects.select_related("candidate", "role", "level")
        ),
        "interviews": sorted(
            (
                i.loop.candidate.name,
                i.order,
                i.title,
                i.minutes,
                i.competencies,
                when(i.scheduled_start),
                when(i.scheduled_end),
            )
            for i in Interview.objects.select_related("loop__candidate")
        ),
        "asked": sorted(
            (
                a.loop.candidate.name,
                a.order,
                a.question.title,
                a.version.number,
                a.reason,
                a.interview.loop_id == a.loop_id,
            )
            for a in InterviewQuestion.objects.select_related(
                "loop__candidate", "question", "version", "interview"
            )
        ),
        "panel": sorted(
            (p.interview.loop.candidate.name, p.user.username, p.is_shadow, p.reminded_at)
            for p in Panelist.objects.select_related("interview__loop__candidate", "user")
        ),
        "scorecards": sorted(
            (
                s.interview.loop.candidate.name,
                s.interviewer.username,
                s.status,
                s.is_shadow,
                s.recommendation,
                s.summary,
                when(s.submitted_at),
            )
            for s in Scorecard.objects.select_related("interview__loop__candidate", "interviewer")
        ),
        "ratings": sorted(
            (
                r.scorecard.interview.loop.candidate.name,
                r.scorecard.interviewer.username,
                r.item.question.title,
                r.rating,
                r.version_id == r.item.version_id,
                r.item.interview_id == r.scorecard.interview_id,
                r.not_asked,
                r.notes,
            )
            for r in QuestionRating.objects.select_related(
                "scorecard__interview__loop__candidate",
                "scorecard__interviewer",
                "item__question",
            )
        ),
    }


def imported(path: Path, scale_max: int = 4) -> tuple[Any, dict[str, Any]]:
    """Import the file; return the result and what was written."""
    since = dt.datetime.now(dt.UTC)
    role, level = history.import_scope(ROLE, None)
    result = history.ratings_import(
        path=str(path), role=role, level=level, scale_max=scale_max,
        progress=lambda stage, n: None,
    )  # fmt: skip
    return result, written(since)


def test_it_writes_what_the_file_says(db: None, tmp_path: Path) -> None:
    # What the bank and the team already hold: reused, not created again.
    role = Role.objects.create(name=ROLE)
    kit_services.question_create(
        role=role,
        meta=kit_services.Meta(title="Serving latency"),
        content=kit_services.Content(prompt="How fast?", outline="Measure it.", scale_max=5),
    )
    User.objects.create_user("kim")
    Candidate.objects.create(name="Bo Chen")
    long_name = "Zed " + "z" * 250
    rows = [
        # Padding, another case of a title, a 5 on the existing 5-point question.
        ("  Ada Byron ", "kim", "Sharding a model", "3", "yes", "", "2024-03-01 10:00"),
        ("Ada Byron", " lee ", "SHARDING A MODEL", " 2", "", "hire", "2024-02-28"),
        ("Ada Byron", "kim", "serving latency", "5", "", "hire", ""),
        ("Bo Chen", "lee", "Serving latency", "1", "strong_no", "", "2024-03-05T09:30:00+01:00"),
        ("Bo Chen", "lee", "Cost of a GPU hour", "2", "STRONG_NO", "", ""),
        (long_name, "kim", "Q" * 130, "4", "", "no_hire", ""),
        ("Cy", "max", "Cost of a GPU hour", "3", "", "", ""),
    ]
    path = write_csv(tmp_path / "history.csv", rows, header=FULL)

    result, rows = imported(path)

    assert result == history.HistoryImportResult(
        rows=7, scorecards=5, candidates_created=3, interviewers_created=2, questions_created=3
    )
    assert rows["ratings"] == sorted([
        ("Ada Byron", "kim", "Sharding a model", 3, True, True, False, ""),
        ("Ada Byron", "lee", "Sharding a model", 2, True, True, False, ""),
        ("Ada Byron", "kim", "Serving latency", 5, True, True, False, ""),
        ("Bo Chen", "lee", "Serving latency", 1, True, True, False, ""),
        ("Bo Chen", "lee", "Cost of a GPU hour", 2, True, True, False, ""),
        (long_name[:200], "kim", "Q" * 120, 4, True, True, False, ""),
        ("Cy", "max", "Cost of a GPU hour", 3, True, True, False, ""),
    ])  # fmt: skip
    assert [q[0] for q in rows["questions"]] == [
        "Cost of a GPU hour", "Q" * 120, "Serving latency", "Sharding a model",
    ]  # fmt: skip
    assert [(c[0], c[1], c[4]) for c in rows["scorecards"]] == sorted([
        ("Ada Byron", "kim", "yes"), ("Ada Byron", "lee", ""), ("Bo Chen", "lee", "strong_no"),
        (long_name[:200], "kim", ""), ("Cy", "max", ""),
    ])  # fmt: skip
    assert [(loop[0], loop[4]) for loop in rows["loops"]] == sorted([
        ("Ada Byron", "hire"), ("Bo Chen", ""), (long_name[:200], "no_hire"), ("Cy", ""),
    ])  # fmt: skip
    assert ("z" * 196) in rows["candidates"][-1][0]


def test_a_simulated_panel_is_written_whole(db: None, tmp_path: Path) -> None:
    from tests.integration.data import write_ratings_csv

    Role.objects.create(name=ROLE)
    path = tmp_path / "panel.csv"
    write_ratings_csv(path, candidates=60, interviewers=12, questions=9)

    result, rows = imported(path)

    assert len(rows["ratings"]) == result.rows > 500
    assert len(rows["scorecards"]) == len(rows["panel"]) == result.scorecards
    assert len(rows["loops"]) == len(rows["interviews"]) == result.candidates_created == 60
    # Every rating is against the version asked, in its scorecard's interview.
    assert {r[4:6] for r in rows["ratings"]} == {(True, True)}


HEAD = "candidate,interviewer,question,rating\n"


@pytest.mark.parametrize(
    ("content", "names", "ratings"),
    [
        (HEAD + "Ada,kim,Q,3\n\nBo,kim,Q,2\n", ["Ada", "Bo"], 2),  # a blank line
        (HEAD + "Ada,kim,Q,3\n,,,\n", ["Ada"], 1),  # an empty row
    ],
)
def test_it_takes_what_is_not_one_row_per_line(
    db: None, tmp_path: Path, content: str, names: list[str], ratings: int
) -> None:
    Role.objects.create(name=ROLE)
    path = tmp_path / "odd.csv"
    path.write_text(content, encoding="utf-8")

    import_scorecards(path, "--role", ROLE)

    assert sorted(Candidate.objects.values_list("name", flat=True)) == names
    assert QuestionRating.objects.count() == ratings


def test_a_quoted_line_break_in_a_name_is_refused_on_the_line_it_ends(
    db: None, tmp_path: Path
) -> None:
    Role.objects.create(name=ROLE)
    path = tmp_path / "odd.csv"
    path.write_text(HEAD + 'Bo,kim,Q,2\n"Ada\nByron",kim,Q,3\n', encoding="utf-8")
    before = counts()

    with pytest.raises(CommandError) as failure:
        import_scorecards(path, "--role", ROLE)

    assert str(failure.value) == (
        f"{path}:4: candidate: Names are one line of text: remove the line break (U+000A)"
        " at character 4."
    )
    assert counts() == before


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (("Ada", "kim", "Q", "9"), "rating 9 is outside the scale 1–4"),
        (("Ada", "kim", "Q", "three"), "rating 'three' is not a whole number"),
        (("Ada", "kim", "Q", "3"), "kim already rated 'Q' for Ada"),
        (("Ada", "no way", "Q", "3"), "interviewer 'no way' is not a valid username"),
        (("", "kim", "Q", "3"), "'candidate' is empty"),
        (("Ada\u2028Byron", "kim", "Q", "3"), "candidate: Names are one line of text"),
    ],
)
def test_a_bad_row_is_named_by_its_line_and_nothing_is_written(
    db: None, tmp_path: Path, row: tuple[str, ...], message: str
) -> None:
    Role.objects.create(name=ROLE)
    path = write_csv(tmp_path / "bad.csv", [("Ada", "kim", "Q", "3"), ("Bo", "kim", "Q", "2"), row])
    before = counts()

    with pytest.raises(CommandError) as failure:
        import_scorecards(path, "--role", ROLE)

    assert str(failure.value).startswith(f"{path}:4: {message}")
    assert counts() == before
