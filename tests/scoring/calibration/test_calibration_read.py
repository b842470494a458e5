"""How the calibration job reads ratings: load_ratings, watermarks and the stored copies.

On PostgreSQL these read scorecards and ratings as packed binary columns and
compute the watermarks from them in numpy; elsewhere they read plain rows and
aggregate in SQL. Each test checks the result against the ORM reading the same
ratings the straightforward way, so both paths must agree with it.
"""

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.db import OperationalError, connection
from django.db.models import Count, Max
from django.test.utils import CaptureQueriesContext

from interviews.models import InterviewQuestion, Panelist
from kit.models import Role
from scoring import visibility
from scoring.calibration import jobs, services
from scoring.calibration import ratings as calibration
from scoring.calibration.columns import integer_columns
from scoring.models import CalibrationJob, CalibrationSnapshot, QuestionRating
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
    read = QuestionRating.objects.filter(calibration._in_scope(role, None)).values_list(
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


def reference_marks(role: Role) -> dict[int | None, str]:
    """The watermarks as one aggregate query over the joined ratings computes them."""
    mark = {
        "n": Count("id"),
        "last": Max("id"),
        "changed": Max("scorecard__updated_at"),
        "decided": Max("scorecard__interview__loop__decided_at"),
        "decisions": Count("scorecard__interview__loop__decided_at", distinct=True),
    }
    rated = QuestionRating.objects.filter(calibration._in_scope(role, None))
    per_level = rated.values("scorecard__interview__loop__level_id").annotate(**mark).order_by()
    seats = calibration._seat_marks(visibility.open_seats({"role": role}))
    marks: dict[int | None, str] = {}
    for row in per_level:
        level = row["scorecard__interview__loop__level_id"]
        marks[level] = calibration._mark({**row, "level": level}, seats)
    whole = rated.aggregate(**mark)
    marks[None] = calibration._mark({**whole, "level": None}, seats)
    return marks


def test_load_ratings_reads_what_the_orm_reads(panel: Role) -> None:
    data = calibration.load_ratings(panel)

    assert as_tuples(data) == reference_ratings(panel)
    assert data.rating.size > 2 * 4 * 3 * 2  # both imports and the submitted panelist


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


def test_the_labels_are_read_without_parallel_workers_and_the_setting_ends_with_them(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_postgres()
    read_exposure = jobs.exposure
    during: list[str] = []

    def exposure(question_ids: list[int]) -> dict[int, tuple[int, int]]:
        during.append(parallel_workers())
        return read_exposure(question_ids)

    monkeypatch.setattr(jobs, "exposure", exposure)
    before = parallel_workers()

    body = jobs.compute(panel)

    # The statistics ran on two threads meanwhile: workers would take their cores.
    assert during == ["0"]
    assert before != "0" and parallel_workers() == before
    asked = read_exposure([row["question_id"] for row in body["questions"]])
    assert {
        row["question_id"]: (row["exposure"]["last_30_days"], row["exposure"]["last_90_days"])
        for row in body["questions"]
    } == {row["question_id"]: asked.get(row["question_id"], (0, 0)) for row in body["questions"]}
    assert any(asked.values())


def parallel_workers() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_parallel_workers_per_gather")
        return str(cursor.fetchone()[0])


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


def test_load_ratings_reuses_the_read_behind_live_watermarks(
    panel: Role, django_assert_num_queries: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the watermarks read the ratings themselves only on PostgreSQL")
    marks = calibration.watermarks(panel)

    # 1. the question and scale of each version rated
    with django_assert_num_queries(1):
        data = calibration.load_ratings(panel)

    assert as_tuples(data) == reference_ratings(panel)
    del marks
    # 1. scorecards 2. the largest ids (the bits a rating needs) 3. their ratings 4. versions
    with django_assert_num_queries(4):
        calibration.load_ratings(panel)


def test_packed_columns_that_do_not_fit_are_read_again_unpacked(panel: Role) -> None:
    queryset = (
        QuestionRating.objects.filter(calibration._in_scope(panel, None))
        .values_list("version_id", "rating")
        .order_by()
    )
    # Ratings run to 4: three bits, not one.
    read = integer_columns(queryset, ("version", "rating"), packed={"rating": 1})

    expected = sorted(queryset)
    assert sorted(zip(read["version"].tolist(), read["rating"].tolist(), strict=True)) == expected


def test_a_level_holding_every_rating_stores_the_role_result_under_its_scope(
    role: Role, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "l4.csv", rows("Junior", {0: "hire"}), FULL_HEADER)
    import_scorecards(path, "--role", ROLE, "--level", "L4")

    whole = calibrate_json("--role", ROLE)

    level = CalibrationSnapshot.objects.get(level__name="L4")
    assert level.result["scope"] == {"role": ROLE, "level": "L4"}
    assert level.result["watermark"] == level.watermark == whole["watermark"]
    same = {"scope", "computed_at", "watermark"}
    assert {k: v for k, v in level.result.items() if k not in same} == {
        k: v for k, v in whole.items() if k not in same
    }


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_level_holding_every_rating_is_stored_on_its_own_connection(
    role: Role, tmp_path: Path
) -> None:
    needs_postgres()
    path = write_csv(tmp_path / "l4.csv", rows("Junior", {0: "hire"}), FULL_HEADER)
    import_scorecards(path, "--role", ROLE, "--level", "L4")
    no_snapshots()  # the import's own run (Celery is eager here) stored them already
    backends = connected_backends()

    with CaptureQueriesContext(connection) as queries:
        job = services.calibration_run_now(role=role)

    # The level's snapshot was not copied from the role's row on this connection:
    # another one stored it, and is closed.
    assert not [query for query in queries if "result ||" in query["sql"]]
    # A closed connection's server process may take a moment to go.
    deadline = time.monotonic() + 5
    while connected_backends() > backends and time.monotonic() < deadline:
        pass
    assert connected_backends() == backends
    assert job.status == "done" and job.snapshot is not None
    whole, level = job.snapshot, CalibrationSnapshot.objects.get(level__name="L4")
    assert (whole.level, level.result["scope"]) == (None, {"role": ROLE, "level": "L4"})
    assert level.watermark == level.result["watermark"] == whole.watermark
    same = {"scope", "computed_at", "watermark"}
    level.refresh_from_db()
    whole.refresh_from_db()
    assert {k: v for k, v in level.result.items() if k not in same} == {
        k: v for k, v in whole.result.items() if k not in same
    }


@pytest.mark.django_db(transaction=True)
def test_a_level_store_failing_on_its_own_connection_fails_the_job(
    role: Role, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_postgres()
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


def connected_backends() -> int:
    """Other client connections to this database (not autovacuum's, not this one)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


# --- the two reads at once (PostgreSQL, outside a transaction) ------------------------------


def ratings_reads(queries: CaptureQueriesContext) -> int:
    """How many of the captured queries read the ratings table on this connection."""
    return sum('FROM "scoring_questionrating"' in query["sql"] for query in queries)


def needs_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the two reads run at once only on PostgreSQL")


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_ratings_are_read_on_a_second_connection(panel: Role) -> None:
    needs_postgres()

    with CaptureQueriesContext(connection) as queries:
        read = calibration._read(panel, None)

    # This connection read the scorecards, not the ratings nor their scorecards' id range.
    assert ratings_reads(queries) == 0
    assert not [query for query in queries if "min(t.id)" in query["sql"]]
    assert as_tuples(read.ratings()) == reference_ratings(panel)
    assert read.watermark_rows() == calibration._read(panel, None).watermark_rows()


@pytest.mark.django_db(transaction=True)
def test_the_second_connection_reads_in_the_snapshot_of_the_first(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    needs_postgres()
    before = reference_ratings(panel)
    rating = QuestionRating.objects.filter(calibration._in_scope(panel, None)).earliest("pk")
    changed_to = 1 if rating.rating != 1 else 2
    cards = calibration._cards

    def change_then_cards(role: Role, level: Any, times: bool = False) -> dict[str, Any]:
        # Another session commits a new rating after this read exported its snapshot.
        with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
            other.execute(
                "UPDATE scoring_questionrating SET rating = %s WHERE id = %s",
                [changed_to, rating.pk],
            )
        return cards(role, level, times)

    monkeypatch.setattr(calibration, "_cards", change_then_cards)
    read = calibration._read(panel, None)
    monkeypatch.undo()

    assert as_tuples(read.ratings()) == before
    # The change was committed: the next read sees it.
    assert as_tuples(calibration._read(panel, None).ratings()) == reference_ratings(panel) != before


@pytest.mark.django_db(transaction=True)
def test_the_open_seats_are_read_in_the_snapshot_of_the_ratings(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    needs_postgres()
    dan = Panelist.objects.get(user__username="dan")
    before = reference_ratings(panel)
    cards = calibration._cards

    def submit_then_cards(role: Role, level: Any, times: bool = False) -> dict[str, Any]:
        # dan submits his draft in another session once this read has its snapshot:
        # his seat closes and his rating counts, both after what this read sees.
        with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
            other.execute(
                "UPDATE scoring_scorecard SET status = 'submitted', submitted_at = now() "
                "WHERE interviewer_id = %s AND status = 'draft'",
                [dan.user_id],
            )
        return cards(role, level, times)

    monkeypatch.setattr(calibration, "_cards", submit_then_cards)
    read = calibration._read(panel, None, seats=True)
    monkeypatch.undo()

    assert as_tuples(read.ratings()) == before
    assert read.seats == [visibility.OpenSeat(dan.interview.loop.level_id, dan.interview.loop_id,
                                              dan.user_id)]  # fmt: skip
    again = calibration._read(panel, None, seats=True)
    assert again.seats == []
    assert as_tuples(again.ratings()) == reference_ratings(panel) != before


@pytest.mark.django_db(transaction=True)
def test_without_a_second_connection_the_ratings_are_read_on_the_first(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    needs_postgres()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    params = connection.get_connection_params
    monkeypatch.setattr(connection, "get_connection_params", lambda: {**params(), "port": closed})

    with CaptureQueriesContext(connection) as queries:
        read = calibration._read(panel, None)

    assert ratings_reads(queries) == 1
    assert as_tuples(read.ratings()) == reference_ratings(panel)


@pytest.mark.django_db(transaction=True)
def test_a_second_connection_the_server_refuses_falls_back_to_the_first(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    needs_postgres()
    in_snapshot = calibration._in_snapshot
    refused: list[Exception] = []

    def with_unknown_snapshot(snapshot: str, *args: Any) -> dict[str, np.ndarray]:
        # What a pooler handing out another server's connection would meet.
        try:
            return in_snapshot("00000003-0000001B-1", *args)
        except psycopg.Error as exc:
            refused.append(exc)
            raise

    monkeypatch.setattr(calibration, "_in_snapshot", with_unknown_snapshot)
    with CaptureQueriesContext(connection) as queries:
        read = calibration._read(panel, None)

    assert "snapshot" in str(refused[0])
    assert not isinstance(refused[0], psycopg.OperationalError)
    assert ratings_reads(queries) == 1
    assert as_tuples(read.ratings()) == reference_ratings(panel)


@pytest.mark.django_db(transaction=True)
def test_a_second_connection_queued_behind_a_migration_gives_up_rather_than_wait_on_the_first(
    panel: Role, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A migration asking for the ratings table waits for this read's transaction,
    and the second connection's read would queue behind it: a wait on itself that
    the server cannot see. The second connection gives up after LOCK_TIMEOUT."""
    import contextlib
    import threading

    import psycopg

    needs_postgres()
    settings = connection.get_connection_params()
    migration = psycopg.connect(**settings)
    migration.execute("SET statement_timeout = '20s'")  # the test fails rather than hangs
    watcher = psycopg.connect(**settings, autocommit=True)
    in_snapshot = calibration._in_snapshot
    gave_up: list[Exception] = []

    def lock_table() -> None:
        # A timeout here lets the test end; the assertions below say why.
        with contextlib.suppress(psycopg.Error):
            migration.execute("LOCK TABLE scoring_questionrating IN ACCESS EXCLUSIVE MODE")

    def behind_a_migration(*args: Any) -> dict[str, np.ndarray]:
        locking = threading.Thread(target=lock_table)
        locking.start()
        # Wait (on the server's word, not a timer) until the lock request queues.
        while not watcher.execute(
            "SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted", [migration.info.backend_pid]
        ).fetchone():
            pass
        try:
            return in_snapshot(*args)
        except psycopg.Error as exc:
            gave_up.append(exc)
            raise
        finally:
            calibration_threads.append(locking)

    calibration_threads: list[threading.Thread] = []
    monkeypatch.setattr(calibration, "LOCK_TIMEOUT", "200ms")
    monkeypatch.setattr(calibration, "_in_snapshot", behind_a_migration)
    try:
        read = calibration._read(panel, None)
    finally:
        for thread in calibration_threads:
            thread.join()
        migration.rollback()
        migration.close()
        watcher.close()

    assert isinstance(gave_up[0], psycopg.errors.LockNotAvailable)
    assert as_tuples(read.ratings()) == reference_ratings(panel)


def test_a_column_can_travel_in_the_bits_of_the_two_before_it(panel: Role) -> None:
    queryset = (
        QuestionRating.objects.filter(calibration._in_scope(panel, None))
        .values_list("scorecard_id", "version_id", "rating")
        .order_by()
    )

    read = integer_columns(
        queryset, ("card", "version", "rating"), packed={"version": 20, "rating": 4}
    )

    columns = (read["card"].tolist(), read["version"].tolist(), read["rating"].tolist())
    assert sorted(zip(*columns, strict=True)) == sorted(queryset)
