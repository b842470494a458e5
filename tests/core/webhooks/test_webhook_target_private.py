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
        kind="calibration.completed",
        payload=lambda details: services.EventData(ids={"snapshot_id": 7}),
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
        kind="calibration.completed",
        payload=lambda details: services.EventData(ids={"snapshot_id": 7}),
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


# IPv6 transition forms that carry a private, loopback or link-local IPv4 address.
EMBEDDING_PRIVATE_IPV4 = [
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "2002:c0a8:101::",  # 6to4 of 192.168.1.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1 (XORed)
    "2001:0:a00:1::1",  # Teredo, server 10.0.0.1
    "::127.0.0.1",  # IPv4-compatible
    "::ffff:10.0.0.1",  # IPv4-mapped
    "64:ff9b::7f00:1",  # NAT64 well-known prefix, 127.0.0.1
    "64:ff9b:1::a00:1",  # NAT64 local-use prefix
]


@pytest.mark.parametrize("address", EMBEDDING_PRIVATE_IPV4)
def test_it_refuses_an_ipv6_form_embedding_a_private_ipv4_address(
    lead: User, private_refused: None, address: str
) -> None:
    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "url": f"http://[{address}]/hooks"}, format="json"
    )

    body = problem(response, 400, "webhook_target_private")
    assert body["errors"]["url"][0]["code"] == "webhook_target_private"
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.filter(action="webhook.created").exists()


def test_it_still_takes_a_6to4_address_of_a_public_ipv4(lead: User, private_refused: None) -> None:
    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "url": "http://[2002:5db8:d70e::1]/hooks"}, format="json"
    )

    assert response.status_code == 201, response.content


@pytest.mark.parametrize("address", EMBEDDING_PRIVATE_IPV4)
def test_it_refuses_a_delivery_to_a_name_now_resolving_to_such_a_form(
    lead: User, settings: Any, address: str
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    public = [(10, 1, 6, "", ("2606:2800:220:1::1", 443, 0, 0))]
    with mock.patch("socket.getaddrinfo", return_value=public):
        hook = services.webhook_subscription_create(
            url="https://ats.example.com/hooks", event_types=["calibration.completed"], by=lead
        )
    event = services.webhook_event_emit(
        kind="calibration.completed",
        payload=lambda details: services.EventData(ids={"snapshot_id": 7}),
    )
    assert event is not None

    with (
        mock.patch("socket.getaddrinfo", return_value=[(10, 1, 6, "", (address, 443, 0, 0))]),
        mock.patch("socket.create_connection") as connect,
    ):
        outcome = services.webhook_delivery_attempt(delivery_id=event.deliveries.get().pk)

    assert outcome == "failed"
    connect.assert_not_called()
    delivery = WebhookDelivery.objects.get(subscription=hook)
    assert delivery.last_error == (
        f"refused: ats.example.com resolves to {address}, not a public address"
    )
