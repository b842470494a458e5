"""API token endpoints: sign in for a token, rotate it, revoke it.

When a token expires or stops working is decided in core/accounts/tokens.py.
"""

from typing import Any

from axes.helpers import get_cool_off
from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import AuthenticationFailed, ValidationError
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from core.accounts.oidc import PASSWORD_LOGIN_OFF_API, provider_name
from core.accounts.tokens import ExpiringTokenAuthentication, token_issue, token_revoke
from core.api.openapi import error
from core.api.parsers import JSONParser
from core.api.problems import PROBLEM_JSON, problem
from core.auth import signed_in
from core.models import ApiToken

TOKEN = inline_serializer("Token", {"token": serializers.CharField()})

BAD_CREDENTIALS = "Unable to log in with provided credentials."

LOCKED_OUT = (
    "Too many failed sign-ins for this account from your address; it is locked for "
    "{minutes} minutes. Try again later or ask an admin to unlock it."
)


def locked_out(request: Request) -> Response:
    cool_off = get_cool_off()
    seconds = int(cool_off.total_seconds()) if cool_off else 3600
    return Response(
        problem(status=429, code="locked_out", detail=LOCKED_OUT.format(minutes=seconds // 60)),
        status=status.HTTP_429_TOO_MANY_REQUESTS,
        headers={"Retry-After": str(seconds)},
        content_type=PROBLEM_JSON,
    )


def presented(request: Request) -> ApiToken | None:
    """Return the token the request was authenticated with, or None (a session)."""
    return request.auth if isinstance(request.auth, ApiToken) else None


class SignInSerializer(AuthTokenSerializer):
    fresh = serializers.BooleanField(
        default=False,
        write_only=True,
        help_text="Revoke your other tokens (default: they keep working).",
    )


# Obtaining a token is how a caller signs in, so it needs no credentials (`security: []`).
@extend_schema_view(
    post=extend_schema(
        auth=[],
        request=SignInSerializer,
        responses={
            200: TOKEN,
            401: error("The username and password match no active user."),
        },
    )
)
class TokenView(ObtainAuthToken):
    """POST a username and password for a new API token; DELETE revokes the token you send.

    The key is in this answer alone: the server keeps only its hash. A token lasts
    API_TOKEN_TTL_DAYS days (30 unless configured) and ends when your password changes.
    Each sign-in issues another token, the others keep working (at most 10, the oldest
    ending first); send `"fresh": true` to revoke the others.
    """

    serializer_class = SignInSerializer
    # ObtainAuthToken takes form and multipart bodies too; the API takes JSON only.
    parser_classes = [JSONParser]  # core/api/parsers.py: depth-limited
    # DRF leaves this view unthrottled; password guessing is what a rate is for (axes
    # locks a username out, the anonymous rate limits an address).
    throttle_classes = api_settings.DEFAULT_THROTTLE_CLASSES  # type: ignore[assignment]  # drf-stubs: str; DRF imports the classes

    def get_authenticators(self) -> list[BaseAuthentication]:
        # The password is the credential: a stale token or a session cookie sent along
        # (and the session's CSRF check) must not turn signing in into a 403.
        signing_in = getattr(self.request, "method", None) == "POST"  # None: schema generation
        return [] if signing_in else super().get_authenticators()

    def get_permissions(self) -> list[BasePermission]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else []

    def get_authenticate_header(self, request: Request) -> str:
        # Signing in has no authenticators, and DRF turns a 401 without a challenge into
        # a 403: a wrong password is a 401 with the API's challenge, as docs/api.md says.
        return ExpiringTokenAuthentication().authenticate_header(request)

    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not settings.PASSWORD_LOGIN:
            return Response(
                problem(
                    status=403,
                    code="password_login_off",
                    detail=PASSWORD_LOGIN_OFF_API.format(provider=provider_name()),
                    instance=request.path,
                ),
                status=status.HTTP_403_FORBIDDEN,
                content_type=PROBLEM_JSON,
            )
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            # axes refused even the right password: say so, as the sign-in page does,
            # rather than "Unable to log in with provided credentials".
            if getattr(request, "axes_locked_out", False):
                return locked_out(request)
            # A missing or malformed field is the body's fault (400, naming the field);
            # credentials that match no active user are refused credentials (401).
            if set(serializer.errors) == {api_settings.NON_FIELD_ERRORS_KEY}:
                raise AuthenticationFailed(BAD_CREDENTIALS)
            raise ValidationError(serializer.errors)
        data = serializer.validated_data
        issued = token_issue(user=data["user"], fresh=data["fresh"])
        return Response({"token": issued.key})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        # A token revokes itself (other clients of the account keep theirs); a session
        # revokes every token of the account.
        token_revoke(user=signed_in(request), token=presented(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRotateView(APIView):
    """Replace the API token you send with a new one; the old one stops working at once.

    Signed in with a session instead, all your tokens are replaced by the new one.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: TOKEN})
    def post(self, request: Request) -> Response:
        token = presented(request)
        issued = token_issue(user=signed_in(request), fresh=token is None, replacing=token)
        return Response({"token": issued.key}, status=status.HTTP_201_CREATED)
