"""What the calibration job reads (load_ratings, watermarks) and what it stores.

One read on every database: each test checks the result against the ORM
reading the same ratings the straightforward way, and runs on SQLite and,
with DATABASE_URL set, on PostgreSQL.
"""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.db import OperationalError, connection
from django.db.models import Count, Max
from django.test.utils import CaptureQueriesContext

from interviews.models import Interview, InterviewQuestion, Panelist
from kit.models import Role
from scoring import visibility
from scoring.calibration import jobs, services
from scoring.calibration import ratings as calibration
from scoring.models import CalibrationJob, CalibrationSnapshot, QuestionRating, Scorecard
from tests.scoring.calibration.helpers import (
    ROLE,
    calibrate_json,
    import_scorecards,
    live_panel,
    write_csv,
)

FULL_HEADER = ("candidate", "interviewer", "question", "rating", "recommendation", "decision",
               "interviewed_at")  # fmt: skip


def rows(prefix: str, decisions: dict[int, str]) -> list[tuple[object, ...]]:
    """Four candidates, three interviewers, two questions; some recommendations and decisions."""
    recommendations = ["strong_no", "no", "", "yes", "strong_yes"]
    out = []
    for c in range(4):
        for i in range(3):
            for q in range(2):
                out.append((
                    f"{prefix} {c}", f"rater-{i}", f"Question {q}", 1 + (c + i + q) % 4,
                    recommendations[(c + 2 * i) % 5], decisions.get(c, ""),
                    f"2024-03-0{c + 1}T10:00:00+00:00",
                ))  # fmt: skip
    return out


@pytest.fixture
def panel(role: Role, tmp_path: Path) -> Role:
    """Ratings at two levels with recommendations and decisions, plus a shadow and a draft."""
    l4 = write_csv(tmp_path / "l4.csv", rows("Junior", {0: "hire", 1: "no_hire"}), FULL_HEADER)
    l6 = write_csv(tmp_path / "l6.csv", rows("Staff", {2: "hire"}), FULL_HEADER)
    import_scorecards(l4, "--role", ROLE, "--level", "L4")
    import_scorecards(l6, "--role", ROLE, "--level", "L6")
    live_panel()
    return Role.objects.get(name=ROLE)


def reference_ratings(role: Role) -> list[tuple[Any, ...]]:
    """The scope's ratings read through the ORM, one sorted tuple per rating."""
    scores = calibration.RECOMMENDATION_SCORE
    decisions = calibration.DECISION_SCORE
    read = QuestionRating.objects.filter(calibration.in_scope(role, None)).values_list(
        "scorecard__interview__loop__candidate_id",
        "scorecard__interviewer_id",
        "item__question_id",
        "rating",
        "scorecard__interview__loop_id",
        "scorecard__recommendation",
        "version__scale_max",
        "scorecard_id",
        "scorecard__interview__loop__level_id",
        "scorecard__interview__loop__decision",
    )
    out = []
    for c, i, q, r, lp, rec, scale, card, level, dec in read:
        out.append((c, i, q, float(r), lp, scores.get(rec), float(scale), card, level,
                    decisions.get(dec)))  # fmt: skip
    return sorted(out)


def as_tuples(data: calibration.Ratings) -> list[tuple[Any, ...]]:
    def plain(value: Any) -> Any:
        value = value.item()
        return None if isinstance(value, float) and np.isnan(value) else value

    columns = [getattr(data, name) for name in calibration.COLUMNS]
    return sorted(tuple(plain(column[n]) for column in columns) for n in range(data.rating.size))


def reference_times(role: Role) -> dict[int | None, str]:
    """The digest of the rated scorecards' interview times (scheduled start, else
    submitted, else started: whole seconds here), per level and for the role."""
    rated = QuestionRating.objects.filter(calibration.in_scope(role, None))
    cards = Scorecard.objects.filter(pk__in=rated.values("scorecard")).select_related(
        "interview__loop"
    )
    found: dict[int | None, list[tuple[int, int]]] = {None: []}
    for card in cards:
        when = card.interview.scheduled_start or card.submitted_at or card.created_at
        entry = (card.pk, int(when.timestamp()))
        found.setdefault(card.interview.loop.level_id, []).append(entry)
        found[None].append(entry)
    return {
        level: calibration._times_digest(
            np.array([pk for pk, _ in pairs], dtype=np.int64),
            np.array([seconds for _, seconds in pairs], dtype=np.int64),
        )
        for level, pairs in found.items()
    }


def reference_marks(role: Role) -> dict[int | None, str]:
    """The watermarks as one aggregate query over the joined ratings computes them, and
    the interview times read card by card."""
    mark = {
        "n": Count("id"),
        "last": Max("id"),
        "changed": Max("scorecard__updated_at"),
        "decided": Max("scorecard__interview__loop__decided_at"),
        "decisions": Count("scorecard__interview__loop__decided_at", distinct=True),
    }
    rated = QuestionRating.objects.filter(calibration.in_scope(role, None))
    per_level = rated.values("scorecard__interview__loop__level_id").annotate(**mark).order_by()
    seats = calibration._seat_marks(visibility.open_seats({"role": role}))
    times = reference_times(role)
    marks: dict[int | None, str] = {}
    for row in per_level:
        level = row["scorecard__interview__loop__level_id"]
        marks[level] = calibration._mark({**row, "level": level, "times": times[level]}, seats)
    whole = rated.aggregate(**mark)
    marks[None] = calibration._mark({**whole, "level": None, "times": times[None]}, seats)
    return marks


def test_load_ratings_reads_what_the_orm_reads(panel: Role) -> None:
    data = calibration.load_ratings(panel)

    assert as_tuples(data) == reference_ratings(panel)
    assert data.rating.size > 2 * 4 * 3 * 2  # both imports and the submitted panelist


def test_an_interview_time_is_read_in_whole_seconds_the_fraction_dropped(panel: Role) -> None:
    # 10:00:00.7 is 10:00:00 on every database (PostgreSQL's CAST alone rounds to :01).
    rated = QuestionRating.objects.filter(calibration.in_scope(panel, None))
    card = Scorecard.objects.filter(pk__in=rated.values("scorecard")).first()
    assert card is not None
    moment = datetime(2024, 3, 1, 10, 0, 0, 700_000, tzinfo=UTC)
    Interview.objects.filter(pk=card.interview_id).update(scheduled_start=moment)
    data = calibration.load_ratings(panel)
    at = np.flatnonzero(data.cards.scorecard == card.pk)
    assert data.cards.time[at].tolist() == [int(moment.replace(microsecond=0).timestamp())]


def test_load_ratings_of_a_level_reads_only_that_level(panel: Role) -> None:
    level = panel.loops.get(candidate__name="Staff 0").level

    data = calibration.load_ratings(panel, level)

    assert set(data.level.tolist()) == {level.pk}
    assert data.rating.size == 4 * 3 * 2


def test_watermarks_match_one_aggregate_query(panel: Role) -> None:
    marks = calibration.watermarks(panel)

    assert dict(marks) == reference_marks(panel)
    for level_id, mark in marks.items():
        level = None if level_id is None else panel.loops.filter(level_id=level_id)[0].level
        assert calibration.watermark(panel, level) == mark


def test_watermarks_keep_the_open_seats_they_digest(panel: Role) -> None:
    marks = calibration.watermarks(panel)

    dan = Panelist.objects.get(user__username="dan")
    assert marks.seats == [
        visibility.OpenSeat(level=dan.interview.loop.level_id, loop=dan.interview.loop_id,
                            user=dan.user_id)
    ]  # fmt: skip


def test_a_run_reads_the_open_seats_and_the_exposure_once_for_all_its_scopes(
    panel: Role,
) -> None:
    seats_table, asked_table = Panelist._meta.db_table, InterviewQuestion._meta.db_table

    with CaptureQueriesContext(connection) as run:
        services.calibration_run_now(role=panel)

    queries = [query["sql"] for query in run.captured_queries]
    assert CalibrationSnapshot.objects.filter(role=panel).count() == 4  # all, L4, L5, L6
    assert sum(f'FROM "{seats_table}"' in sql for sql in queries) == 1
    assert sum(f'FROM "{asked_table}"' in sql for sql in queries) == 1


def test_each_scope_keeps_the_own_rows_of_its_own_open_seats(panel: Role) -> None:
    services.calibration_run_now(role=panel)

    snapshots = list(CalibrationSnapshot.objects.filter(role=panel).select_related("level"))
    for snapshot in snapshots:
        blind = visibility.open_seat_loops(calibration.loop_scope(panel, snapshot.level))
        own = snapshot.result["own_rows"]
        assert {int(user): entry["blind_in"] for user, entry in own.items()} == {
            user: sorted(loops) for user, loops in blind.items()
        }
    # Dan's draft is at L5: he is blind there and in the role, not at L4 or L6.
    dan = str(Panelist.objects.get(user__username="dan").user_id)
    holding = {s.level.name if s.level else None for s in snapshots if dan in s.result["own_rows"]}
    assert holding == {None, "L5"}


def test_the_watermarks_hold_the_ratings_they_describe(panel: Role) -> None:
    marks = calibration.watermarks(panel)

    assert as_tuples(marks.ratings()) == reference_ratings(panel)
    assert as_tuples(marks.ratings()) == as_tuples(calibration.load_ratings(panel))


def test_a_scope_without_ratings_reads_empty_arrays_and_no_level_marks(role: Role) -> None:
    data = calibration.load_ratings(role)
    marks = calibration.watermarks(role)

    assert data.rating.size == data.cards.scorecard.size == 0
    assert as_tuples(data) == []
    assert list(marks) == [None]
    assert marks[None] == calibration.watermark(role)


def test_each_stored_snapshot_is_what_compute_gives_for_its_scope(panel: Role) -> None:
    job = services.calibration_run_now(role=panel)

    assert job.status == "done"
    snapshots = list(CalibrationSnapshot.objects.filter(role=panel).select_related("level"))
    assert len(snapshots) == 4  # all, L4, L5, L6
    marks = calibration.watermarks(panel)
    same = {"computed_at", "watermark"}
    for snapshot in snapshots:
        snapshot.refresh_from_db()  # the stored JSON, as read back from the database
        body = jobs.compute(panel, snapshot.level)
        assert snapshot.watermark == snapshot.result["watermark"]
        assert snapshot.watermark == marks[snapshot.level.pk if snapshot.level else None]
        assert {k: v for k, v in snapshot.result.items() if k not in same} == body
    assert job.snapshot is not None and job.snapshot.level is None


def test_a_level_holding_every_rating_stores_the_role_result_under_its_scope(
    role: Role, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "l4.csv", rows("Junior", {0: "hire"}), FULL_HEADER)
    import_scorecards(path, "--role", ROLE, "--level", "L4")

    whole = calibrate_json("--role", ROLE)

    level = CalibrationSnapshot.objects.get(level__name="L4")
    assert level.result["scope"]["role"] == ROLE and level.result["scope"]["level"] == "L4"
    # Its own scope (a level's flags are exploratory), the role's period.
    assert level.result["scope"]["flags"] == "exploratory"
    assert level.result["scope"]["period"] == whole["scope"]["period"]
    assert level.result["watermark"] == level.watermark == whole["watermark"]
    same = {"scope", "computed_at", "watermark"}
    assert {k: v for k, v in level.result.items() if k not in same} == {
        k: v for k, v in whole.items() if k not in same
    }


def test_a_level_store_failing_fails_the_job_and_keeps_the_role_snapshot(
    role: Role, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_csv(tmp_path / "l4.csv", rows("Junior", {0: "hire"}), FULL_HEADER)
    import_scorecards(path, "--role", ROLE, "--level", "L4")
    no_snapshots()
    store = jobs.snapshot_store

    def store_but_not_the_level(**kwargs: Any) -> Any:
        if kwargs.get("level") is not None:
            raise OperationalError("server closed the connection unexpectedly")
        return store(**kwargs)

    monkeypatch.setattr(jobs, "snapshot_store", store_but_not_the_level)
    job = CalibrationJob.objects.create(role=role, status=CalibrationJob.Status.RUNNING)

    with pytest.raises(OperationalError):
        services.calibration_job_run(job_id=job.pk)

    job.refresh_from_db()
    assert (job.status, job.error) == (
        "failed",
        "OperationalError: server closed the connection unexpectedly",
    )
    # The role's is kept, keyed by its inputs: the retry stores only the level's.
    assert list(CalibrationSnapshot.objects.values_list("level", flat=True)) == [None]
    monkeypatch.setattr(jobs, "snapshot_store", store)
    assert services.calibration_run_now(role=role).status == "done"
    assert CalibrationSnapshot.objects.filter(level__name="L4").count() == 1


def no_snapshots() -> None:
    CalibrationJob.objects.update(snapshot=None)
    CalibrationSnapshot.objects.all().delete()
