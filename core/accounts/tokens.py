"""API tokens: stored hashed, they expire, and they die with the password they were
issued under.

A key is 256 random bits, shown to its owner once (the sign-in's answer, the account
page) and stored only as its SHA-256 digest (core.models.ApiToken), with its first
characters for telling tokens apart. A request's key is hashed and looked up by the
digest. A plain hash, not a keyed one: a key has 256 bits of entropy, so a stolen table
cannot be searched for keys either way, and a hash keyed with SECRET_KEY would end every
token when that key is rotated. Looking the digest up leaks nothing a timing attack
could use: the attacker controls the key, not its digest.

A token is bound to its user's password: the row keeps a MAC of the user's password
hash as it was at issue (keyed with SECRET_KEY, like Django's session auth hash). Any
change to the stored hash, however it is made (the admin's password forms,
``set_password`` and ``save`` in a service or command, ``set_unusable_password``, a
bulk update), makes the MAC stop matching, so the token is refused with no signal and
nothing to forget to call.

==================================  =============================================
the token presented                 answer
==================================  =============================================
unknown key                         401 + WWW-Authenticate, "Invalid token."
older than API_TOKEN_TTL_DAYS       401 + WWW-Authenticate, "expired"; deleted
issued before the password changed  401 + WWW-Authenticate, "revoked"; deleted
user inactive                       401 + WWW-Authenticate, "User inactive or deleted."
otherwise                           signed in
==================================  =============================================

Tokens from before keys were hashed keep working: migration core 0005 hashed them.
Those DRF made with its default (40 hex digits, no MAC) expire like the others but
survive a password change.

Each sign-in issues a new token (a stored key cannot be handed out again), so several
clients of one account keep working; ``{"fresh": true}`` revokes the others. A user
holds at most MAX_TOKENS_PER_USER; a sign-in past that ends the oldest. Signing out of
the site (session logout) leaves tokens alone: they belong to API clients, which revoke
theirs with DELETE.

The signed-in user's own tokens, for the /account/token/ page (``api_token_state``,
``api_token_create``, ``api_token_revoke``): read their state, create a token (replacing
the others), revoke them, with each change audited. The page is how someone who signs
in through single sign-on (no password for POST /api/v1/auth/token/) gets a token. The
audit event names the user and whether a token was replaced, never the key.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework import exceptions, status
from rest_framework.authentication import TokenAuthentication, get_authorization_header

from core.audit.services import audit_event_record
from core.models import ApiToken

# No rest_framework.views here: DRF imports this module while it loads its own views
# (DEFAULT_AUTHENTICATION_CLASSES), so the endpoints live in core/accounts/api.py.

PASSWORD_SALT = "config.tokens.password-bound-key"
KEY_BYTES = 32  # 256 random bits, 43 characters of URL-safe base64
PREFIX_LENGTH = 8
MAX_TOKENS_PER_USER = 10


def key_digest(key: str) -> str:
    """Return the stored form of ``key``: its SHA-256, in hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def password_mac(user: User, secret: str | bytes | None = None) -> str:
    """Return the MAC binding a token to ``user``'s password hash as stored now."""
    value = f"{user.pk}\n{user.password}"
    return salted_hmac(PASSWORD_SALT, value, secret=secret, algorithm="sha256").hexdigest()


@dataclass(frozen=True)
class Issued:
    """A token just issued, with its key: the only time the key is known."""

    token: ApiToken
    key: str


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


def token_refusal(token: ApiToken) -> TokenRefused | None:
    """Return why ``token`` no longer signs its user in, or None if it still does."""
    if token.created <= timezone.now() - timedelta(days=settings.API_TOKEN_TTL_DAYS):
        return TokenExpired()
    if token.password_mac:
        # Tokens issued before a SECRET_KEY rotation keep working while the old key is a
        # fallback, as sessions do.
        secrets_ = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
        if not any(
            constant_time_compare(token.password_mac, password_mac(token.user, secret))
            for secret in secrets_
        ):
            return TokenRevoked()
    return None


def token_issue(*, user: User, fresh: bool = False, replacing: ApiToken | None = None) -> Issued:
    """Issue ``user`` a new token; when ``fresh``, revoke their others; else ``replacing``.

    Tokens that no longer work are deleted, and the oldest beyond MAX_TOKENS_PER_USER.
    """
    with transaction.atomic():
        # The user's row, locked: concurrent sign-ins of one user take turns (the cap
        # holds), and the token is bound to the password as stored, not as passed in.
        owner = User.objects.select_for_update().only("pk", "password").get(pk=user.pk)
        held = list(ApiToken.objects.filter(user=owner).order_by("-created", "-id"))
        ended = [
            token.pk
            for n, token in enumerate(held, start=1)
            if fresh
            or n >= MAX_TOKENS_PER_USER
            or (replacing is not None and token.pk == replacing.pk)
            or _refused(token, owner)
        ]
        ApiToken.objects.filter(pk__in=ended).delete()
        key = secrets.token_urlsafe(KEY_BYTES)
        token = ApiToken.objects.create(
            user=owner,
            digest=key_digest(key),
            prefix=key[:PREFIX_LENGTH],
            password_mac=password_mac(owner),
        )
        return Issued(token=token, key=key)


def _refused(token: ApiToken, owner: User) -> bool:
    token.user = owner  # already read, and locked
    return token_refusal(token) is not None


def token_revoke(*, user: User, token: ApiToken | None = None) -> int:
    """Revoke ``token`` of ``user``, or all their tokens; return how many went."""
    tokens = ApiToken.objects.filter(user=user)
    deleted, _ = (tokens.filter(pk=token.pk) if token is not None else tokens).delete()
    return deleted


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
        try:
            token = ApiToken.objects.select_related("user").get(digest=key_digest(key))
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        refusal = token_refusal(token)
        if refusal is not None:
            # Refused for good: the row goes, so the next try is an unknown token.
            ApiToken.objects.filter(pk=token.pk).delete()
            raise refusal
        return token.user, token


@dataclass(frozen=True)
class TokenState:
    """What the page may say about a user's newest token: never its key."""

    prefix: str
    created: datetime
    expires: datetime
    # Why it no longer works ("expired", "revoked"), or "" while it does.
    refused: str
    # How many tokens the user holds, this one included (each API sign-in issues one).
    count: int


def expiry(token: ApiToken) -> datetime:
    """Return when ``token`` stops working (``token_refusal`` refuses it from then on)."""
    return token.created + timedelta(days=settings.API_TOKEN_TTL_DAYS)


def api_token_state(*, user: User) -> TokenState | None:
    """Return the state of ``user``'s newest token, or None when they have none."""
    tokens = list(ApiToken.objects.select_related("user").filter(user=user)[:2])
    if not tokens:
        return None
    token = tokens[0]
    refusal = token_refusal(token)
    if refusal is None:
        refused = ""
    else:
        refused = "expired" if isinstance(refusal, TokenExpired) else "revoked"
    count = ApiToken.objects.filter(user=user).count() if len(tokens) > 1 else 1
    return TokenState(
        prefix=token.prefix,
        created=token.created,
        expires=expiry(token),
        refused=refused,
        count=count,
    )


def _lock(user: User) -> User:
    # The user's row, as token_issue locks it: two tabs creating or revoking at once
    # take turns, so "replaced" and "had a token" are true of the change recorded.
    return User.objects.select_for_update().only("pk", "username", "password").get(pk=user.pk)


@transaction.atomic
def api_token_create(*, user: User) -> Issued:
    """Give ``user`` a new token, revoking any others, and audit it.

    The returned key is the only place it is ever shown from (the database keeps its
    hash): callers show it once and keep it nowhere.
    """
    owner = _lock(user)
    replaced = ApiToken.objects.filter(user=owner).exists()
    issued = token_issue(user=owner, fresh=True)
    audit_event_record(
        actor=user,
        action="api_token.created",
        target=f"user {owner.username}",
        replaced=replaced,
        expires=expiry(issued.token).isoformat(),
    )
    return issued


@transaction.atomic
def api_token_revoke(*, user: User) -> bool:
    """Revoke ``user``'s tokens; return whether they had one (only then is it audited)."""
    owner = _lock(user)
    if not ApiToken.objects.filter(user=owner).exists():
        return False
    token_revoke(user=owner)
    audit_event_record(actor=user, action="api_token.revoked", target=f"user {owner.username}")
    return True
