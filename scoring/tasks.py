"""Celery tasks: thin interfaces that take ids and call one service."""

from typing import Any

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

from scoring.calibration import services
from scoring.scorecards import reminders


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def calibrate_task(self: Task, job_id: int) -> dict[str, Any]:
    """Run calibration job `job_id`; retried with backoff while the database is unreachable."""

    def progress(pct: int, stage: str) -> None:
        if not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"progress": pct, "stage": stage})

    job = services.calibration_job_run(job_id=job_id, progress=progress)
    return {"job": job_id, "ran": job is not None}


@shared_task(acks_late=True, reject_on_worker_lost=True)
def calibrate_all_task() -> int:
    return services.calibration_request_all()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def reminders_task() -> int:
    return reminders.reminders_send()


@shared_task
def sweep_calibration_jobs_task() -> int:
    return services.calibration_sweep()
