"""The core app's Celery tasks, for the worker's autodiscovery (which imports `core.tasks`)."""

from core.outbox.tasks import email_send_task, email_sweep_task
from core.webhooks.tasks import webhook_deliver_task, webhook_sweep_task

__all__ = ["email_send_task", "email_sweep_task", "webhook_deliver_task", "webhook_sweep_task"]
