"""Webhook targets on private networks (SSRF): refused when subscribing and delivering."""

from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User

from core.models import AuditEvent
from core.webhooks import services
from core.webhooks.models import WebhookDelivery, WebhookSubscription
from tests.conftest import client_for
from tests.core.webhooks.receiver import Receiver
from tests.problems import problem

BODY = {"event_types": ["calibration.completed"]}


@pytest.fixture
def private_refused(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hooks",
        "http://10.1.2.3/hooks",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/hooks",
        "http://localhost:9000/hooks",
    ],
)
def test_it_refuses_to_subscribe_a_private_target(
    lead: User, private_refused: None, url: str
) -> None:
    response = client_for(lead).post("/api/v1/webhooks/", {**BODY, "url": url}, format="json")

    body = problem(response, 400, "webhook_target_private")
    assert list(body["errors"]) == ["url"]
    assert body["errors"]["url"][0]["code"] == "webhook_target_private"
    # Nothing written.
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.filter(action="webhook.created").exists()


def test_it_refuses_to_change_a_url_to_a_private_target(lead: User, private_refused: None) -> None:
    with mock.patch("socket.getaddrinfo", return_value=[(2, 1, 6, "", ("93.184.215.14", 443))]):
        hook = services.webhook_subscription_create(
            url="https://ats.example.com/hooks", event_types=["calibration.completed"], by=lead
        )

    response = client_for(lead).patch(
        f"/api/v1/webhooks/{hook.pk}/", {"url": "http://192.168.1.5/"}, format="json"
    )

    problem(response, 400, "webhook_target_private")
    hook.refresh_from_db()
    assert hook.url == "https://ats.example.com/hooks"
    assert not AuditEvent.objects.filter(action="webhook.changed").exists()


def test_it_allows_a_private_target_when_the_setting_is_on(lead: User) -> None:
    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "url": "http://10.1.2.3/hooks"}, format="json"
    )

    assert response.status_code == 201, response.content


def test_it_refuses_a_delivery_to_a_target_now_private(
    receiver: Receiver, subscribe: Any, settings: Any
) -> None:
    subscribe("calibration.completed")  # stored while private targets were allowed
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    event = services.webhook_event_emit(
        kind="calibration.completed", payload=lambda details: services.EventData(ids={"snapshot_id": 7})
    )
    assert event is not None
    delivery = event.deliveries.get()

    with mock.patch("socket.create_connection") as connect:
        outcome = services.webhook_delivery_attempt(delivery_id=delivery.pk)

    assert outcome == "failed"
    connect.assert_not_called()
    assert receiver.received == []
    delivery = WebhookDelivery.objects.get(pk=delivery.pk)
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.next_attempt_at is None
    assert delivery.last_error == "refused: 127.0.0.1 resolves to 127.0.0.1, not a public address"


def test_it_refuses_a_delivery_if_any_resolved_address_is_private(
    lead: User, settings: Any
) -> None:
    hook = services.webhook_subscription_create(
        url="https://ats.example.com/hooks", event_types=["calibration.completed"], by=lead
    )
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    event = services.webhook_event_emit(
        kind="calibration.completed", payload=lambda details: services.EventData(ids={"snapshot_id": 7})
    )
    assert event is not None
    answers = [(2, 1, 6, "", ("93.184.215.14", 443)), (2, 1, 6, "", ("10.0.0.7", 443))]

    with (
        mock.patch("socket.getaddrinfo", return_value=answers),
        mock.patch("socket.create_connection") as connect,
    ):
        outcome = services.webhook_delivery_attempt(delivery_id=event.deliveries.get().pk)

    assert outcome == "failed"
    connect.assert_not_called()
    delivery = WebhookDelivery.objects.get(subscription=hook)
    assert "10.0.0.7" in delivery.last_error
