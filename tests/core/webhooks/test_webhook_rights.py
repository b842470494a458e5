"""Who may do what with a webhook subscription: every persona, every operation.

A subscription is its owner's: only a calibration lead or recruiter subscribes, each
sees and manages their own, and another's answers 404 (so ids leak nothing). Only
those who read contact details and free text in the API (recruiters, or staff given
core.webhook_details) may ask for them with include_details.
"""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from rest_framework.test import APIClient

from core.models import AuditEvent
from core.permissions import HIRING_MANAGER, RECRUITER
from core.webhooks import services
from core.webhooks.models import WebhookDelivery, WebhookSubscription
from tests.conftest import client_for, make_user
from tests.problems import detail, not_signed_in, problem

URL = "https://ats.example.com/hooks"
BODY = {"url": "https://ats.example.com/other", "event_types": ["loop.decided"]}
DETAILS_REFUSED = (
    "Only recruiters, or staff given the webhook details permission, may have contact "
    "details and free text in webhooks; leave include_details false."
)
MANAGERS_ONLY = "Only calibration leads and recruiters manage webhooks."


@pytest.fixture
def hook(recruiter: User) -> WebhookSubscription:
    """Rita's subscription, with one delivery in its log."""
    subscription = services.webhook_subscription_create(
        url=URL, event_types=["calibration.completed"], include_details=True, by=recruiter
    )
    services.webhook_event_emit(
        kind="calibration.completed",
        payload=lambda details: services.EventData(ids={"snapshot_id": 7}),
    )
    return subscription


def snapshot() -> list[dict[str, Any]]:
    """Every row a webhook operation could write: subscriptions, deliveries, audit."""
    return [
        *WebhookSubscription.objects.order_by("pk").values(),
        *WebhookDelivery.objects.order_by("pk").values(),
        *AuditEvent.objects.order_by("pk").values("pk", "action"),
    ]


def caller(name: str, recruiter: User, lead: User, interviewer: User) -> APIClient:
    users = {
        "owner": recruiter,
        "lead": lead,
        "interviewer": interviewer,
        "hiring manager": lambda: make_user("hana", HIRING_MANAGER),
        "another recruiter": lambda: make_user("rafa", RECRUITER),
    }
    if name == "anonymous":
        return APIClient()
    user = users[name]
    return client_for(user() if callable(user) else user)


def operations(hook: WebhookSubscription) -> dict[str, Callable[[APIClient], Any]]:
    delivery = hook.deliveries.get()
    one = f"/api/v1/webhooks/{hook.pk}/"
    return {
        "retrieve": lambda api: api.get(one),
        "patch": lambda api: api.patch(one, {"url": "https://evil.example.com/"}, format="json"),
        "delete": lambda api: api.delete(one),
        "deliveries": lambda api: api.get(f"{one}deliveries/"),
        "delivery": lambda api: api.get(f"/api/v1/webhooks/deliveries/{delivery.pk}/"),
        "replay": lambda api: api.post(f"/api/v1/webhooks/deliveries/{delivery.pk}/replay/"),
    }


OPERATIONS = ["retrieve", "patch", "delete", "deliveries", "delivery", "replay"]
OWNER_STATUS = {
    "retrieve": 200, "patch": 200, "delete": 204, "deliveries": 200, "delivery": 200,
    "replay": 202,
}  # fmt: skip


@pytest.mark.parametrize("operation", OPERATIONS)
def test_the_owner_may_do_everything_with_their_subscription(
    operation: str, recruiter: User, hook: WebhookSubscription
) -> None:
    response = operations(hook)[operation](client_for(recruiter))

    assert response.status_code == OWNER_STATUS[operation], response.content


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("who", ["lead", "interviewer", "hiring manager", "another recruiter"])
def test_anyone_else_gets_404_for_a_subscription_and_changes_nothing(
    who: str,
    operation: str,
    recruiter: User,
    lead: User,
    interviewer: User,
    hook: WebhookSubscription,
) -> None:
    api = caller(who, recruiter, lead, interviewer)
    before = snapshot()

    response = operations(hook)[operation](api)

    problem(response, 404, "not_found")
    assert snapshot() == before
    assert WebhookSubscription.objects.get().url == URL


@pytest.mark.parametrize("operation", OPERATIONS)
def test_an_anonymous_caller_is_asked_to_sign_in_and_changes_nothing(
    operation: str, hook: WebhookSubscription
) -> None:
    before = snapshot()

    not_signed_in(operations(hook)[operation](APIClient()))

    assert snapshot() == before


@pytest.mark.parametrize("who", ["lead", "another recruiter"])
def test_a_lead_or_another_recruiter_lists_only_their_own(
    who: str, recruiter: User, lead: User, interviewer: User, hook: WebhookSubscription
) -> None:
    api = caller(who, recruiter, lead, interviewer)
    mine = api.post("/api/v1/webhooks/", BODY, format="json")
    assert mine.status_code == 201, mine.content

    listed = api.get("/api/v1/webhooks/")

    assert listed.status_code == 200
    assert [row["id"] for row in listed.json()["results"]] == [mine.json()["id"]]
    assert [row["id"] for row in client_for(recruiter).get("/api/v1/webhooks/").json()[
        "results"
    ]] == [hook.pk]  # fmt: skip


@pytest.mark.parametrize("who", ["interviewer", "hiring manager"])
@pytest.mark.parametrize("method", ["list", "create"])
def test_an_interviewer_or_hiring_manager_may_neither_list_nor_subscribe(
    who: str, method: str, recruiter: User, lead: User, interviewer: User, hook: WebhookSubscription
) -> None:
    api = caller(who, recruiter, lead, interviewer)
    before = snapshot()

    if method == "list":
        response = api.get("/api/v1/webhooks/")
    else:
        response = api.post("/api/v1/webhooks/", BODY, format="json")

    assert detail(response, 403, "permission_denied") == MANAGERS_ONLY
    assert snapshot() == before


def test_an_anonymous_caller_may_neither_list_nor_subscribe(hook: WebhookSubscription) -> None:
    before = snapshot()

    not_signed_in(APIClient().get("/api/v1/webhooks/"))
    not_signed_in(APIClient().post("/api/v1/webhooks/", BODY, format="json"))

    assert snapshot() == before


# --- include_details ---------------------------------------------------------------------------


def test_a_lead_may_not_ask_for_details_and_nothing_is_written(lead: User) -> None:
    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "include_details": True}, format="json"
    )

    assert detail(response, 403, "webhook_details_forbidden") == DETAILS_REFUSED
    assert not WebhookSubscription.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="webhook.").exists()


def test_a_lead_may_not_turn_details_on_later_and_nothing_changes(lead: User) -> None:
    mine = services.webhook_subscription_create(url=URL, event_types=["loop.decided"], by=lead)

    response = client_for(lead).patch(
        f"/api/v1/webhooks/{mine.pk}/", {"include_details": True, "active": False}, format="json"
    )

    assert detail(response, 403, "webhook_details_forbidden") == DETAILS_REFUSED
    mine.refresh_from_db()
    assert (mine.include_details, mine.active) == (False, True)
    assert not AuditEvent.objects.filter(action="webhook.changed").exists()


def test_a_lead_given_the_details_permission_may_ask_for_them(lead: User) -> None:
    lead.user_permissions.add(Permission.objects.get(codename="webhook_details"))
    lead = User.objects.get(pk=lead.pk)  # its permission cache starts empty

    response = client_for(lead).post(
        "/api/v1/webhooks/", {**BODY, "include_details": True}, format="json"
    )

    assert response.status_code == 201, response.content
    assert WebhookSubscription.objects.get().include_details is True


def test_an_owner_who_lost_the_right_still_changes_other_fields(
    recruiter: User, lead: User, hook: WebhookSubscription
) -> None:
    recruiter.groups.clear()
    recruiter.groups.add(lead.groups.get())
    owner = User.objects.get(pk=recruiter.pk)

    response = client_for(owner).patch(
        f"/api/v1/webhooks/{hook.pk}/", {"active": False, "include_details": True}, format="json"
    )

    assert response.status_code == 200, response.content  # details unchanged: not asked for
    hook.refresh_from_db()
    assert (hook.active, hook.include_details) == (False, True)
