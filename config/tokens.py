"""API tokens: obtain with a password, rotate, revoke."""

from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from core.auth import signed_in

TOKEN = inline_serializer("Token", {"token": serializers.CharField()})


# Obtaining a token is how a caller signs in, so it needs no credentials (`security: []`).
@extend_schema_view(post=extend_schema(auth=[]))
class TokenView(ObtainAuthToken):
    """POST a username and password for your API token; DELETE (signed in) revokes it."""

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

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=signed_in(request)).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRotateView(APIView):
    """Replace your API token with a new one; the old one stops working at once."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: TOKEN})
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user)
        return Response({"token": token.key}, status=status.HTTP_201_CREATED)
