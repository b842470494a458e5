"""The webhook API: subscriptions (CRUD), each one's delivery log, replaying a delivery.

Calibration leads and recruiters, each their own subscriptions only. Others get 403 on
the list and on creating, and everyone 404 for a subscription or delivery not their
own, so ids leak nothing. Only those who read contact details and free text in the
API (recruiters, or the holders of core.webhook_details) may ask for them
(include_details); what a delivery carries is decided when it is sent
(core.webhooks.readers).
"""

from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.etags import ETagMixin
from core.api.idempotency import REDACT_ATTRIBUTE
from core.api.openapi import error
from core.auth import signed_in
from core.webhooks import selectors, services
from core.webhooks.models import WebhookSubscription
from core.webhooks.serializers import (
    DeliverySerializer,
    SubscriptionCreatedSerializer,
    SubscriptionInputSerializer,
    SubscriptionSerializer,
)


class ManagesWebhooks(BasePermission):
    """Lists and creating: leads and recruiters. An object by id: the lookup comes
    first (an empty queryset for others), so it answers 404 rather than 403."""

    message = "Only calibration leads and recruiters manage webhooks."

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not request.user.is_authenticated:
            return False
        return getattr(view, "detail", False) or selectors.may_manage_webhooks(request.user)


def _valid(request: Request, *, partial: bool = False) -> dict[str, Any]:
    serializer = SubscriptionInputSerializer(data=request.data, partial=partial)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# What a kept answer of the creating POST (core/api/idempotency.py) shows instead of the secret.
SECRET_NOT_KEPT = (
    "The signing secret is shown only in the first answer that created this subscription; "
    "it is not kept for replays. Delete the subscription and create another if it is lost."
)


class WebhookViewSet(
    ETagMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Webhook subscriptions. The signing secret is in the answer that creates one, only."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    permission_classes = [ManagesWebhooks]
    serializer_class = SubscriptionSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[WebhookSubscription]:
        return selectors.subscriptions_visible_to(self.request.user)

    @extend_schema(
        request=SubscriptionInputSerializer, responses={201: SubscriptionCreatedSerializer}
    )
    def create(self, request: Request) -> Response:
        """Subscribe a URL to events. The answer holds the secret, shown this once."""
        subscription = services.webhook_subscription_create(
            **_valid(request), by=signed_in(request)
        )
        response = Response(
            SubscriptionCreatedSerializer(subscription).data, status=status.HTTP_201_CREATED
        )
        setattr(response, REDACT_ATTRIBUTE, {"secret": SECRET_NOT_KEPT})
        return response

    @extend_schema(request=SubscriptionInputSerializer, responses={200: SubscriptionSerializer})
    def partial_update(self, request: Request, pk: int) -> Response:
        """Change the URL, the events, whether it is active or includes details."""
        subscription = self.get_object()
        subscription = services.webhook_subscription_update(
            subscription=subscription, by=signed_in(request), **_valid(request, partial=True)
        )
        return Response(SubscriptionSerializer(subscription).data)

    def perform_destroy(self, instance: WebhookSubscription) -> None:
        services.webhook_subscription_delete(subscription=instance, by=signed_in(self.request))

    @extend_schema(responses={200: DeliverySerializer(many=True)})
    @action(detail=True, methods=["get"])
    def deliveries(self, request: Request, pk: int) -> Response:
        """The subscription's delivery log, newest first: status, attempts, last answer."""
        subscription = self.get_object()
        page = self.paginate_queryset(selectors.deliveries_of(subscription=subscription))
        return self.get_paginated_response(DeliverySerializer(page, many=True).data)


class DeliveryReplayView(APIView):
    """Send a delivery's event again (same event id: receivers dedupe on it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            202: DeliverySerializer,
            409: error("The subscription is inactive."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        delivery = selectors.delivery_get(user=request.user, pk=pk)
        replay = services.webhook_delivery_replay(delivery=delivery, by=signed_in(request))
        return Response(
            DeliverySerializer(replay).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": reverse("webhook-delivery", args=[replay.pk])},
        )


class DeliveryView(APIView):
    """One delivery of one of the caller's subscriptions: where a replay's Location points."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: DeliverySerializer})
    def get(self, request: Request, pk: int) -> Response:
        delivery = selectors.delivery_get(user=request.user, pk=pk)
        return Response(DeliverySerializer(delivery).data)
