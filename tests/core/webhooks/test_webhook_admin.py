"""Webhooks in the admin: the secret on the page after the add, and never again."""

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from config.urls import urlpatterns  # noqa: F401  (admin autodiscovery)
from core.models import AuditEvent
from core.webhooks.models import WebhookDelivery, WebhookSubscription


@pytest.fixture
def root(client: Client, db: None) -> Client:
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_adding_a_subscription_shows_its_secret_once_and_audits_it(root: Client) -> None:
    response = root.post(
        "/admin/core/webhooksubscription/add/",
        {"url": "https://ats.example.com/hooks", "event_types": ["loop.decided"], "active": "on"},
    )

    assert response.status_code == 200
    subscription = WebhookSubscription.objects.get()
    assert subscription.event_types == ["loop.decided"]
    assert subscription.secret in response.content.decode()
    assert "no-store" in response["Cache-Control"]  # the admin's pages are never cached
    assert AuditEvent.objects.get().action == "webhook.created"
    change = root.get(f"/admin/core/webhooksubscription/{subscription.pk}/change/")
    assert change.status_code == 200
    assert subscription.secret not in change.content.decode()
    assert "whsec_" not in change.content.decode()


def test_it_refuses_an_ftp_target_writing_nothing(root: Client) -> None:
    response = root.post(
        "/admin/core/webhooksubscription/add/",
        {"url": "ftp://ats.example.com/hooks", "event_types": ["loop.decided"]},
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "url": ["Enter an http:// or https:// URL."]
    }
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.exists()


def test_deliveries_cannot_be_added_or_deleted_by_themselves(root: Client) -> None:
    assert root.get("/admin/core/webhookdelivery/add/").status_code == 403
    assert not WebhookDelivery.objects.exists()


def test_it_refuses_a_private_target_as_the_urls_error_writing_nothing(
    root: Client, settings: Any
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    response = root.post(
        "/admin/core/webhooksubscription/add/",
        {"url": "http://169.254.169.254/latest/", "event_types": ["loop.decided"]},
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "url": [
            "The URL's host 169.254.169.254 is or resolves to 169.254.169.254, a private, "
            "loopback, link-local or reserved address: webhooks go to public addresses only."
        ]
    }
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.exists()


def test_staff_without_the_details_right_may_not_ask_for_details_writing_nothing(
    client: Client, db: None
) -> None:
    staff = User.objects.create_user("sara", "sara@example.com", "pw", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["add_webhooksubscription"]))
    client.force_login(staff)

    response = client.post(
        "/admin/core/webhooksubscription/add/",
        {"url": "https://ats.example.com/hooks", "event_types": ["loop.decided"],
         "active": "on", "include_details": "on"},
    )  # fmt: skip

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "include_details": [
            "Only recruiters, or staff given the webhook details permission, may have contact "
            "details and free text in webhooks; leave include_details false."
        ]
    }
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.exists()
