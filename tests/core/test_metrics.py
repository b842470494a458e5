"""GET /metrics (core/metrics.py): Prometheus' format, for a holder of METRICS_TOKEN only."""

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from prometheus_client import REGISTRY

from core.accounts.models import Notice
from core.outbox import services as outbox
from core.outbox.models import OutgoingEmail
from tests.conftest import client_for, need
from tests.core.test_logs import log_a_line

TOKEN = "metrics-scrape-token-0123456789"


@pytest.fixture
def scrape(settings: Any) -> Iterator[Client]:
    settings.METRICS_TOKEN = TOKEN
    yield Client(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_it_answers_404_when_no_token_is_set(db: None, settings: Any) -> None:
    settings.METRICS_TOKEN = ""

    response = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer anything")

    assert response.status_code == 404
    assert b"http_requests_total" not in response.content


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Token {TOKEN}", TOKEN])
def test_it_refuses_a_scrape_without_the_token(
    db: None, settings: Any, authorization: str | None
) -> None:
    settings.METRICS_TOKEN = TOKEN
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}

    response = Client().get("/metrics", **headers)  # type: ignore[arg-type]

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert response.content == b"A bearer token is required.\n"


def test_it_counts_and_times_requests_by_route_not_path(scrape: Client, recruiter: User) -> None:
    route = "/api/v1/interviews/<int:pk>/"
    before = sample("http_requests_total", route=route, method="GET", status="404")
    api = client_for(recruiter)

    api.get("/api/v1/interviews/999991/")
    api.get("/api/v1/interviews/999992/")
    response = scrape.get("/metrics")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    text = response.content.decode()
    assert sample("http_requests_total", route=route, method="GET", status="404") == before + 2
    assert "interviews/999991" not in text
    assert (
        'http_request_duration_seconds_count{method="GET",route="/api/v1/interviews/<int:pk>/"}'
    ) in text
    assert "celery_tasks_total" in text
    assert "webhook_deliveries_total" in text and "emails_total" in text


def test_a_path_no_route_matched_is_counted_as_unmatched(scrape: Client) -> None:
    before = sample("http_requests_total", route="<unmatched>", method="GET", status="404")

    Client().get("/no-such-page-7/")

    assert sample("http_requests_total", route="<unmatched>", method="GET", status="404") == (
        before + 1
    )


def test_it_counts_and_times_tasks_by_name_and_state() -> None:
    name = "tests.core.test_logs.log_a_line"
    before = sample("celery_tasks_total", task=name, state="succeeded")
    timed = sample("celery_task_duration_seconds_count", task=name)

    log_a_line.delay()

    assert sample("celery_tasks_total", task=name, state="succeeded") == before + 1
    assert sample("celery_task_duration_seconds_count", task=name) == timed + 1


def test_it_counts_emails_sent(recruiter: User) -> None:
    before = sample("emails_total", outcome="sent")
    email = OutgoingEmail.objects.create(
        user=recruiter, kind=Notice.EXERCISE_INVITED, subject="s", text="t", html="<p>t</p>"
    )

    outbox.email_send(email_id=email.pk)

    assert len(mail.outbox) == 1
    assert sample("emails_total", outcome="sent") == before + 1


def test_it_reads_the_queue_length_from_redis(scrape: Client, settings: Any) -> None:
    url = os.environ.get("REDIS_URL", "")
    need("Redis (REDIS_URL)", bool(url))
    import redis

    client = redis.Redis.from_url(url)
    queue = "metrics-test-queue"
    client.delete(queue)
    client.rpush(queue, "a", "b", "c")
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = url
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    try:
        text = scrape.get("/metrics").content.decode()
    finally:
        client.delete(queue)

    assert f'celery_queue_length{{queue="{queue}"}} 3.0' in text


def test_it_has_no_queue_length_when_tasks_run_eagerly(scrape: Client) -> None:
    assert "celery_queue_length" not in scrape.get("/metrics").content.decode()
