"""Reads for webhooks: who may manage them, subscriptions, their delivery logs."""

from django.db.models import QuerySet
from django.http import Http404

from core.permissions import Viewer, is_lead, is_recruiter
from core.webhooks.models import WebhookDelivery, WebhookEvent, WebhookSubscription


def may_manage_webhooks(user: Viewer) -> bool:
    """Calibration leads and recruiters manage webhooks (superusers are both)."""
    return user.is_authenticated and (is_lead(user) or is_recruiter(user))


def subscriptions_visible_to(user: Viewer) -> QuerySet[WebhookSubscription]:
    """The user's own subscriptions, for those who manage webhooks; none for anyone
    else. Another's subscription is theirs alone (the admin shows all)."""
    if not may_manage_webhooks(user):
        return WebhookSubscription.objects.none()
    return (
        WebhookSubscription.objects.filter(created_by=user.pk)
        .select_related("created_by")
        .order_by("id")
    )


def subscription_get(*, user: Viewer, pk: int) -> WebhookSubscription:
    found = subscriptions_visible_to(user).filter(pk=pk).first()
    if found is None:
        raise Http404("No such webhook.")
    return found


def deliveries_of(*, subscription: WebhookSubscription) -> QuerySet[WebhookDelivery]:
    """The subscription's delivery log, newest first, each with its event."""
    return (
        WebhookDelivery.objects.filter(subscription=subscription)
        .select_related("event")
        .order_by("-created_at", "-id")
    )


def delivery_get(*, user: Viewer, pk: int) -> WebhookDelivery:
    """Return the delivery with its event and subscription; 404 unless it is one of the
    user's own subscriptions' (subscriptions_visible_to)."""
    found = (
        WebhookDelivery.objects.select_related("event", "subscription")
        .filter(pk=pk, subscription__in=subscriptions_visible_to(user).values("pk"))
        .first()
    )
    if found is None:
        raise Http404("No such delivery.")
    return found


def webhook_events_about(*, candidate_id: int) -> QuerySet[WebhookEvent]:
    """Return the events about one candidate (by the id their payload carries), oldest first."""
    return WebhookEvent.objects.filter(payload__candidate_id=candidate_id).order_by(
        "created_at", "id"
    )
