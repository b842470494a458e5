"""Webhook subscriptions, the events they hear about, and each event's delivery log.

These models belong to the core app (app label `core`); core/models.py imports them
so that Django finds them.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.webhooks.validators import validate_target_url


class EventType(models.TextChoices):
    SCORECARD_SUBMITTED = "scorecard.submitted"
    SCORECARD_AMENDED = "scorecard.amended"
    LOOP_DECIDED = "loop.decided"
    CALIBRATION_COMPLETED = "calibration.completed"
    INTERVIEWER_GRADUATED = "interviewer.graduated"


class WebhookSubscription(models.Model):
    """A target URL that hears about the events it names, signed with its secret."""

    # A CharField: a URLField would add Django's own check (ftp:// allowed) and a second
    # message to ours.
    url = models.CharField("URL", max_length=2000, validators=[validate_target_url])
    # Standard Webhooks style: "whsec_" + base64 of 32 random bytes, made by the service.
    # Shown once, in the answer that creates it; never in a read.
    secret = models.CharField(max_length=100, editable=False)
    event_types = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    # May payloads carry the candidate's name and contact details and free text (notes,
    # a decision's rationale)? Off by default: payloads carry ids. Only a recruiter (or
    # the holder of core.webhook_details) may turn it on, and it gives details only while
    # the owner still may read them (core.webhooks.readers).
    include_details = models.BooleanField(default=False)
    # The owner: the only one who manages it in the API, and whose rights at each
    # delivery decide what it carries (core.webhooks.readers).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = "webhook subscription"
        permissions = [
            ("webhook_details", "Receive contact details and free text in webhooks"),
        ]

    def __str__(self) -> str:
        return self.url


class WebhookEvent(models.Model):
    """Something that happened, as subscribers hear it. Its `event_id` is the
    `webhook-id` header of every delivery and replay, so receivers can dedupe."""

    event_id = models.CharField(max_length=40, unique=True)
    kind = models.CharField(max_length=40, choices=EventType.choices)
    # Ids and the like: what every subscriber gets.
    payload = models.JSONField(default=dict)
    # Contact details and free text, for subscriptions with include_details only; kept
    # empty when no such subscription heard the event.
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "webhook event"

    def __str__(self) -> str:
        return f"{self.event_id} {self.kind}"


class WebhookDelivery(models.Model):
    """One event on its way to one subscription: its attempts and their outcome.

    A replay is a new delivery of the same event (`replay_of` the one replayed).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        # Not sent: the subscription's owner may not read the event (core.webhooks.readers).
        WITHHELD = "withheld"

    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    replay_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When the next attempt is due; null once the delivery succeeded or gave up.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Set while an attempt is in flight: another worker may not claim the delivery
    # before then, and a worker that died mid-attempt frees it when the time passes.
    locked_until = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_response_ms = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"
        indexes = [
            # The sweep's question: which pending deliveries are due?
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="webhook_delivery_due",
            ),
            # A subscription's log, newest first.
            models.Index(
                fields=["subscription", "-created_at", "-id"], name="webhook_delivery_log"
            ),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} ({self.status})"
