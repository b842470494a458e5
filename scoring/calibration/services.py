"""Writes for calibration: requesting and running jobs, the nightly sweep, historical
imports. Exercises have their own home, scoring/exercises/."""

import logging
from collections.abc import Callable
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from kit.models import Level, Role
from scoring.calibration import history, queries
from scoring.calibration import jobs as calibration_jobs
from scoring.calibration import ratings as calibration_ratings
from scoring.calibration.jobs import Progress
from scoring.models import (
    CalibrationJob,
    CalibrationSnapshot,
)

log = logging.getLogger(__name__)


# --- calibration ----------------------------------------------------------------------------


def calibration_request(*, role: Role, by: User | None = None) -> CalibrationJob:
    """Ask for a recalculation of the role, collapsing bursts into one run.

    1. If a job for the role is already queued (not yet started), it will read
       the newest ratings when it runs: return it and enqueue nothing.
    2. Otherwise create a queued job (a partial unique index allows one per
       role, so two concurrent requests cannot both create one) and publish its
       task after the transaction commits, delayed a few seconds so a burst of
       submissions lands in the same run.
    """
    # Compiled once (calibration/queries.py): this runs on every submission.
    queued = queries.queued_job(role.pk)
    if queued is not None:
        return queued
    try:
        with transaction.atomic():
            job = CalibrationJob.objects.create(role=role, requested_by=by)
    except IntegrityError:
        return CalibrationJob.objects.get(role=role, status=CalibrationJob.Status.QUEUED)
    transaction.on_commit(lambda: _publish(job.pk))
    return job


def _publish(job_id: int) -> None:
    from scoring.tasks import calibrate_task

    try:
        calibrate_task.apply_async(args=[job_id], countdown=settings.CALIBRATION_COLLAPSE_SECONDS)
    except Exception:
        # The broker is down: the job stays queued in the database and the
        # sweeper publishes it again once the broker is back. Submitting must not fail.
        log.warning("could not publish calibration job %s; it stays queued", job_id, exc_info=True)


def calibration_job_run(*, job_id: int, progress: Progress | None = None) -> CalibrationJob | None:
    """Run a queued (or redelivered) calibration job; a finished job is left alone.

    1. Claim the job with a conditional UPDATE; a job already done is a no-op,
       so a task delivered twice stores nothing twice.
    2. Store the role-wide snapshot, then one per level that has ratings; each
       is keyed by its inputs watermark, so unchanged inputs add no snapshot.
    3. Record progress on the job row as it goes, for the page to show.
    """
    now = timezone.now()
    claimed = (
        CalibrationJob.objects.filter(pk=job_id)
        .exclude(status=CalibrationJob.Status.DONE)
        .update(status=CalibrationJob.Status.RUNNING, started_at=now, attempts=F("attempts") + 1)
    )
    if not claimed:
        return None
    job = CalibrationJob.objects.select_related("role").get(pk=job_id)

    def report(pct: int, stage: str) -> None:
        CalibrationJob.objects.filter(pk=job_id).update(progress=pct, stage=stage[:80])
        if progress:
            progress(pct, stage)

    try:
        marks = calibration_ratings.watermarks(job.role)
        # The watermarks are keyed by the levels with ratings: no join over the
        # role's scorecards (most of a second on a million ratings) to find them.
        levels = list(Level.objects.filter(pk__in=[pk for pk in marks if pk]).order_by("rank"))
        # Read the role's ratings once, and only if some scope has new inputs.
        fresh = any(
            calibration_jobs.stored(job.role, s, marks[s.pk if s else None]) is None
            for s in [None, *levels]
        )
        data = marks.ratings() if fresh else None
        main = _scopes_store(job.role, levels, marks, data, report)
    except Exception as exc:
        CalibrationJob.objects.filter(pk=job_id).update(
            status=CalibrationJob.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    CalibrationJob.objects.filter(pk=job_id).update(
        status=CalibrationJob.Status.DONE,
        finished_at=timezone.now(),
        progress=100,
        stage="done",
        snapshot=main,
        error="",
    )
    job.refresh_from_db()
    # The stored snapshot, as just written: not its megabytes read back and parsed.
    job.snapshot = main
    return job


def _scopes_store(
    role: Role,
    levels: list[Level],
    marks: calibration_ratings.Watermarks,
    data: calibration_ratings.Ratings | None,
    report: Progress,
) -> CalibrationSnapshot | None:
    """Store the snapshot of each scope, the role's then each level's; return the role's.

    A level holding every rating of the role has the role's very result: it is
    stored under its own scope, not computed again.
    """
    scopes: list[Level | None] = [None, *levels]
    share = 90 // len(scopes)

    def progress_of(n: int, level: Level | None) -> Progress:
        label = level.name if level else "all levels"
        return lambda pct, stage: report(5 + n * share + pct * share // 100, f"{label}: {stage}")

    whole = (
        levels[0]
        if len(levels) == 1
        and data is not None
        and bool(np.all(data.cards.level[data.rated] == levels[0].pk))
        else None
    )
    # One read of each question's exposure for all the scopes.
    seen = calibration_jobs.Exposure()
    main = None
    for n, level in enumerate(scopes):
        snapshot, _ = calibration_jobs.snapshot_store(
            role=role,
            level=level,
            progress=progress_of(n, level),
            data=data,
            mark=marks[level.pk if level else None],
            same_as=main.result if level == whole and main is not None else None,
            # The open seats the watermarks digest: each scope takes its level's.
            seats=marks.seats,
            seen=seen,
        )
        main = main or snapshot
    return main


def calibration_request_all() -> int:
    """Queue a recalculation for every role with submitted ratings (the nightly run)."""
    roles = list(Role.objects.filter(loops__interviews__scorecards__status="submitted").distinct())
    for role in roles:
        calibration_request(role=role)
    return len(roles)


# A job claimed this many times without finishing crashes whoever runs it: stop.
CALIBRATION_MAX_ATTEMPTS = 5


def calibration_sweep(*, older_than_seconds: int = 60, stuck_after_seconds: int = 1800) -> int:
    """Publish again the jobs still queued long after their task should have run,
    and the jobs running so long that their task must have been lost.

    Covers a broker that was down when the job was requested (the job waited in
    the database and runs once the broker is back) and a broker restarted
    without its data while a job ran (the unacknowledged task is gone, so no
    redelivery will come). Claiming makes a duplicate publish harmless, and a
    rerun stores nothing twice (snapshots are keyed by their inputs). A job
    claimed CALIBRATION_MAX_ATTEMPTS times without finishing is marked failed.
    """
    now = timezone.now()
    stuck = CalibrationJob.objects.filter(
        status=CalibrationJob.Status.RUNNING,
        started_at__lte=now - timedelta(seconds=stuck_after_seconds),
    )
    stuck.filter(attempts__gte=CALIBRATION_MAX_ATTEMPTS).update(
        status=CalibrationJob.Status.FAILED,
        finished_at=now,
        error=f"Gave up after {CALIBRATION_MAX_ATTEMPTS} attempts that never finished.",
    )
    cutoff = now - timedelta(seconds=older_than_seconds)
    stranded = list(
        CalibrationJob.objects.filter(
            Q(status=CalibrationJob.Status.QUEUED, requested_at__lte=cutoff)
            | Q(pk__in=stuck.filter(attempts__lt=CALIBRATION_MAX_ATTEMPTS).values("pk"))
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for job_id in stranded:
        _publish(job_id)
    return len(stranded)


def calibration_run_now(*, role: Role, by: User | None = None) -> CalibrationJob:
    """Run a calibration of the role in this process (the `calibrate` command's path).

    The job row is created already running, so it neither waits for nor blocks
    the queued job a worker may be about to take; both store by watermark, so
    identical inputs still give one snapshot.
    """
    job = CalibrationJob.objects.create(
        role=role, requested_by=by, status=CalibrationJob.Status.RUNNING
    )
    finished = calibration_job_run(job_id=job.pk)
    assert finished is not None
    return finished


# --- historical scorecards ---------------------------------------------------------------


@transaction.atomic
def scorecards_import(
    *,
    path: str,
    role_name: str | None = None,
    level_name: str | None = None,
    scale_max: int = 4,
    progress: Callable[[str, int], None] | None = None,
) -> history.HistoryImportResult:
    """Import historical ratings from a CSV file in one transaction, then queue a recalculation.

    The role (`role_name`, created if new; else the only role) and the level
    (`level_name`, else the lowest) are resolved inside the transaction, so a
    refused file creates neither. See scoring.history for the rules and the two
    import paths.
    """
    role, level = history.import_scope(role_name, level_name)
    result = history.ratings_import(
        path=path, role=role, level=level, scale_max=scale_max,
        progress=progress or (lambda stage, n: None),
    )  # fmt: skip
    calibration_request(role=role)
    return result
