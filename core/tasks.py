"""The core app's Celery tasks, for the worker's autodiscovery (which imports `core.tasks`)."""

from core.webhooks.tasks import webhook_deliver_task, webhook_sweep_task

__all__ = ["webhook_deliver_task", "webhook_sweep_task"]
