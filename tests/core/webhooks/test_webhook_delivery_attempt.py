"""Delivering an event: headers, retries with backoff, claims, leases, giving up."""

import socket
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from config.celery import app
from core.webhooks import services
from core.webhooks.models import WebhookDelivery, WebhookSubscription
from core.webhooks.tasks import webhook_deliver_task
from tests.conftest import at_once
from tests.core.webhooks.receiver import Receiver

Status = WebhookDelivery.Status


def emit() -> WebhookDelivery:
    """Emit a calibration.completed event outside any transaction's commit: its delivery, unsent."""
    event = services.webhook_event_emit(
        kind="calibration.completed",
        payload=lambda details: services.EventData(ids={"snapshot_id": 7}),
    )
    assert event is not None
    return event.deliveries.get()


def attempt(delivery: WebhookDelivery, **kwargs: Any) -> str:
    return services.webhook_delivery_attempt(delivery_id=delivery.pk, **kwargs)


def fresh(delivery: WebhookDelivery) -> WebhookDelivery:
    return WebhookDelivery.objects.get(pk=delivery.pk)


@pytest.fixture
def delivery(subscribe: Callable[..., WebhookSubscription]) -> WebhookDelivery:
    subscribe("calibration.completed")
    return emit()


def test_it_retries_a_refused_delivery_with_backoff_until_it_succeeds(
    delivery: WebhookDelivery, receiver: Receiver
) -> None:
    receiver.statuses = [500, 503]
    secret = delivery.subscription.secret

    assert attempt(delivery) == "retrying"
    first = fresh(delivery)
    assert (first.status, first.attempts, first.last_status_code) == (Status.PENDING, 1, 500)
    assert first.last_error == "HTTP 500: ok"
    assert first.next_attempt_at == first.last_attempt_at + timedelta(seconds=5)
    assert first.locked_until is None

    # Not due yet: nothing is sent.
    assert attempt(delivery, now=first.next_attempt_at - timedelta(seconds=1)) == "not due"
    assert len(receiver.received) == 1

    assert attempt(delivery, now=first.next_attempt_at) == "retrying"
    second = fresh(delivery)
    assert (second.attempts, second.last_status_code) == (2, 503)
    assert second.next_attempt_at == second.last_attempt_at + timedelta(minutes=5)

    assert attempt(delivery, now=second.next_attempt_at) == "succeeded"
    third = fresh(delivery)
    assert (third.status, third.attempts, third.last_status_code) == (Status.SUCCEEDED, 3, 200)
    assert (third.next_attempt_at, third.last_error) == (None, "")

    # Every attempt is the same event, signed afresh: receivers dedupe on its id.
    bodies = [Webhook(secret).verify(r.body, r.headers) for r in receiver.received]
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
    assert bodies == [bodies[0]] * 3
    assert receiver.acknowledged == [delivery.event.event_id]


def test_it_schedules_the_whole_backoff_and_then_gives_up(
    delivery: WebhookDelivery, receiver: Receiver
) -> None:
    receiver.statuses = [500] * services.MAX_ATTEMPTS
    waits = []

    while (outcome := attempt(delivery, now=fresh(delivery).next_attempt_at)) == "retrying":
        row = fresh(delivery)
        waits.append(row.next_attempt_at - row.last_attempt_at)

    assert outcome == "failed"
    assert waits == [
        timedelta(seconds=5),
        timedelta(minutes=5),
        timedelta(minutes=30),
        timedelta(hours=2),
        timedelta(hours=5),
        timedelta(hours=10),
        timedelta(hours=14),
    ]
    row = fresh(delivery)
    assert (row.status, row.attempts, row.next_attempt_at) == (Status.FAILED, 8, None)
    assert len(receiver.received) == 8


def test_it_records_a_network_error_and_retries(
    subscribe: Callable[..., WebhookSubscription],
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    subscribe("calibration.completed", url=f"http://127.0.0.1:{port}/hooks/")
    delivery = emit()

    assert attempt(delivery) == "retrying"

    row = fresh(delivery)
    assert (row.status, row.attempts, row.last_status_code) == (Status.PENDING, 1, None)
    assert row.last_error.startswith("ConnectionRefusedError")
    assert row.next_attempt_at == row.last_attempt_at + timedelta(seconds=5)


def test_it_follows_no_redirect(delivery: WebhookDelivery, receiver: Receiver) -> None:
    receiver.statuses = [302]

    assert attempt(delivery) == "retrying"

    assert [r.path for r in receiver.received] == ["/hooks/"]
    row = fresh(delivery)
    assert (row.last_status_code, row.last_error) == (302, "HTTP 302: ok")


def test_a_delivery_made_twice_sends_once(delivery: WebhookDelivery, receiver: Receiver) -> None:
    assert attempt(delivery) == "succeeded"
    assert attempt(delivery) == "done"

    assert len(receiver.received) == 1
    assert fresh(delivery).attempts == 1


def test_it_leaves_an_attempt_in_flight_elsewhere_alone(
    delivery: WebhookDelivery, receiver: Receiver
) -> None:
    now = timezone.now()
    # Another worker claimed attempt 1 a moment ago and is sending it.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=1, locked_until=now + services.LEASE, last_attempt_at=now
    )

    assert attempt(delivery, now=now) == "busy"

    assert receiver.received == []
    assert fresh(delivery).attempts == 1


def test_a_worker_that_died_mid_attempt_frees_the_delivery_when_its_lease_ends(
    delivery: WebhookDelivery, receiver: Receiver
) -> None:
    claimed = timezone.now() - services.LEASE - timedelta(seconds=1)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=1, locked_until=claimed + services.LEASE, last_attempt_at=claimed
    )

    assert attempt(delivery) == "succeeded"

    row = fresh(delivery)
    assert (row.status, row.attempts, row.locked_until) == (Status.SUCCEEDED, 2, None)
    assert len(receiver.received) == 1


def test_it_sends_nothing_to_a_subscription_made_inactive_meanwhile(
    delivery: WebhookDelivery, receiver: Receiver
) -> None:
    WebhookSubscription.objects.update(active=False)

    assert attempt(delivery) == "inactive"

    row = fresh(delivery)
    assert (row.status, row.attempts, row.next_attempt_at) == (Status.FAILED, 0, None)
    assert row.last_error == "The subscription is inactive."
    assert receiver.received == []


def test_a_delivery_deleted_meanwhile_is_nothing_to_do(delivery: WebhookDelivery) -> None:
    WebhookDelivery.objects.all().delete()

    assert attempt(delivery) == "gone"


def test_with_a_broker_it_hands_short_waits_to_it_and_leaves_long_ones_to_the_sweep(
    delivery: WebhookDelivery, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver.statuses = [500, 500, 500]
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    published = mock.patch.object(webhook_deliver_task, "apply_async")

    with published as apply_async:
        attempt(delivery)
        attempt(delivery, now=fresh(delivery).next_attempt_at)
        attempt(delivery, now=fresh(delivery).next_attempt_at)

    # 5 s and 5 min wait on the broker; 30 min is longer than it keeps a delayed task safely.
    assert apply_async.call_args_list == [
        mock.call(args=[delivery.pk], countdown=5.0),
        mock.call(args=[delivery.pk], countdown=300.0),
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_send_the_attempt_once(
    subscribe: Callable[..., WebhookSubscription], receiver: Receiver
) -> None:
    from django.db import connection

    from tests.conftest import need

    need("PostgreSQL (row locks)", connection.vendor == "postgresql")
    subscribe("calibration.completed")
    with mock.patch.object(services, "_publish_all"):  # committed at once: no task run here
        delivery = emit()

    outcomes = at_once([lambda: attempt(delivery), lambda: attempt(delivery)])

    # The loser either lost the claim, or read the row after the winner claimed or finished.
    assert sorted(outcomes) in (
        ["busy", "succeeded"],
        ["succeeded", "taken"],
        ["done", "succeeded"],
    )
    assert len(receiver.received) == 1
    assert fresh(delivery).attempts == 1
