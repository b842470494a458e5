"""API tokens: they expire, and they die with the password they were issued under.

A token the product issues is bound to its user's password: its key is a random part
and a MAC of that part, the user's id and the user's password hash (keyed with
SECRET_KEY, like Django's session auth hash). Any change to the stored hash, however
it is made (the admin's password forms, ``set_password`` and ``save`` in a service or
command, ``set_unusable_password``, a bulk update), makes the MAC stop matching, so
the token is refused with no signal, no extra column and nothing to forget to call.

==================================  =============================================
the token presented                 answer
==================================  =============================================
unknown key                         401 + WWW-Authenticate, "Invalid token."
older than API_TOKEN_TTL_DAYS       401 + WWW-Authenticate, "expired"; deleted
issued before the password changed  401 + WWW-Authenticate, "revoked"; deleted
user inactive                       401 + WWW-Authenticate, "User inactive or deleted."
otherwise                           signed in
==================================  =============================================

Keys made elsewhere with DRF's default (40 hex digits: ``Token.objects.create``, the
Token admin) carry no MAC; they expire like the others but survive a password change.
Everything this module issues is bound.

A sign-in returns the user's current token (several clients of one account keep
working); ``{"fresh": true}`` replaces it with a new one. Signing out of the site
(session logout) leaves tokens alone: they belong to API clients, which revoke theirs
with DELETE.
"""

import base64
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework import exceptions, status
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.authtoken.models import Token

# No rest_framework.views here: DRF imports this module while it loads its own views
# (DEFAULT_AUTHENTICATION_CLASSES), so the views live in config/tokens.py.

KEY_SALT = "config.tokens.password-bound-key"
# Token.key holds 40 characters: 24 random (144 bits), a dot no DRF key contains, and
# 15 of the MAC (90 bits; a stolen key must still match a row, so this only has to make
# surviving a password change unlikely, not be unforgeable on its own).
NONCE_LENGTH = 24
MAC_LENGTH = 15


class TokenRefused(exceptions.APIException):
    """A known token that no longer signs anyone in: 401 with a challenge saying why.

    Its own class, so that ``code`` says why (token_expired, token_revoked).
    """

    status_code = status.HTTP_401_UNAUTHORIZED
    reason = ""

    def __init__(self) -> None:
        url = reverse("api-token")
        super().__init__(f"{self.reason}; POST your username and password to {url} for a new one.")
        self.auth_header = f'Token error="invalid_token", error_description="{self.reason}"'


class TokenExpired(TokenRefused):
    default_code = "token_expired"
    reason = "This API token has expired"


class TokenRevoked(TokenRefused):
    default_code = "token_revoked"
    reason = "This API token was revoked because the password changed"


def _mac(*, user: User, nonce: str, secret: str | bytes) -> str:
    value = f"{user.pk}\n{user.password}\n{nonce}"
    digest = salted_hmac(KEY_SALT, value, secret=secret, algorithm="sha256").digest()
    return base64.urlsafe_b64encode(digest).decode()[:MAC_LENGTH]


def _bound_key(user: User) -> str:
    nonce = secrets.token_urlsafe(NONCE_LENGTH * 3 // 4)
    return f"{nonce}.{_mac(user=user, nonce=nonce, secret=settings.SECRET_KEY)}"


def _is_bound(key: str) -> bool:
    return len(key) == NONCE_LENGTH + 1 + MAC_LENGTH and key[NONCE_LENGTH] == "."


def token_refusal(token: Token) -> TokenRefused | None:
    """Return why ``token`` no longer signs its user in, or None if it still does."""
    if token.created <= timezone.now() - timedelta(days=settings.API_TOKEN_TTL_DAYS):
        return TokenExpired()
    if _is_bound(token.key):
        nonce, mac = token.key[:NONCE_LENGTH], token.key[NONCE_LENGTH + 1 :]
        # Keys issued before a SECRET_KEY rotation keep working while the old key is a
        # fallback, as sessions do.
        secrets_ = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
        if not any(
            constant_time_compare(mac, _mac(user=token.user, nonce=nonce, secret=secret))
            for secret in secrets_
        ):
            return TokenRevoked()
    return None


def token_issue(*, user: User, fresh: bool = False) -> Token:
    """Return ``user``'s usable token, replacing it when ``fresh`` or no longer usable."""
    with transaction.atomic():
        # The user's row, locked: concurrent sign-ins of one user take turns (one token
        # per user), and the key is bound to the password as stored, not as passed in.
        owner = User.objects.select_for_update().only("pk", "password").get(pk=user.pk)
        current = Token.objects.select_related("user").filter(user=owner).first()
        if current is not None and not fresh and token_refusal(current) is None:
            return current
        Token.objects.filter(user=owner).delete()
        return Token.objects.create(user=owner, key=_bound_key(owner))


def token_revoke(*, user: User) -> None:
    Token.objects.filter(user=user).delete()


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing tokens that expired or outlived their password.

    The token may come as ``Authorization: Token <key>`` (DRF's scheme) or ``Bearer
    <key>`` (what OpenAPI generators send for an HTTP bearer scheme): the same key.
    """

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        scheme = get_authorization_header(request).split(b" ", 1)[0].lower()
        if scheme == b"bearer":
            self.keyword = "Bearer"
        try:
            return super().authenticate(request)
        finally:
            self.keyword = "Token"

    def authenticate_header(self, request: Any) -> str:
        return 'Bearer realm="api", Token realm="api"'

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        refusal = token_refusal(token)
        if refusal is not None:
            # Refused for good: the row goes, so the next try is an unknown token.
            Token.objects.filter(pk=token.pk).delete()
            raise refusal
        return user, token
