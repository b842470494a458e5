"""Calibration jobs: claimed once, idempotent on redelivery, failing loudly, swept when stranded.

`calibration_job_run` is what the Celery task calls; the task is run through
Celery's own `apply` (eager, in-process) where the task interface matters.
"""

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone

from kit.models import Role
from scoring.calibration import jobs as calibration
from scoring.calibration import services
from scoring.models import CalibrationJob, CalibrationSnapshot, Scorecard
from scoring.tasks import calibrate_task
from tests.scoring.calibration.conftest import Calibrated, panel_rows
from tests.scoring.calibration.helpers import ROLE, counts, import_scorecards, write_csv
from tests.support.factories import RoleFactory


@pytest.fixture
def queued(
    role: Role,
    tmp_path: Path,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> CalibrationJob:
    """The job the import queued, its publish never run (as if the broker had not delivered yet)."""
    path = write_csv(tmp_path / "panel.csv", panel_rows())
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L5")
    assert len(callbacks) == 1
    job = CalibrationJob.objects.get()
    assert (job.status, job.attempts) == ("queued", 0)
    assert not CalibrationSnapshot.objects.exists()
    return job


def test_a_queued_job_runs_and_stores_a_snapshot_per_scope(queued: CalibrationJob) -> None:
    job = services.calibration_job_run(job_id=queued.pk)

    assert job is not None
    assert (job.status, job.progress, job.stage, job.attempts, job.error) == (
        "done",
        100,
        "done",
        1,
        "",
    )
    assert job.started_at is not None and job.finished_at >= job.started_at
    scopes = sorted((s.level.name if s.level else "all") for s in CalibrationSnapshot.objects.all())
    assert scopes == ["L5", "all"]
    assert job.snapshot == CalibrationSnapshot.objects.get(level=None)


def test_a_level_whose_scorecards_are_all_a_shadows_gets_no_snapshot(
    queued: CalibrationJob, tmp_path: Path
) -> None:
    # The scopes are the levels with ratings that count, as the watermarks know them.
    path = write_csv(tmp_path / "l3.csv", [["cand-l3", "rater-1", "q-1", 3]])
    import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L3")
    Scorecard.objects.filter(interview__loop__level__name="L3").update(is_shadow=True)

    job = services.calibration_job_run(job_id=queued.pk)

    assert job is not None and job.status == "done"
    scopes = sorted((s.level.name if s.level else "all") for s in CalibrationSnapshot.objects.all())
    assert scopes == ["L5", "all"]


def test_running_a_done_job_again_is_a_no_op(calibrated: Calibrated) -> None:
    before = counts()
    row = CalibrationJob.objects.filter(pk=calibrated.job.pk).values().get()

    assert services.calibration_job_run(job_id=calibrated.job.pk) is None

    assert counts() == before
    assert CalibrationJob.objects.filter(pk=calibrated.job.pk).values().get() == row


def test_the_task_delivered_twice_stores_one_snapshot(queued: CalibrationJob) -> None:
    first = calibrate_task.apply(args=[queued.pk]).get()
    second = calibrate_task.apply(args=[queued.pk]).get()

    assert first == {"job": queued.pk, "ran": True}
    assert second == {"job": queued.pk, "ran": False}
    assert CalibrationSnapshot.objects.filter(level=None).count() == 1
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == ("done", 1)


def test_a_job_redelivered_while_marked_running_stores_one_snapshot(
    queued: CalibrationJob,
) -> None:
    done = services.calibration_job_run(job_id=queued.pk)
    assert done is not None
    snapshots = list(CalibrationSnapshot.objects.values_list("pk", flat=True))
    # The broker hands the task out again (the worker died before acknowledging it),
    # with the row still saying running.
    CalibrationJob.objects.filter(pk=queued.pk).update(status="running", snapshot=None)

    again = services.calibration_job_run(job_id=queued.pk)

    assert again is not None
    assert list(CalibrationSnapshot.objects.values_list("pk", flat=True)) == snapshots
    assert (again.status, again.attempts, again.snapshot_id) == ("done", 2, done.snapshot_id)


def test_a_snapshot_stored_first_by_another_run_is_kept(
    queued: CalibrationJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    role = queued.role
    first, created = calibration.snapshot_store(role=role)
    assert created
    # Another run stored the same inputs between this run's look and its insert.
    monkeypatch.setattr(calibration, "stored", lambda role, level, mark: None)

    again, created = calibration.snapshot_store(role=role)

    assert (again.pk, created) == (first.pk, False)
    assert list(CalibrationSnapshot.objects.filter(level=None).values_list("pk", flat=True)) == [
        first.pk
    ]
    assert again.result == first.result


def test_a_body_holding_numpy_floats_is_stored_as_plain_json(queued: CalibrationJob) -> None:
    import numpy as np

    # numpy's floats are Python floats to the standard library's encoder; they must
    # stay storable whichever encoder stores the body.
    body = {"model": {"mu": np.float64(2.5), "sd": [np.float64(0.25)]}}

    stored, created = calibration.snapshot_store(role=queued.role, mark="w", same_as=body)

    assert created
    stored.refresh_from_db()
    assert stored.watermark == "w"
    assert {k: v for k, v in stored.result.items() if k != "computed_at"} == {
        "model": {"mu": 2.5, "sd": [0.25]},
        "scope": {
            "role": queued.role.name,
            "level": None,
            "period": None,
            "flags": "confirmatory",
        },
        "watermark": "w",
    }


def test_a_worker_killed_mid_run_loses_nothing(queued: CalibrationJob) -> None:
    # Claimed and then killed before storing anything.
    CalibrationJob.objects.filter(pk=queued.pk).update(status="running", attempts=1, progress=35)

    job = services.calibration_job_run(job_id=queued.pk)

    assert job is not None
    assert (job.status, job.attempts, job.progress) == ("done", 2, 100)
    assert job.snapshot is not None
    assert job.snapshot.result["inputs"]["ratings"] == 140


def patch_snapshot_store(monkeypatch: pytest.MonkeyPatch, replacement: Any) -> None:
    """Replace the store step wherever calibration_job_run looks it up (the DB edge)."""
    monkeypatch.setattr(calibration, "snapshot_store", replacement)
    # scoring.calibration.services has imported the name itself in some versions.
    monkeypatch.setattr(services, "snapshot_store", replacement, raising=False)


def test_a_failing_computation_marks_the_job_failed_and_re_raises(
    queued: CalibrationJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(**kwargs: Any) -> None:
        raise OperationalError("server closed the connection unexpectedly")

    patch_snapshot_store(monkeypatch, unreachable)

    with pytest.raises(OperationalError):
        services.calibration_job_run(job_id=queued.pk)

    queued.refresh_from_db()
    assert (queued.status, queued.error, queued.snapshot) == (
        "failed",
        "OperationalError: server closed the connection unexpectedly",
        None,
    )
    assert queued.finished_at is None
    assert not CalibrationSnapshot.objects.exists()


def test_a_failed_job_succeeds_when_retried(
    queued: CalibrationJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = calibration.snapshot_store
    calls: list[int] = []

    def flaky(**kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("the database system is starting up")
        return store(**kwargs)

    patch_snapshot_store(monkeypatch, flaky)
    with pytest.raises(OperationalError):
        services.calibration_job_run(job_id=queued.pk)

    job = services.calibration_job_run(job_id=queued.pk)

    assert job is not None
    assert (job.status, job.error, job.attempts) == ("done", "", 2)
    assert CalibrationSnapshot.objects.filter(level=None).count() == 1


def test_progress_is_recorded_on_the_job_as_it_goes(queued: CalibrationJob) -> None:
    seen: list[tuple[int, str, int]] = []

    def progress(pct: int, stage: str) -> None:
        # What a page polling the job row would read at this moment.
        seen.append((pct, stage, CalibrationJob.objects.get(pk=queued.pk).progress))

    services.calibration_job_run(job_id=queued.pk, progress=progress)

    percentages = [pct for pct, _, _ in seen]
    assert percentages == sorted(percentages)
    assert percentages[0] > 0 and percentages[-1] < 100
    assert all(pct == stored for pct, _, stored in seen)
    stages = [stage for _, stage, _ in seen]
    assert stages[0] == "all levels: reading ratings"
    assert any(stage.startswith("L5: ") for stage in stages)


def test_running_now_leaves_a_queued_job_alone(queued: CalibrationJob) -> None:
    job = services.calibration_run_now(role=queued.role)

    assert job.pk != queued.pk
    assert job.status == "done"
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == ("queued", 0)


# --- the sweeper ---------------------------------------------------------------------------


@pytest.fixture
def publishes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record publishes instead of sending them (the broker is the edge)."""
    sent: list[int] = []
    monkeypatch.setattr(services, "_publish", sent.append)
    return sent


def aged(job: CalibrationJob, seconds: int) -> CalibrationJob:
    CalibrationJob.objects.filter(pk=job.pk).update(
        requested_at=timezone.now() - timedelta(seconds=seconds)
    )
    return job


def test_the_sweep_publishes_again_only_jobs_queued_too_long(
    db: None, publishes: list[int]
) -> None:
    stranded = aged(CalibrationJob.objects.create(role=RoleFactory(name="Stranded")), 600)
    aged(CalibrationJob.objects.create(role=RoleFactory(name="Fresh")), 5)
    for status in ("running", "done", "failed"):
        aged(CalibrationJob.objects.create(role=RoleFactory(name=status), status=status), 600)
    before = list(CalibrationJob.objects.order_by("pk").values())

    assert services.calibration_sweep(older_than_seconds=60) == 1

    assert publishes == [stranded.pk]
    assert list(CalibrationJob.objects.order_by("pk").values()) == before


def test_the_sweep_publishes_nothing_when_nothing_is_stranded(
    db: None, publishes: list[int]
) -> None:
    aged(CalibrationJob.objects.create(role=RoleFactory(name="Fresh")), 5)

    assert services.calibration_sweep(older_than_seconds=60) == 0
    assert publishes == []


def test_a_swept_job_runs_once_even_if_its_first_publish_arrives_too(
    queued: CalibrationJob,
) -> None:
    aged(queued, 600)

    # Eager Celery: the sweep's publish runs the job here and now.
    assert services.calibration_sweep(older_than_seconds=60) == 1
    # The original publish finally arrives.
    assert calibrate_task.apply(args=[queued.pk]).get() == {"job": queued.pk, "ran": False}

    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == ("done", 1)
    assert CalibrationSnapshot.objects.filter(level=None).count() == 1


def running_since(job: CalibrationJob, seconds: int, attempts: int = 1) -> CalibrationJob:
    CalibrationJob.objects.filter(pk=job.pk).update(
        status="running", attempts=attempts, started_at=timezone.now() - timedelta(seconds=seconds)
    )
    return job


def test_the_sweep_publishes_again_a_job_whose_run_was_lost(db: None, publishes: list[int]) -> None:
    lost = running_since(CalibrationJob.objects.create(role=RoleFactory(name="Lost")), 7200)
    running_since(CalibrationJob.objects.create(role=RoleFactory(name="Busy")), 600)
    before = list(CalibrationJob.objects.order_by("pk").values())

    assert services.calibration_sweep(older_than_seconds=60, stuck_after_seconds=1800) == 1

    assert publishes == [lost.pk]
    assert list(CalibrationJob.objects.order_by("pk").values()) == before


def test_the_sweep_gives_up_on_a_job_that_never_finishes(db: None, publishes: list[int]) -> None:
    poison = running_since(
        CalibrationJob.objects.create(role=RoleFactory(name="Poison")), 7200, attempts=5
    )

    assert services.calibration_sweep(older_than_seconds=60, stuck_after_seconds=1800) == 0

    assert publishes == []
    poison.refresh_from_db()
    assert (poison.status, poison.error) == (
        "failed",
        "Gave up after 5 attempts that never finished.",
    )
    assert poison.finished_at is not None


def test_a_lost_run_is_done_again_once(queued: CalibrationJob) -> None:
    running_since(queued, 7200)

    # Eager Celery: the sweep's publish runs the job here and now.
    assert services.calibration_sweep(stuck_after_seconds=1800) == 1
    assert services.calibration_sweep(stuck_after_seconds=1800) == 0

    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == ("done", 2)
    assert CalibrationSnapshot.objects.filter(level=None).count() == 1


def test_the_nightly_run_queues_one_job_per_role_with_ratings(
    queued: CalibrationJob, publishes: list[int]
) -> None:
    RoleFactory(name="Without ratings")

    assert services.calibration_request_all() == 1

    # The role already had a queued job: the nightly request joins it.
    assert list(CalibrationJob.objects.values_list("pk", flat=True)) == [queued.pk]
    assert publishes == []
