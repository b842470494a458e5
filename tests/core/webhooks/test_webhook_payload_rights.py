"""What a delivery carries is what its subscription's owner may read when it is sent.

The real services make the events, the real delivery code sends them to a receiver on
the loopback interface, and every body a lead's and an interviewer's subscriptions
receive is scanned for the candidate's contact details and any free text.
"""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from core.webhooks import services
from core.webhooks.models import EventType, WebhookDelivery, WebhookSubscription
from interviews.pools import services as pool_services
from interviews.pools.models import TrainingSeat
from scoring.calibration import services as calibration
from scoring.scorecards import services as scorecards
from tests.conftest import client_for
from tests.core.webhooks.receiver import Receiver
from tests.scoring.helpers import ratings_for, submitted
from tests.support.loops import Built, Seat, build_loop

PHONE = "+44 20 7946 0958"
EMAIL = "c@example.com"
NAME = "Casey Quinn"
INES_SUMMARY = "Ines: strong on sharding, weak on cost."
LEO_SUMMARY = "Leo: clear on failure modes."
NOTES = "Mentioned her previous employer"
REASON = "Mixed up two candidates in my first version."
RATIONALE = "Hired on the panel's evidence about sharding."
PRIVATE = [PHONE, EMAIL, NAME, INES_SUMMARY, LEO_SUMMARY, NOTES, REASON, RATIONALE]
PRIVATE_KEYS = {"candidate", "email", "phone", "name", "summary", "notes", "reason", "rationale"}


@pytest.fixture
def panel(recruiter: User, interviewer: User, lead: User) -> Built:
    """One interview: Ines and Leo (a calibration lead who also interviews) on its panel."""
    lead.groups.add(Group.objects.get(name=INTERVIEWER))
    built = build_loop(seats=[Seat(interviewers=[interviewer, lead])], recruiter=recruiter)
    built.loop.candidate.phone = PHONE
    built.loop.candidate.save()
    return built


def regroup(user: User, *personas: str) -> User:
    """Give the user other personas; return them as the next request would load them."""
    user.groups.set(Group.objects.filter(name__in=personas))
    return User.objects.get(pk=user.pk)


def subscribed_as_recruiter(user: User, url: str, *personas: str) -> WebhookSubscription:
    """A subscription to everything, with details, made while the user recruited; then
    the user is given `personas` instead: what it carries is decided at each delivery."""
    regroup(user, RECRUITER)
    subscription = services.webhook_subscription_create(
        url=url, event_types=EventType.values, include_details=True, by=User.objects.get(pk=user.pk)
    )
    regroup(user, *personas)
    return subscription


def bodies(receiver: Receiver, path: str) -> list[dict[str, Any]]:
    return [r.json for r in receiver.received if r.path == path]


def leaks(body: dict[str, Any]) -> list[str]:
    """Return every private value or key found in a delivered body."""
    text = json.dumps(body)
    found = [value for value in PRIVATE if value in text]
    return found + sorted(PRIVATE_KEYS & set(body["data"]))


def test_a_leads_and_an_interviewers_subscriptions_carry_no_contact_details_or_free_text(
    recruiter: User,
    interviewer: User,
    lead: User,
    panel: Built,
    subscribe: Callable[..., WebhookSubscription],
    receiver: Receiver,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    # Rita's, with details: proof the scan would find them if they leaked.
    subscribe(*EventType.values, include_details=True, url=f"{receiver.url}rita")
    leads = subscribed_as_recruiter(lead, f"{receiver.url}leo", LEAD, INTERVIEWER)
    services.webhook_subscription_create(
        url=f"{receiver.url}leo-plain", event_types=EventType.values, by=lead
    )
    interviewers = subscribed_as_recruiter(interviewer, f"{receiver.url}ines", INTERVIEWER)
    lead, interviewer = User.objects.get(pk=lead.pk), User.objects.get(pk=interviewer.pk)
    interview = panel.interviews[0]

    with django_capture_on_commit_callbacks(execute=True):
        ines_card = submitted(interviewer, interview, summary=INES_SUMMARY, notes=NOTES)
    # Leo is still blind: Ines's card is withheld from his subscription, unsent.
    withheld = WebhookDelivery.objects.get(subscription=leads, event__kind="scorecard.submitted")
    assert (withheld.status, withheld.attempts) == ("withheld", 0)
    assert bodies(receiver, "/hooks/leo") == []
    with django_capture_on_commit_callbacks(execute=True):
        submitted(lead, interview, summary=LEO_SUMMARY, notes=NOTES)
    with django_capture_on_commit_callbacks(execute=True):
        scorecards.scorecard_amend(
            scorecard=ines_card, by=interviewer, reason=REASON, recommendation="strong_yes",
            summary=INES_SUMMARY, ratings=ratings_for(interview, rating=4, notes=NOTES),
        )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        scorecards.loop_decide(loop=panel.loop, by=recruiter, decision="hire", rationale=RATIONALE)
    with django_capture_on_commit_callbacks(execute=True):
        calibration.calibration_run_now(role=panel.loop.role, by=lead)
    # Ines graduates into a pool of the role (she sees it, as its member; Leo keeps it).
    pool = pool_services.pool_create(name="Panel", role=panel.loop.role, by=lead)
    pool_services.path_set(pool=pool, by=lead, shadows=1, reverse_shadows=0)
    trainee = pool_services.membership_add(pool=pool, user=interviewer, status="training", by=lead)
    seat = TrainingSeat.objects.create(membership=trainee, interview=interview, kind="shadow")
    with django_capture_on_commit_callbacks(execute=True):
        pool_services.seat_sign_off(seat=seat, ready=True, by=lead)

    scanned = {path: bodies(receiver, path) for path in ("/hooks/leo", "/hooks/leo-plain",
                                                         "/hooks/ines")}  # fmt: skip
    for path, delivered in scanned.items():
        kinds = sorted({body["type"] for body in delivered})
        assert kinds == sorted(EventType.values), (path, kinds)
        for body in delivered:
            assert leaks(body) == [], (path, body)
    # Leo heard one submission, his own: Ines's came while he was blind.
    heard = [body["data"]["scorecard_id"] for body in scanned["/hooks/leo"]
             if body["type"] == "scorecard.submitted"]  # fmt: skip
    assert len(heard) == 1
    assert WebhookDelivery.objects.filter(subscription=interviewers, status="withheld").count() == 0
    # A calibration's exact time is a lead's: the interviewer hears the day.
    for body in scanned["/hooks/ines"]:
        if body["type"] == "calibration.completed":
            assert len(body["data"]["computed_at"]) == len("2026-01-31")
    # The recruiter's subscription did get them: the scan looks for the right things.
    rita = json.dumps(bodies(receiver, "/hooks/rita"))
    for value in (PHONE, EMAIL, INES_SUMMARY, LEO_SUMMARY, REASON, RATIONALE):
        assert value in rita


def test_details_follow_the_owners_rights_when_sent_not_when_subscribed(
    recruiter: User,
    interviewer: User,
    lead: User,
    panel: Built,
    subscribe: Callable[..., WebhookSubscription],
    receiver: Receiver,
) -> None:
    subscription = subscribe("scorecard.submitted", include_details=True)
    submitted(interviewer, panel.interviews[0], summary=INES_SUMMARY)  # not yet sent
    delivery = WebhookDelivery.objects.get(subscription=subscription)
    regroup(recruiter, LEAD)  # Rita is now a calibration lead, with no seat on the panel

    outcome = services.webhook_delivery_attempt(delivery_id=delivery.pk)

    assert outcome == "withheld"  # a lead without a seat reads no scorecard
    assert receiver.received == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at) == ("withheld", None)
    assert delivery.last_error == "Withheld: the subscription's owner may not read this event."


def test_a_lead_given_details_reads_a_co_panelists_summary_only_once_no_longer_blind(
    interviewer: User,
    lead: User,
    panel: Built,
    receiver: Receiver,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    lead.user_permissions.add(Permission.objects.get(codename="webhook_details"))
    lead = User.objects.get(pk=lead.pk)
    subscription = services.webhook_subscription_create(
        url=receiver.url, event_types=["scorecard.submitted"], include_details=True, by=lead
    )
    with django_capture_on_commit_callbacks(execute=True):
        ines_card = submitted(interviewer, panel.interviews[0], summary=INES_SUMMARY)
    withheld = WebhookDelivery.objects.get(
        subscription=subscription, event__payload__scorecard_id=ines_card.pk
    )
    assert withheld.status == "withheld"
    assert receiver.received == []
    with django_capture_on_commit_callbacks(execute=True):
        submitted(lead, panel.interviews[0], summary=LEO_SUMMARY)

    # Replayed once Leo's own card is in, the payload is built again, from now.
    with django_capture_on_commit_callbacks(execute=True):
        replay = services.webhook_delivery_replay(delivery=withheld, by=lead)

    replay.refresh_from_db()
    assert replay.status == "succeeded"
    sent = [r.json["data"] for r in receiver.received]
    by_card = {data["scorecard_id"]: data for data in sent}
    assert by_card[ines_card.pk]["summary"] == INES_SUMMARY
    assert by_card[ines_card.pk]["candidate"] == {"name": NAME, "email": EMAIL, "phone": PHONE}


def test_the_log_shows_no_ids_of_a_withheld_event(
    interviewer: User,
    lead: User,
    panel: Built,
    receiver: Receiver,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscription = services.webhook_subscription_create(
        url=receiver.url, event_types=["scorecard.submitted"], by=lead
    )
    with django_capture_on_commit_callbacks(execute=True):
        submitted(interviewer, panel.interviews[0], summary=INES_SUMMARY, recommendation="no")

    response = client_for(lead).get(f"/api/v1/webhooks/{subscription.pk}/deliveries/")

    (row,) = response.json()["results"]
    assert (row["status"], row["attempts"], row["payload"]) == ("withheld", 0, None)
    assert row["last_error"] == "Withheld: the subscription's owner may not read this event."
    assert receiver.received == []
