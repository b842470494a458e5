"""Webhooks in the admin: subscriptions changed through their services (and so audited),
events and deliveries read-only, deliveries replayed by an action.

core/admin.py imports this module, so the admin finds it.
"""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from core.admin import ReadOnlyAdmin
from core.auth import signed_in
from core.webhooks import readers, services, targets
from core.webhooks.models import EventType, WebhookDelivery, WebhookEvent, WebhookSubscription


class SubscriptionForm(forms.ModelForm):
    event_types = forms.MultipleChoiceField(
        choices=EventType.choices, widget=forms.CheckboxSelectMultiple
    )

    # Who is saving (set per request by the admin's get_form): details are theirs to ask
    # for only if they may have them (readers.may_receive_details).
    user: Any = None

    class Meta:
        model = WebhookSubscription
        fields = ["url", "event_types", "active", "include_details"]

    def clean_include_details(self) -> bool:
        # The services refuse it too; asked here first, it is the field's error, not a 500.
        wanted: bool = self.cleaned_data["include_details"]
        if (
            wanted
            and not self.instance.include_details
            and not readers.may_receive_details(self.user)
        ):
            raise forms.ValidationError(services.DetailsForbidden().message)
        return wanted

    def clean_url(self) -> str:
        # The services refuse it too; asked here first, it is the field's error, not a 500.
        url: str = self.cleaned_data["url"]
        try:
            targets.url_check(url)
        except targets.PrivateTarget as refused:
            raise forms.ValidationError(refused.message.removeprefix("url: ")) from None
        return url


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin):
    """Adds, changes and deletes go through core.webhooks.services, which audit them.
    The secret is shown once, on the page that follows the add; never on the change form."""

    form = SubscriptionForm
    list_display = ["url", "active", "include_details", "created_by", "created_at"]
    list_filter = ["active", "include_details"]
    list_select_related = ["created_by"]
    readonly_fields = ["created_by", "created_at"]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        form.user = request.user  # type: ignore[attr-defined]  # SubscriptionForm.user, on a class made for this request
        return form

    def save_model(
        self, request: HttpRequest, obj: Any, form: forms.ModelForm, change: bool
    ) -> None:
        data = {name: form.cleaned_data[name] for name in SubscriptionForm.Meta.fields}
        if change:
            stored = WebhookSubscription.objects.get(pk=obj.pk)
            services.webhook_subscription_update(subscription=stored, by=signed_in(request), **data)
        else:
            created = services.webhook_subscription_create(**data, by=signed_in(request))
            obj.pk, obj.secret = created.pk, created.secret

    def response_add(
        self, request: HttpRequest, obj: Any, post_url_continue: str | None = None
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "subscription": obj,
            "next_url": reverse("admin:core_webhooksubscription_change", args=[obj.pk]),
        }
        # The admin's views are never cached (no-store): the one page with the secret neither.
        return TemplateResponse(request, "core/webhook_secret.html", context)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.webhook_subscription_delete(subscription=obj, by=signed_in(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for subscription in queryset:
            services.webhook_subscription_delete(subscription=subscription, by=signed_in(request))

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # The delivery log goes with its subscription, although deliveries are read-only
        # here (no one deletes a log line by itself).
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed.discard(WebhookDelivery._meta.verbose_name)
        return deleted, counts, perms_needed, protected


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "kind", "created_at"]
    list_filter = ["kind"]
    search_fields = ["event_id"]


@admin.action(description="Replay the selected deliveries (same event ids)")
def replay(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> None:
    replayed = 0
    for delivery in queryset.select_related("event", "subscription"):
        if delivery.subscription.active:
            services.webhook_delivery_replay(delivery=delivery, by=signed_in(request))
            replayed += 1
    skipped = queryset.count() - replayed
    note = f" ({skipped} skipped: their subscription is inactive)" if skipped else ""
    model_admin.message_user(request, f"Replayed {replayed} deliveries{note}.", messages.SUCCESS)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ["id", "event", "subscription", "status", "attempts", "last_status_code",
                    "last_response_ms", "next_attempt_at", "created_at"]  # fmt: skip
    list_filter = ["status"]
    list_select_related = ["event", "subscription"]
    search_fields = ["event__event_id"]
    actions = [replay]
