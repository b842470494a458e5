"""The signed-in user's own account pages: time zone, which emails you get, your calendar
feed address (/account/); your API token (/account/token/)."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.accounts import services, tokens
from core.accounts.models import Notice
from core.accounts.zones import browser_zone, zone_names
from core.auth import signed_in
from core.http.params import optional_choice


class AccountForm(forms.Form):
    time_zone = forms.ChoiceField(label="Time zone")
    emails = forms.MultipleChoiceField(
        label="Email me when",
        choices=Notice.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        zone = self.fields["time_zone"]
        assert isinstance(zone, forms.ChoiceField)
        zone.choices = [(name, name.replace("_", " ")) for name in sorted(zone_names())]


@never_cache  # the page that shows a new feed address must not be kept by any cache
@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """Show and save your settings; POST `action=feed` for a new calendar feed address
    (shown on this response alone) or `action=feed-revoke` to end it."""
    user = signed_in(request)
    profile = services.profile_of(user=user)
    initial = {
        "time_zone": profile.time_zone or browser_zone(request) or "UTC",
        "emails": [kind for kind in Notice.values if kind not in profile.emails_off],
    }
    form = AccountForm(initial=initial)
    feed_token = ""
    if request.method == "POST":
        action = request.POST.get("action", "save")
        if action == "feed":
            feed_token = services.calendar_feed_reset(user=user)
        elif action == "feed-revoke":
            services.calendar_feed_revoke(user=user)
            messages.success(request, "Your calendar feed address is revoked: it no longer works.")
            return redirect("core:account")
        elif action == "save":
            form = AccountForm(request.POST)
            if form.is_valid():
                try:
                    services.profile_update(
                        user=user,
                        time_zone=form.cleaned_data["time_zone"],
                        emails_on=form.cleaned_data["emails"],
                    )
                except ValidationError as exc:
                    form.add_error(None, exc)
                else:
                    messages.success(request, "Saved.")
                    return redirect("core:account")
        else:
            raise BadRequest("'action' must be one of save, feed, feed-revoke.")
    if request.method == "POST":
        # The action may have written it (a new feed address); a GET shows what was read.
        profile.refresh_from_db()
    feed_url = ""
    if feed_token:
        feed_url = request.build_absolute_uri(
            reverse("interviews:calendar-feed", args=[feed_token])
        )
    context = {
        "form": form,
        "profile": profile,
        "feed_url": feed_url,
    }
    return render(request, "core/account.html", context)


ACTIONS = ["create", "revoke"]


@never_cache  # the page that shows a new key must not be kept by any cache
@login_required
@require_http_methods(["GET", "POST"])
def account_token(request: HttpRequest) -> HttpResponse:
    """Show your API token's dates; POST `action=create` for a new one (its key shown on
    this response alone) or `action=revoke` to end it."""
    user = signed_in(request)
    key = ""
    if request.method == "POST":
        action = optional_choice(request.POST, "action", ACTIONS)
        if not action:
            raise BadRequest(f"'action' is missing: give one of {', '.join(ACTIONS)}.")
        if action == "revoke":
            if tokens.api_token_revoke(user=user):
                messages.success(request, "Your API token is revoked: it no longer works.")
            else:
                messages.info(request, "You have no API token: nothing to revoke.")
            return redirect("core:account-token")
        key = tokens.api_token_create(user=user).key
    return render(
        request,
        "core/account_token.html",
        {
            "token": tokens.api_token_state(user=user),
            "key": key,
            "ttl_days": settings.API_TOKEN_TTL_DAYS,
        },
    )
