"""Prometheus metrics, served at /metrics to a scraper holding METRICS_TOKEN.

====================================  ==========================================
metric                                labels
====================================  ==========================================
http_requests_total                   route (the URL pattern, not the path), method, status
http_request_duration_seconds         route, method (histogram)
celery_tasks_total                    task, state (succeeded, failed, retried, ...)
celery_task_duration_seconds          task (histogram)
celery_queue_length                   queue (read from Redis at scrape time)
webhook_deliveries_total              outcome (succeeded, failed, retrying)
emails_total                          outcome (sent, failed)
====================================  ==========================================

Routes are URL patterns (``api/v1/interviews/<int:pk>/``), so the number of series stays
bounded whatever paths are requested; a path no pattern matched is ``<unmatched>``.

With PROMETHEUS_MULTIPROC_DIR set (an empty directory, made afresh on each start), every
process writes its counters there and a scrape adds them up: gunicorn's workers, and
Celery's when they share the directory on the same host. Without it, a scrape shows the
serving process only (runserver; tasks run eagerly there).
"""

import hmac
import os
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

UNMATCHED = "<unmatched>"

HTTP_REQUESTS = Counter(
    "http_requests", "Requests answered, by URL pattern", ["route", "method", "status"]
)
HTTP_DURATION = Histogram(
    "http_request_duration_seconds",
    "Time to answer a request, by URL pattern",
    ["route", "method"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
TASKS = Counter("celery_tasks", "Celery tasks run, by task and final state", ["task", "state"])
TASK_DURATION = Histogram(
    "celery_task_duration_seconds",
    "Celery task run time, by task",
    ["task"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900),
)
WEBHOOK_DELIVERIES = Counter(
    "webhook_deliveries", "Webhook delivery attempts, by outcome", ["outcome"]
)
EMAILS = Counter("emails", "Emails handed to the mail server, by outcome", ["outcome"])

# Celery's signal states, as the metric says them.
_STATES = {"SUCCESS": "succeeded", "FAILURE": "failed", "RETRY": "retried"}


def webhook_delivery_recorded(outcome: str) -> None:
    WEBHOOK_DELIVERIES.labels(outcome=outcome).inc()


def email_recorded(outcome: str) -> None:
    EMAILS.labels(outcome=outcome).inc()


def route_of(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNMATCHED
    return "/" + match.route if match.route else (match.view_name or UNMATCHED)


class MetricsMiddleware:
    """Count each request and time it, labelled by the URL pattern that answered it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        route = route_of(request)
        method = request.method or "-"
        HTTP_REQUESTS.labels(route=route, method=method, status=str(response.status_code)).inc()
        HTTP_DURATION.labels(route=route, method=method).observe(time.perf_counter() - started)
        return response


# Celery: counted and timed in the process that runs the task (the worker, or the web
# process in eager mode).
_task_started: dict[str, float] = {}


def task_started(task_id: str | None = None, **kwargs: Any) -> None:
    if task_id is not None:
        _task_started[task_id] = time.perf_counter()


def task_finished(
    task_id: str | None = None, task: Any = None, state: str | None = None, **kwargs: Any
) -> None:
    name = getattr(task, "name", None) or "unknown"
    TASKS.labels(task=name, state=_STATES.get(state or "", (state or "unknown").lower())).inc()
    started = _task_started.pop(task_id, None) if task_id is not None else None
    if started is not None:
        TASK_DURATION.labels(task=name).observe(time.perf_counter() - started)


class QueueCollector(Collector):
    """``celery_queue_length``: tasks waiting in each queue, asked of Redis at scrape time
    (nothing when tasks run eagerly or the broker is not Redis; nothing if it is down)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        url = settings.CELERY_BROKER_URL
        if settings.CELERY_TASK_ALWAYS_EAGER or urlsplit(url).scheme not in ("redis", "rediss"):
            return
        import redis

        queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
        family = GaugeMetricFamily(
            "celery_queue_length", "Tasks waiting in the broker's queue", labels=["queue"]
        )
        try:
            client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
            family.add_metric([queue], float(client.llen(queue)))
        except redis.RedisError:
            return
        yield family


def exposition() -> bytes:
    """Return every metric in Prometheus' text format."""
    if os.getenv("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    queues = CollectorRegistry()
    queues.register(QueueCollector())
    return generate_latest(registry) + generate_latest(queues)


def metrics(request: HttpRequest) -> HttpResponse:
    """Serve the metrics to a holder of METRICS_TOKEN (``Authorization: Bearer ...``):
    404 when no token is set, 401 without the right one."""
    expected = settings.METRICS_TOKEN
    if not expected:
        raise Http404
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        given.strip().encode(), expected.encode()
    ):
        response = HttpResponse("A bearer token is required.\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
