"""Celery tasks for webhooks: thin interfaces that take ids and call one service.

Found by the worker through core/tasks.py (Celery's autodiscovery imports each app's
`tasks` module); the task names are this module's path.
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from core.webhooks import services


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def webhook_deliver_task(delivery_id: int) -> str:
    """Make delivery `delivery_id`'s next attempt; retried while the database is unreachable
    (the attempt's own retries are the service's, on the delivery row)."""
    return services.webhook_delivery_attempt(delivery_id=delivery_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def webhook_sweep_task() -> int:
    return services.webhook_deliveries_sweep()
