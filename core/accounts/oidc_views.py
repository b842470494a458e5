"""Pages of single sign-on: the sign-in page, the start of a sign-in at the provider,
its answer, the failure page and signing out (core/accounts/oidc_urls.py routes them)."""

import logging
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.generic import View
from mozilla_django_oidc.views import (  # type: ignore[import-untyped]  # ships no type information
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from core.accounts import oidc

logger = logging.getLogger(__name__)


def _failed(reason: str) -> HttpResponseRedirect:
    failure_url = getattr(settings, "LOGIN_REDIRECT_URL_FAILURE", "/oidc/failed/")
    return HttpResponseRedirect(f"{failure_url}?{urlencode({'reason': reason})}")


class SignInView(LoginView):
    """Django's sign-in page, with the provider's button, and without the password form
    when PASSWORD_LOGIN is off."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sso_provider_name"] = oidc.provider_name() if settings.OIDC_ENABLED else ""
        context["password_login_off"] = not settings.PASSWORD_LOGIN
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if settings.PASSWORD_LOGIN:
            return super().post(request, *args, **kwargs)
        # An unbound form: a bound one would check the password on rendering.
        context = self.get_context_data(
            form=self.get_form_class()(request),
            password_refused=oidc.PASSWORD_LOGIN_OFF.format(provider=oidc.provider_name()),
        )
        return self.render_to_response(context, status=403)


class SignInStartView(OIDCAuthenticationRequestView):
    """Send the browser to the provider to sign in (the library's view, whose
    authorization endpoint may come from the discovery document)."""

    def __init__(self, **kwargs: Any) -> None:
        # Not the library's __init__: it reads the endpoint from settings, and with a
        # discovery URL it is known only once the document has been read.
        View.__init__(self, **kwargs)
        self.OIDC_RP_CLIENT_ID = getattr(settings, "OIDC_RP_CLIENT_ID", "")

    def get(self, request: HttpRequest) -> HttpResponse:
        try:
            self.OIDC_OP_AUTH_ENDPOINT = oidc.provider().authorization_endpoint
        except oidc.ProviderUnavailable as exc:
            logger.warning("single sign-on refused (provider): %s", exc)
            return _failed("provider")
        response: HttpResponse = super().get(request)
        return response


class SignInCallbackView(OIDCAuthenticationCallbackView):
    """The provider's answer: the library's view, landing on the failure page with the
    reason (core/accounts/oidc.py's table) instead of a bare redirect or a 400."""

    failure_reason = "unknown"

    def get(self, request: HttpRequest) -> HttpResponse:
        if request.GET.get("error"):
            # The library forgets the state and signs out whoever was signed in.
            self.failure_reason = "denied"
            logger.warning("single sign-on refused (denied): %s", request.GET.get("error"))
        else:
            state = request.GET.get("state")
            if not request.GET.get("code") or state not in request.session.get("oidc_states", {}):
                # The library would answer 400 (SuspiciousOperation) for an unknown state.
                logger.warning("single sign-on refused (state): no sign-in started with it")
                return _failed("state")
        try:
            response: HttpResponse = super().get(request)
        except oidc.SignInRefused as refusal:
            logger.warning("single sign-on refused (%s): %s", refusal.reason, refusal)
            self.failure_reason = refusal.reason
            return self.login_failure()
        return response

    def login_failure(self) -> HttpResponse:
        return _failed(self.failure_reason)


def sign_in_failed(request: HttpRequest) -> HttpResponse:
    """Say, in plain words, why a single sign-on did not sign anyone in."""
    reason = request.GET.get("reason", "")
    message = oidc.REFUSALS.get(reason) or oidc.REFUSALS["unknown"]
    return render(
        request,
        "registration/sign_in_failed.html",
        {"message": message, "sso_provider_name": oidc.provider_name()},
        status=502 if reason == "provider" else 403,
    )


class SignOutView(LogoutView):
    """Sign out here and, for someone who signed in through the provider, there too:
    to its end-session endpoint with the ID token as hint and the sign-in page to come
    back to."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        id_token = request.session.get("oidc_id_token")
        response = super().post(request, *args, **kwargs)
        if not id_token or not isinstance(response, HttpResponseRedirect):
            return response
        url = oidc.provider_logout_url(
            id_token=id_token,
            post_logout_redirect_uri=request.build_absolute_uri(reverse("login")),
        )
        return HttpResponseRedirect(url) if url else response
