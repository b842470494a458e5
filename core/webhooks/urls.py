"""The webhook API's routes, under /api/v1/ (config/urls.py includes them)."""

from django.urls import path

from core.api.routers import ApiRouter
from core.webhooks import api

router = ApiRouter()
router.register("webhooks", api.WebhookViewSet, basename="webhook")

urlpatterns = [
    path(
        "webhooks/deliveries/<int:pk>/",
        api.DeliveryView.as_view(),
        name="webhook-delivery",
    ),
    path(
        "webhooks/deliveries/<int:pk>/replay/",
        api.DeliveryReplayView.as_view(),
        name="webhook-delivery-replay",
    ),
    *router.urls,
]
