"""Shapes of the webhook API: what comes in, what goes out (never the secret, but once)."""

from typing import Any

from rest_framework import serializers

from core.webhooks.models import EventType, WebhookDelivery, WebhookSubscription
from core.webhooks.validators import TARGET_URL_MESSAGE, validate_target_url


class TargetUrlField(serializers.URLField):
    """An http(s) address with no credentials in it, with one message for anything else."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=2000, **kwargs)
        # DRF's URLField adds Django's validator (which also takes ftp://): ours only.
        self.validators = [validate_target_url]
        self.error_messages["invalid"] = TARGET_URL_MESSAGE


class SubscriptionInputSerializer(serializers.Serializer):
    url = TargetUrlField(help_text="Where to POST events: an http:// or https:// URL.")
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=EventType.choices),
        allow_empty=False,
        max_length=len(EventType.values),
        help_text="The events to send.",
    )
    active = serializers.BooleanField(default=True)
    include_details = serializers.BooleanField(
        default=False,
        help_text=(
            "Whether payloads carry the candidate's name and contact details and free text "
            "(notes, rationale). Off: ids only."
        ),
    )


class SubscriptionSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", allow_null=True)

    class Meta:
        model = WebhookSubscription
        fields = ["id", "url", "event_types", "active", "include_details", "created_by",
                  "created_at"]  # fmt: skip
        read_only_fields = fields


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    """The answer that creates a subscription: the only one to show its secret."""

    secret = serializers.CharField(
        help_text="The signing secret (whsec_...). Shown once: store it now."
    )

    class Meta(SubscriptionSerializer.Meta):
        fields = [*SubscriptionSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class DeliverySerializer(serializers.ModelSerializer):
    event_id = serializers.CharField(source="event.event_id")
    event_type = serializers.CharField(source="event.kind")
    payload = serializers.SerializerMethodField(
        help_text=(
            "The event's ids (never its details), once the delivery was sent: null while "
            "unsent or withheld (its owner may not read the event)."
        )
    )

    class Meta:
        model = WebhookDelivery
        fields = [
            "id", "subscription", "event_id", "event_type", "payload", "replay_of", "status",
            "attempts", "last_attempt_at", "last_status_code", "last_response_ms", "last_error",
            "next_attempt_at", "created_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_payload(self, delivery: WebhookDelivery) -> dict[str, Any] | None:
        # Only what was sent: an unsent or withheld delivery's event may be about a card
        # its owner may not read (core.webhooks.readers decides at each attempt).
        sent = delivery.attempts > 0 and delivery.status != WebhookDelivery.Status.WITHHELD
        return dict(delivery.event.payload) if sent else None
