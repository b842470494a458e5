"""Celery tasks for the outbox: thin interfaces that take ids and call one service."""

from smtplib import SMTPException

from celery import shared_task
from django.db import InterfaceError, OperationalError

from core.outbox import services


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError, SMTPException, OSError),
    retry_backoff=2,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=10,
)
def email_send_task(email_id: int) -> bool:
    return services.email_send(email_id=email_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def email_sweep_task() -> int:
    return services.emails_sweep()
