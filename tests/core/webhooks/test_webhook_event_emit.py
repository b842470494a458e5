"""Events from the product's own services: who hears them, what they say, and when."""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from standardwebhooks import Webhook

from core.webhooks import services
from core.webhooks.models import WebhookDelivery, WebhookEvent
from interviews.models import Loop
from scoring.calibration import services as calibration
from scoring.models import CalibrationSnapshot, Scorecard
from scoring.scorecards import services as scorecards
from tests.core.webhooks.receiver import Receiver
from tests.scoring.helpers import ratings_for, submitted
from tests.support.loops import Built

SUMMARY = "Strong on sharding; weak on cost."
NOTES = "Mentioned her previous employer"


def when(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def submit(interviewer: User, loop: Built) -> Scorecard:
    return submitted(interviewer, loop.interviews[0], summary=SUMMARY, notes=NOTES)


def card_ids(card: Scorecard, loop: Loop) -> dict[str, Any]:
    card.refresh_from_db()
    return {
        "scorecard_id": card.pk,
        "interview_id": card.interview_id,
        "loop_id": loop.pk,
        "candidate_id": loop.candidate_id,
        "role_id": loop.role_id,
        "level_id": loop.level_id,
        "interviewer_id": card.interviewer_id,
        "is_shadow": False,
        "recommendation": "yes",
        "submitted_at": when(card.submitted_at),
    }


def test_it_sends_a_signed_event_when_a_scorecard_is_submitted(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscription = subscribe("scorecard.submitted")

    with django_capture_on_commit_callbacks(execute=True):
        card = submit(interviewer, loop)

    event = WebhookEvent.objects.get()
    (request,) = receiver.received
    assert request.path == "/hooks/"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == event.event_id
    assert Webhook(subscription.secret).verify(request.body, request.headers) == {
        "id": event.event_id,
        "type": "scorecard.submitted",
        "timestamp": when(event.created_at),
        "data": card_ids(card, loop.loop),
    }
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("succeeded", 1, 200)
    assert (delivery.next_attempt_at, delivery.locked_until, delivery.last_error) == (
        None,
        None,
        "",
    )
    assert delivery.last_response_ms is not None


def test_it_leaves_the_candidates_details_and_free_text_out_of_payloads(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscribe("scorecard.submitted")

    with django_capture_on_commit_callbacks(execute=True):
        submit(interviewer, loop)

    (request,) = receiver.received
    for secret in ("Casey Quinn", "c@example.com", SUMMARY, NOTES):
        assert secret.encode() not in request.body
    assert WebhookEvent.objects.get().details == {}  # nothing to erase later either


def test_it_adds_them_for_a_subscription_that_includes_details_and_only_for_it(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    plain = subscribe("scorecard.submitted")
    detailed = subscribe("scorecard.submitted", include_details=True)

    with django_capture_on_commit_callbacks(execute=True):
        card = submit(interviewer, loop)

    by_secret = {}
    for request in receiver.received:
        for subscription in (plain, detailed):
            try:
                by_secret[subscription.pk] = Webhook(subscription.secret).verify(
                    request.body, request.headers
                )
            except Exception:  # signed with the other subscription's secret
                continue
    ids = card_ids(card, loop.loop)
    assert by_secret[plain.pk]["data"] == ids
    assert by_secret[detailed.pk]["data"] == {
        **ids,
        "candidate": {"name": "Casey Quinn", "email": "c@example.com", "phone": ""},
        "summary": SUMMARY,
    }
    # One event, heard twice: the same id for both.
    assert by_secret[plain.pk]["id"] == by_secret[detailed.pk]["id"]
    assert WebhookDelivery.objects.count() == 2


def test_it_sends_nothing_before_the_transaction_commits(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscribe("scorecard.submitted")

    with django_capture_on_commit_callbacks() as callbacks:
        submit(interviewer, loop)
        # Written with the submission, in its transaction; not sent yet.
        assert WebhookDelivery.objects.get().attempts == 0
        assert receiver.received == []

    for callback in callbacks:
        callback()
    assert len(receiver.received) == 1


def test_it_writes_and_sends_nothing_when_the_transaction_rolls_back(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscribe("scorecard.submitted")
    card = scorecards.scorecard_start(interview=loop.interviews[0], by=interviewer)
    scorecards.scorecard_save_draft(
        scorecard=card,
        by=interviewer,
        recommendation="yes",
        ratings=ratings_for(loop.interviews[0]),
    )

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        scorecards.scorecard_submit(scorecard=card, by=interviewer)
        raise RuntimeError("the rest of the request failed")

    assert not WebhookEvent.objects.exists()
    assert not WebhookDelivery.objects.exists()
    assert receiver.received == []


def test_it_writes_nothing_without_an_active_subscription_to_the_event(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    subscribe("loop.decided")
    subscribe("scorecard.submitted", active=False)

    with django_capture_on_commit_callbacks(execute=True):
        submit(interviewer, loop)

    assert not WebhookEvent.objects.exists()
    assert not WebhookDelivery.objects.exists()
    assert receiver.received == []


def test_without_subscribers_it_costs_one_query_and_builds_no_payload(
    db: None, django_assert_num_queries: Any
) -> None:
    def payload(details: bool) -> services.EventData:
        raise AssertionError("built for nobody")

    with django_assert_num_queries(1):  # the active subscriptions
        assert services.webhook_event_emit(kind="loop.decided", payload=payload) is None


def test_it_refuses_an_event_type_it_does_not_know(db: None) -> None:
    with pytest.raises(ValueError, match=r"'scorecard\.deleted' is not a webhook event type"):
        services.webhook_event_emit(
            kind="scorecard.deleted", payload=lambda details: services.EventData(ids={})
        )


def test_it_reports_an_amendment_with_its_reason_for_details_only(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    card = submit(interviewer, loop)
    subscription = subscribe("scorecard.amended", include_details=True)

    with django_capture_on_commit_callbacks(execute=True):
        amendment = scorecards.scorecard_amend(
            scorecard=card,
            by=interviewer,
            reason="Mixed up two candidates.",
            recommendation="strong_yes",
            summary="Better than I wrote.",
            ratings=ratings_for(loop.interviews[0], rating=4),
        )

    (request,) = receiver.received
    body = Webhook(subscription.secret).verify(request.body, request.headers)
    assert body["type"] == "scorecard.amended"
    assert body["data"] == {
        **card_ids(card, loop.loop),
        "recommendation": "strong_yes",
        "amendment_id": amendment.pk,
        "amended_at": when(amendment.at),
        "candidate": {"name": "Casey Quinn", "email": "c@example.com", "phone": ""},
        "summary": "Better than I wrote.",
        "reason": "Mixed up two candidates.",
    }


def test_it_reports_a_decision_without_its_rationale(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    recruiter: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    submit(interviewer, loop)
    subscription = subscribe("loop.decided")

    with django_capture_on_commit_callbacks(execute=True):
        decided = scorecards.loop_decide(
            loop=loop.loop, by=recruiter, decision="hire", rationale="A clear yes from everyone."
        )

    (request,) = receiver.received
    assert Webhook(subscription.secret).verify(request.body, request.headers)["data"] == {
        "loop_id": decided.pk,
        "candidate_id": decided.candidate_id,
        "role_id": decided.role_id,
        "level_id": decided.level_id,
        "decision": "hire",
        "decided_by_id": recruiter.pk,
        "decided_at": when(decided.decided_at),
    }
    assert b"A clear yes" not in request.body


def test_it_reports_each_calibration_snapshot_stored_and_none_for_unchanged_inputs(
    subscribe: Callable[..., Any],
    receiver: Receiver,
    interviewer: User,
    lead: User,
    loop: Built,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    submit(interviewer, loop)
    role = loop.loop.role
    # The submission's recalculation has stored snapshots already: start again.
    CalibrationSnapshot.objects.filter(role=role).delete()
    subscription = subscribe("calibration.completed", by=lead)  # a lead reads the exact time

    with django_capture_on_commit_callbacks(execute=True):
        calibration.calibration_run_now(role=role, by=lead)
        calibration.calibration_run_now(role=role, by=lead)  # same inputs: nothing new

    snapshots = {s.pk: s for s in CalibrationSnapshot.objects.filter(role=role)}
    assert len(snapshots) == 2  # the role's, and its one level's
    bodies = [Webhook(subscription.secret).verify(r.body, r.headers) for r in receiver.received]
    assert sorted(body["data"]["snapshot_id"] for body in bodies) == sorted(snapshots)
    for body in bodies:
        stored = snapshots[body["data"]["snapshot_id"]]
        assert body["type"] == "calibration.completed"
        assert body["data"] == {
            "snapshot_id": stored.pk,
            "role_id": role.pk,
            "level_id": stored.level_id,
            "computed_at": stored.result["computed_at"],
        }


def test_erasing_a_candidate_empties_the_details_their_events_hold(
    subscribe: Callable[..., Any],
    interviewer: User,
    loop: Built,
) -> None:
    subscribe("scorecard.submitted", include_details=True)
    submit(interviewer, loop)
    event = WebhookEvent.objects.get()
    assert event.details["candidate"]["email"] == "c@example.com"

    erased = services.webhook_event_details_erase(candidate_id=loop.loop.candidate_id)

    event.refresh_from_db()
    assert (erased, event.details) == (1, {})
    assert event.payload["candidate_id"] == loop.loop.candidate_id  # the ids stay
