import os

from celery import Celery, signals

from core import logs, metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("interviewkit")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The worker and beat log in the site's format (core/logs.py), each task's lines with the
# request id of the request that queued it; tasks are counted and timed (core/metrics.py).
signals.setup_logging.connect(logs.celery_setup_logging, weak=False)
signals.before_task_publish.connect(logs.task_published, weak=False)
signals.task_prerun.connect(logs.task_started, weak=False)
signals.task_postrun.connect(logs.task_finished, weak=False)
signals.task_prerun.connect(metrics.task_started, weak=False)
signals.task_postrun.connect(metrics.task_finished, weak=False)
