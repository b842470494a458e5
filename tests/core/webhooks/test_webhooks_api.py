"""The webhook API: subscriptions, their delivery logs, replays; and who may use them."""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from core.api.idempotency import IdempotentRequest
from core.models import AuditEvent
from core.webhooks import services
from core.webhooks.api import SECRET_NOT_KEPT
from core.webhooks.models import WebhookDelivery, WebhookEvent, WebhookSubscription
from tests.conftest import client_for
from tests.core.webhooks.receiver import Receiver
from tests.problems import detail, field_errors, not_signed_in, problem

URL = "https://ats.example.com/hooks"
BODY = {"url": URL, "event_types": ["scorecard.submitted", "loop.decided"]}


def when(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def shown(subscription: WebhookSubscription) -> dict[str, Any]:
    subscription.refresh_from_db()
    return {
        "id": subscription.pk,
        "url": subscription.url,
        "event_types": subscription.event_types,
        "active": subscription.active,
        "include_details": subscription.include_details,
        "created_by": subscription.created_by.username if subscription.created_by else None,
        "created_at": when(subscription.created_at),
    }


def emitted(kind: str = "calibration.completed") -> WebhookEvent:
    event = services.webhook_event_emit(
        kind=kind, payload=lambda details: services.EventData(ids={"snapshot_id": 7})
    )
    assert event is not None
    return event


@pytest.fixture
def hook(lead: User) -> WebhookSubscription:
    return services.webhook_subscription_create(
        url=URL, event_types=["calibration.completed"], by=lead
    )


# --- creating ----------------------------------------------------------------------------------


def test_a_recruiter_subscribes_a_url_and_is_shown_its_secret_once(recruiter: User) -> None:
    api = client_for(recruiter)

    response = api.post("/api/v1/webhooks/", {**BODY, "include_details": True}, format="json")

    assert response.status_code == 201, response.content
    subscription = WebhookSubscription.objects.get()
    assert response.json() == {
        **shown(subscription),
        "include_details": True,
        "created_by": "rita",
        "secret": subscription.secret,
    }
    assert subscription.secret.startswith("whsec_")
    # Never again: not in the subscription, not in the list.
    detail_read = api.get(f"/api/v1/webhooks/{subscription.pk}/")
    assert detail_read.json() == shown(subscription)
    listed = api.get("/api/v1/webhooks/")
    assert listed.json()["results"] == [shown(subscription)]
    for read in (detail_read, listed):
        assert subscription.secret.encode() not in read.content
        assert b"whsec_" not in read.content
    event = AuditEvent.objects.get(action="webhook.created")
    assert (event.actor, event.target) == (recruiter, f"webhook {subscription.pk} ({URL})")
    assert subscription.secret not in str(event.data)


def test_a_lead_manages_webhooks_too(lead: User) -> None:
    response = client_for(lead).post("/api/v1/webhooks/", BODY, format="json")

    assert response.status_code == 201, response.content
    assert WebhookSubscription.objects.get().created_by == lead


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://ats.example.com/hooks", "Enter an http:// or https:// URL."),
        ("javascript:alert(1)", "Enter an http:// or https:// URL."),
        ("ats.example.com/hooks", "Enter an http:// or https:// URL."),
        (
            "https://user:secret@ats.example.com/hooks",
            "Leave credentials out of the URL: receivers verify the signature instead.",
        ),
    ],
)
def test_it_refuses_a_target_that_is_not_an_http_url_writing_nothing(
    lead: User, url: str, message: str
) -> None:
    response = client_for(lead).post("/api/v1/webhooks/", {**BODY, "url": url}, format="json")

    assert field_errors(response) == {"url": [message]}
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize(
    ("event_types", "errors"),
    [
        ([], {"event_types": ["This list may not be empty."]}),
        (["scorecard.deleted"], {"event_types.0": ['"scorecard.deleted" is not a valid choice.']}),
    ],
)
def test_it_refuses_no_event_types_or_unknown_ones_writing_nothing(
    lead: User, event_types: list[str], errors: dict[str, list[str]]
) -> None:
    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "event_types": event_types}, format="json"
    )

    assert field_errors(response) == errors
    assert not WebhookSubscription.objects.exists()


# --- who may -----------------------------------------------------------------------------------


def test_an_interviewer_may_neither_list_nor_create_webhooks(
    interviewer: User, hook: WebhookSubscription
) -> None:
    api = client_for(interviewer)

    listed = api.get("/api/v1/webhooks/")
    created = api.post("/api/v1/webhooks/", BODY, format="json")

    for response in (listed, created):
        assert (
            detail(response, 403, "permission_denied")
            == "Only calibration leads and recruiters manage webhooks."
        )
    assert WebhookSubscription.objects.count() == 1


def test_an_interviewer_gets_404_for_a_subscription_its_log_and_its_replays(
    interviewer: User, hook: WebhookSubscription
) -> None:
    delivery = emitted().deliveries.get()
    api = client_for(interviewer)
    before = shown(hook)

    responses = [
        api.get(f"/api/v1/webhooks/{hook.pk}/"),
        api.patch(f"/api/v1/webhooks/{hook.pk}/", {"active": False}, format="json"),
        api.delete(f"/api/v1/webhooks/{hook.pk}/"),
        api.get(f"/api/v1/webhooks/{hook.pk}/deliveries/"),
        api.post(f"/api/v1/webhooks/deliveries/{delivery.pk}/replay/"),
    ]

    for response in responses:
        problem(response, 404, "not_found")
    assert shown(hook) == before
    assert WebhookDelivery.objects.count() == 1


def test_it_asks_anonymous_callers_to_sign_in(db: None) -> None:
    not_signed_in(APIClient().get("/api/v1/webhooks/"))
    not_signed_in(APIClient().post("/api/v1/webhooks/", BODY, format="json"))
    assert not WebhookSubscription.objects.exists()


# --- changing and deleting -------------------------------------------------------------------


def test_a_lead_pauses_a_subscription_and_the_change_is_audited(
    lead: User, hook: WebhookSubscription
) -> None:
    response = client_for(lead).patch(
        f"/api/v1/webhooks/{hook.pk}/", {"active": False}, format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json() == {**shown(hook), "active": False}
    event = AuditEvent.objects.get(action="webhook.changed")
    assert (event.actor, event.data) == (lead, {"active": "True → False"})


def test_it_refuses_a_change_to_a_bad_url_changing_nothing(
    lead: User, hook: WebhookSubscription
) -> None:
    before = shown(hook)

    response = client_for(lead).patch(
        f"/api/v1/webhooks/{hook.pk}/", {"url": "ftp://x.example.com/"}, format="json"
    )

    assert field_errors(response) == {"url": ["Enter an http:// or https:// URL."]}
    assert shown(hook) == before
    assert not AuditEvent.objects.filter(action="webhook.changed").exists()


def test_a_lead_deletes_a_subscription_with_its_log(lead: User, hook: WebhookSubscription) -> None:
    emitted()

    response = client_for(lead).delete(f"/api/v1/webhooks/{hook.pk}/")

    assert response.status_code == 204
    assert not WebhookSubscription.objects.exists()
    assert not WebhookDelivery.objects.exists()
    assert AuditEvent.objects.filter(action="webhook.deleted", actor=lead).count() == 1


# --- the log and replays ---------------------------------------------------------------------


def test_the_log_shows_each_delivery_with_its_event_ids_and_outcome(
    recruiter: User,
    subscribe: Callable[..., WebhookSubscription],
    receiver: Receiver,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscription = subscribe("calibration.completed")
    receiver.statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        event = emitted()
    delivery = event.deliveries.get()

    response = client_for(recruiter).get(f"/api/v1/webhooks/{subscription.pk}/deliveries/")

    assert response.status_code == 200
    delivery.refresh_from_db()
    assert response.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [
            {
                "id": delivery.pk,
                "subscription": subscription.pk,
                "event_id": event.event_id,
                "event_type": "calibration.completed",
                "payload": {"snapshot_id": 7},
                "replay_of": None,
                "status": "pending",
                "attempts": 1,
                "last_attempt_at": when(delivery.last_attempt_at),
                "last_status_code": 500,
                "last_response_ms": delivery.last_response_ms,
                "last_error": "HTTP 500: ok",
                "next_attempt_at": when(delivery.next_attempt_at),
                "created_at": when(delivery.created_at),
            }
        ],
    }


def test_a_replay_sends_the_same_event_id_again(
    recruiter: User,
    subscribe: Callable[..., WebhookSubscription],
    receiver: Receiver,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscribe("calibration.completed")
    with django_capture_on_commit_callbacks(execute=True):
        original = emitted().deliveries.get()

    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(recruiter).post(f"/api/v1/webhooks/deliveries/{original.pk}/replay/")

    assert response.status_code == 202, response.content
    replay = WebhookDelivery.objects.exclude(pk=original.pk).get()
    assert response["Location"] == f"/api/v1/webhooks/deliveries/{replay.pk}/"
    assert response.json()["id"] == replay.pk
    assert response.json()["replay_of"] == original.pk
    assert response.json()["event_id"] == original.event.event_id
    assert [r.headers["webhook-id"] for r in receiver.received] == [original.event.event_id] * 2
    assert receiver.received[0].body == receiver.received[1].body
    replay.refresh_from_db()
    assert (replay.status, replay.attempts) == ("succeeded", 1)
    assert AuditEvent.objects.filter(action="webhook.replayed", actor=recruiter).count() == 1
    # The Location names the new delivery, as it now stands.
    followed = client_for(recruiter).get(response["Location"])
    assert followed.status_code == 200
    assert (followed.json()["id"], followed.json()["status"]) == (replay.pk, "succeeded")


def test_it_refuses_to_replay_to_an_inactive_subscription_writing_nothing(
    lead: User, hook: WebhookSubscription
) -> None:
    delivery = emitted().deliveries.get()
    services.webhook_subscription_update(subscription=hook, active=False, by=lead)

    response = client_for(lead).post(f"/api/v1/webhooks/deliveries/{delivery.pk}/replay/")

    assert (
        detail(response, 409, "webhook_subscription_inactive")
        == "The subscription is inactive; activate it before replaying its events."
    )
    assert WebhookDelivery.objects.count() == 1


# --- query counts ------------------------------------------------------------------------------


def test_the_list_reads_a_page_of_subscriptions_in_a_fixed_number_of_queries(
    lead: User, recruiter: User, django_assert_max_num_queries: Any
) -> None:
    for n in range(30):
        services.webhook_subscription_create(
            url=f"{URL}/{n}", event_types=["calibration.completed"], by=lead if n % 2 else recruiter
        )
    api = client_for(User.objects.get(pk=lead.pk))  # its persona cache starts empty

    # 1 persona groups, 2 count for the page, 3 the subscriptions (creators joined).
    with django_assert_max_num_queries(3):
        response = api.get("/api/v1/webhooks/")

    assert response.json()["count"] == 15  # the lead's own; the recruiter's are theirs


def test_the_log_reads_a_page_of_deliveries_in_a_fixed_number_of_queries(
    lead: User, hook: WebhookSubscription, django_assert_max_num_queries: Any
) -> None:
    for _ in range(30):
        emitted()
    api = client_for(User.objects.get(pk=lead.pk))

    # 1 persona groups, 2 the subscription, 3 count for the page, 4 the deliveries
    # (events joined).
    with django_assert_max_num_queries(4):
        response = api.get(f"/api/v1/webhooks/{hook.pk}/deliveries/")

    assert response.json()["count"] == 30


# --- retries of the creating POST, ETag and If-Match -----------------------------------------


def test_a_retried_subscribe_says_the_secret_is_not_shown_again_and_it_is_never_kept(
    lead: User,
) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=lead).key}")

    first = client.post("/api/v1/webhooks/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")
    again = client.post("/api/v1/webhooks/", BODY, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")

    assert (first.status_code, again.status_code) == (201, 201)
    subscription = WebhookSubscription.objects.get()  # one, not two
    assert first.json()["secret"] == subscription.secret
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == {
        **first.json(),
        "secret": None,
        "secret_note": SECRET_NOT_KEPT,
    }
    assert again["Location"] == first["Location"] == f"/api/v1/webhooks/{subscription.pk}/"
    # The kept answer never held it.
    for kept in IdempotentRequest.objects.values_list("body", flat=True):
        assert subscription.secret.encode() not in bytes(kept)
        assert b"whsec_" not in bytes(kept)


def test_a_subscription_carries_an_etag_and_a_stale_if_match_changes_nothing(
    lead: User, hook: WebhookSubscription
) -> None:
    api = client_for(lead)
    read = api.get(f"/api/v1/webhooks/{hook.pk}/")
    tag = read["ETag"]
    changed = api.patch(
        f"/api/v1/webhooks/{hook.pk}/", {"active": False}, format="json", HTTP_IF_MATCH=tag
    )
    assert changed.status_code == 200, changed.content
    assert changed["ETag"] != tag
    assert changed["ETag"] == api.get(f"/api/v1/webhooks/{hook.pk}/")["ETag"]

    stale = api.patch(
        f"/api/v1/webhooks/{hook.pk}/", {"url": f"{URL}/new"}, format="json", HTTP_IF_MATCH=tag
    )

    assert detail(stale, 412, "precondition_failed").startswith("This object changed since")
    hook.refresh_from_db()
    assert (hook.url, hook.active) == (URL, False)
    assert AuditEvent.objects.filter(action="webhook.changed").count() == 1
