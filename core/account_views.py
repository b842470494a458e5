"""The signed-in user's own account pages."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core import api_tokens
from core.auth import signed_in
from core.params import optional_choice

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
            if api_tokens.api_token_revoke(user=user):
                messages.success(request, "Your API token is revoked: it no longer works.")
            else:
                messages.info(request, "You have no API token: nothing to revoke.")
            return redirect("core:account-token")
        key = api_tokens.api_token_create(user=user).key
    return render(
        request,
        "core/account_token.html",
        {
            "token": api_tokens.api_token_state(user=user),
            "key": key,
            "ttl_days": settings.API_TOKEN_TTL_DAYS,
        },
    )
