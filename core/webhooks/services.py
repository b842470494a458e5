"""Writes for webhooks: subscriptions, emitting events, delivering and replaying them."""

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core import metrics
from core.api.exceptions import ApplicationError, Conflict
from core.audit.services import audit_event_record as audit
from core.webhooks import readers, signing, targets, transport
from core.webhooks.models import EventType, WebhookDelivery, WebhookEvent, WebhookSubscription

log = logging.getLogger(__name__)

# After a failed attempt, the wait before the next one (Standard Webhooks' suggested
# schedule): eight attempts over about 31 hours, then the delivery has failed.
RETRY_DELAYS = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# How long a claimed attempt keeps others off: longer than an attempt can take (the
# transport's TOTAL_TIMEOUT and two writes), so only a worker that died frees it late.
LEASE = timedelta(seconds=30)
# The sweep publishes deliveries due for longer than this: those on time are the
# business of the task published for them.
SWEEP_GRACE = timedelta(minutes=1)
SWEEP_BATCH = 500


@dataclass(frozen=True)
class EventData:
    """What an event says: ids for every subscriber, details for those allowed them."""

    ids: dict[str, Any]
    # The candidate's name and contact details and free text (notes, a rationale).
    details: dict[str, Any] = field(default_factory=dict)


# Builds an event's data on demand; the flag says whether details are wanted.
Payload = Callable[[bool], EventData]


# --- subscriptions ---------------------------------------------------------------------------


class DetailsForbidden(ApplicationError):
    """Asking for details one may not read in the API (HTTP 403)."""

    status_code = 403

    def __init__(self) -> None:
        super().__init__(
            "Only recruiters, or staff given the webhook details permission, may have "
            "contact details and free text in webhooks; leave include_details false.",
            code="webhook_details_forbidden",
        )


def _check_details_allowed(by: User | None) -> None:
    if not readers.may_receive_details(by):
        raise DetailsForbidden()


def _event_types(values: Sequence[str]) -> list[str]:
    chosen = list(dict.fromkeys(values))
    unknown = [value for value in chosen if value not in EventType.values]
    if unknown or not chosen:
        names = ", ".join(EventType.values)
        raise ValidationError({"event_types": f"Choose one or more of {names}."})
    return chosen


@transaction.atomic
def webhook_subscription_create(
    *,
    url: str,
    event_types: Sequence[str],
    active: bool = True,
    include_details: bool = False,
    by: User | None,
) -> WebhookSubscription:
    """Create a subscription with a new secret; the returned object is the only one
    that should ever show the secret to anyone. `by` owns it: include_details only
    for those who may have details (readers.may_receive_details)."""
    if include_details:
        _check_details_allowed(by)
    subscription = WebhookSubscription(
        url=url,
        secret=signing.secret_new(),
        event_types=_event_types(event_types),
        active=active,
        include_details=include_details,
        created_by=by,
    )
    subscription.full_clean()
    targets.url_check(url)
    subscription.save()
    audit(
        actor=by, action="webhook.created", target=_target(subscription), url=url,
        event_types=", ".join(subscription.event_types), active=active,
        include_details=include_details,
    )  # fmt: skip
    return subscription


def _target(subscription: WebhookSubscription) -> str:
    return f"webhook {subscription.pk} ({subscription.url})"


def _shown(value: object) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


@transaction.atomic
def webhook_subscription_update(
    *,
    subscription: WebhookSubscription,
    by: User | None,
    url: str | None = None,
    event_types: Sequence[str] | None = None,
    active: bool | None = None,
    include_details: bool | None = None,
) -> WebhookSubscription:
    """Change what is given (None: left as it is); audit each change as before → after.
    Turning include_details on is for those who may have details."""
    if include_details and not subscription.include_details:
        _check_details_allowed(by)
    given = {
        "url": url,
        "event_types": None if event_types is None else _event_types(event_types),
        "active": active,
        "include_details": include_details,
    }
    changes = {}
    for name, value in given.items():
        if value is not None and value != getattr(subscription, name):
            changes[name] = f"{_shown(getattr(subscription, name))} → {_shown(value)}"
            setattr(subscription, name, value)
    if not changes:
        return subscription
    subscription.full_clean()
    if "url" in changes:
        targets.url_check(subscription.url)
    subscription.save()
    audit(actor=by, action="webhook.changed", target=_target(subscription), **changes)
    return subscription


@transaction.atomic
def webhook_subscription_delete(*, subscription: WebhookSubscription, by: User | None) -> None:
    """Delete the subscription and its delivery log; pending deliveries stop there."""
    audit(actor=by, action="webhook.deleted", target=_target(subscription), url=subscription.url)
    subscription.delete()


# --- events ----------------------------------------------------------------------------------


def webhook_event_emit(*, kind: str, payload: Payload) -> WebhookEvent | None:
    """Record an event for the active subscriptions to `kind` and deliver it after commit.

    1. Find the active subscriptions to `kind` (one query). None: write nothing,
       build nothing, return None: a product without webhooks pays one query.
    2. Build the event's data, with details only if one of them includes details.
    3. Write the event and one delivery per subscription in the caller's transaction
       (a savepoint of it), so a change that rolls back reports nothing.
    4. Publish a delivery task for each after the transaction commits.
    """
    if kind not in EventType.values:
        raise ValueError(f"{kind!r} is not a webhook event type")
    subscriptions = [
        subscription
        for subscription in WebhookSubscription.objects.filter(active=True).only(
            "pk", "event_types", "include_details"
        )
        if kind in subscription.event_types
    ]
    if not subscriptions:
        return None
    details = any(subscription.include_details for subscription in subscriptions)
    data = payload(details)
    now = timezone.now()
    with transaction.atomic():
        event = WebhookEvent.objects.create(
            event_id=signing.event_id_new(),
            kind=kind,
            payload=data.ids,
            details=data.details if details else {},
            created_at=now,
        )
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(event=event, subscription=subscription, next_attempt_at=now)
            for subscription in subscriptions
        )
    ids = [delivery.pk for delivery in deliveries]
    transaction.on_commit(lambda: _publish_all(ids))
    return event


def webhook_event_details_erase(*, candidate_id: int) -> int:
    """Empty the stored details (name, contact details, free text) of the candidate's
    events, for an erasure; their ids stay. Return how many events were changed."""
    return WebhookEvent.objects.filter(payload__candidate_id=candidate_id).update(details={})


def body_of(event: WebhookEvent, *, data: dict[str, Any]) -> str:
    """Return the JSON body delivered for the event: `{"id", "type", "timestamp", "data"}`,
    `data` as the subscription's owner may read it (readers.data_for)."""
    body = {
        "id": event.event_id,
        "type": event.kind,
        "timestamp": event.created_at.isoformat().replace("+00:00", "Z"),
        "data": data,
    }
    return json.dumps(body, separators=(",", ":"))


# --- deliveries ------------------------------------------------------------------------------


def webhook_delivery_attempt(*, delivery_id: int, now: datetime | None = None) -> str:
    """Make the delivery's next attempt if it is due and nobody else is making it;
    return what happened ("succeeded", "retrying", "failed", or why nothing was sent).

    1. A delivery already finished, not yet due, or gone is left alone: a task
       delivered twice sends once.
    2. One whose attempt is in flight elsewhere (or whose worker died in it) is looked
       at again when that attempt's lease ends.
    3. The attempt is claimed with a conditional UPDATE on the attempts seen and the
       lease: of two workers, one changes the row and sends, the other stops.
    4. The claim commits before the request goes out; the outcome is written only if
       the attempt is still the delivery's latest.
    5. The body is built now from the owner's rights now (readers.data_for): one
       whose owner may not read the event is withheld, nothing sent.
    6. A failure (network error, an answer other than 2xx) schedules the next attempt
       after RETRY_DELAYS; after MAX_ATTEMPTS the delivery has failed.
    """
    now = now or timezone.now()
    delivery = (
        WebhookDelivery.objects.select_related("event", "subscription__created_by")
        .filter(pk=delivery_id)
        .first()
    )
    if delivery is None:
        return "gone"
    if delivery.status != WebhookDelivery.Status.PENDING:
        return "done"
    if delivery.locked_until is not None and delivery.locked_until > now:
        _publish(delivery.pk, countdown=(delivery.locked_until - now).total_seconds() + 1)
        return "busy"
    if delivery.next_attempt_at is None or delivery.next_attempt_at > now:
        return "not due"
    unclaimed = Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    mine = WebhookDelivery.objects.filter(
        unclaimed, pk=delivery.pk, status=WebhookDelivery.Status.PENDING, attempts=delivery.attempts
    )
    subscription = delivery.subscription
    if not subscription.active:
        mine.update(
            status=WebhookDelivery.Status.FAILED,
            next_attempt_at=None,
            last_error="The subscription is inactive.",
        )
        return "inactive"
    data = readers.data_for(
        event=delivery.event,
        owner=subscription.created_by,
        include_details=subscription.include_details,
    )
    if data is None:
        mine.update(
            status=WebhookDelivery.Status.WITHHELD,
            next_attempt_at=None,
            last_error="Withheld: the subscription's owner may not read this event.",
        )
        metrics.webhook_delivery_recorded("withheld")
        return "withheld"
    if not mine.update(attempts=F("attempts") + 1, locked_until=now + LEASE, last_attempt_at=now):
        return "taken"
    attempt = delivery.attempts + 1
    body = body_of(delivery.event, data=data)
    headers = signing.headers(
        secret=subscription.secret,
        event_id=delivery.event.event_id,
        timestamp=int(timezone.now().timestamp()),
        body=body,
    )
    answer = transport.post(
        subscription.url,
        body.encode("utf-8"),
        headers,
        allow_private=settings.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    )
    return _record(delivery.pk, attempt, answer, started=now)


def _record(delivery_id: int, attempt: int, answer: transport.Answer, *, started: datetime) -> str:
    fields: dict[str, Any] = {
        "locked_until": None,
        "last_status_code": answer.status,
        "last_response_ms": answer.elapsed_ms,
        "last_error": answer.error,
    }
    if answer.ok:
        outcome = "succeeded"
        fields.update(status=WebhookDelivery.Status.SUCCEEDED, next_attempt_at=None)
    elif answer.final or attempt >= MAX_ATTEMPTS:
        outcome = "failed"
        fields.update(status=WebhookDelivery.Status.FAILED, next_attempt_at=None)
    else:
        outcome = "retrying"
        wait = RETRY_DELAYS[attempt - 1]
        # From the attempt's start: the schedule does not drift with the receiver's slowness.
        fields.update(next_attempt_at=started + wait)
    latest = WebhookDelivery.objects.filter(
        pk=delivery_id, attempts=attempt, status=WebhookDelivery.Status.PENDING
    )
    if not latest.update(**fields):
        return "superseded"  # deleted meanwhile, or our lease ran out and another took over
    metrics.webhook_delivery_recorded(outcome)
    if outcome == "retrying":
        _publish(delivery_id, countdown=wait.total_seconds())
    return outcome


@transaction.atomic
def webhook_delivery_replay(*, delivery: WebhookDelivery, by: User | None) -> WebhookDelivery:
    """Send the delivery's event to its subscription again, as a new delivery with the
    same event id (receivers dedupe on it), published after commit."""
    if not delivery.subscription.active:
        raise Conflict(
            "The subscription is inactive; activate it before replaying its events.",
            code="webhook_subscription_inactive",
        )
    replay = WebhookDelivery.objects.create(
        event=delivery.event,
        subscription=delivery.subscription,
        replay_of=delivery,
        next_attempt_at=timezone.now(),
    )
    audit(
        actor=by, action="webhook.replayed", target=_target(delivery.subscription),
        event=delivery.event.event_id, delivery=delivery.pk, replay=replay.pk,
    )  # fmt: skip
    transaction.on_commit(lambda: _publish(replay.pk))
    return replay


def webhook_deliveries_sweep(*, now: datetime | None = None) -> int:
    """Publish the deliveries overdue by SWEEP_GRACE, and those whose worker died
    mid-attempt (lease run out); return how many. Beat runs it every minute.

    Waits longer than a broker holds a delayed task safely, a broker down when a
    task was due to be published, a task lost: the sweep catches them all.
    """
    now = now or timezone.now()
    due = (
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now - SWEEP_GRACE
        )
        .filter(Q(locked_until__isnull=True) | Q(locked_until__lte=now))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    ids = list(due)
    _publish_all(ids)
    return len(ids)


def _longest_countdown() -> float:
    """Return the longest delay handed to the broker; longer waits are the sweep's.

    Redis hands a task not acknowledged within its visibility timeout to another
    worker, so a task delayed longer than that would be delivered again and again.
    """
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    return float(options.get("visibility_timeout", 3600)) / 2


def _publish_all(ids: Sequence[int]) -> None:
    for delivery_id in ids:
        _publish(delivery_id)


def _publish(delivery_id: int, countdown: float = 0) -> None:
    from core.webhooks.tasks import webhook_deliver_task

    if countdown > 0 and (
        webhook_deliver_task.app.conf.task_always_eager or countdown > _longest_countdown()
    ):
        # Run in-process (no broker) a delayed task would run at once: leave it to the
        # sweep, as a wait too long for the broker is.
        return
    try:
        webhook_deliver_task.apply_async(args=[delivery_id], countdown=countdown or None)
    except Exception:
        # The broker is down (or, run in-process, the attempt itself failed): the
        # delivery stays pending in the database and the sweep publishes it again.
        log.warning("could not publish webhook delivery %s", delivery_id, exc_info=True)
