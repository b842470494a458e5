"""The signed-in user's own API token, for the /account/token/ page: read it, create
or replace it, revoke it, with each change audited.

When a token expires or stops working, and how a key is made, is decided in
config/token_auth.py; this module only asks it (`token_issue`, `token_revoke`,
`token_refusal`). The page is how someone who signs in through single sign-on (no
password for POST /api/v1/auth/token/) gets a token.

The audit event names the user and whether a token was replaced, never the key.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.authtoken.models import Token

from config.token_auth import TokenExpired, token_issue, token_refusal, token_revoke
from core.services import audit_event_record


@dataclass(frozen=True)
class TokenState:
    """What the page may say about a token: never its key."""

    created: datetime
    expires: datetime
    # Why it no longer works ("expired", "revoked"), or "" while it does.
    refused: str


def expiry(token: Token) -> datetime:
    """Return when ``token`` stops working (``token_refusal`` refuses it from then on)."""
    return token.created + timedelta(days=settings.API_TOKEN_TTL_DAYS)


def api_token_state(*, user: User) -> TokenState | None:
    """Return the state of ``user``'s token, or None when they have none."""
    token = Token.objects.select_related("user").filter(user=user).first()
    if token is None:
        return None
    refusal = token_refusal(token)
    if refusal is None:
        refused = ""
    else:
        refused = "expired" if isinstance(refusal, TokenExpired) else "revoked"
    return TokenState(created=token.created, expires=expiry(token), refused=refused)


def _lock(user: User) -> User:
    # The user's row, as token_issue locks it: two tabs creating or revoking at once
    # take turns, so "replaced" and "had a token" are true of the change recorded.
    return User.objects.select_for_update().only("pk", "username", "password").get(pk=user.pk)


@transaction.atomic
def api_token_create(*, user: User) -> Token:
    """Give ``user`` a new token, revoking any old one, and audit it.

    The returned token is the only place the key is ever shown from: callers show it
    once and keep it nowhere.
    """
    owner = _lock(user)
    replaced = Token.objects.filter(user=owner).exists()
    token = token_issue(user=owner, fresh=True)
    audit_event_record(
        actor=user,
        action="api_token.created",
        target=f"user {owner.username}",
        replaced=replaced,
        expires=expiry(token).isoformat(),
    )
    return token


@transaction.atomic
def api_token_revoke(*, user: User) -> bool:
    """Revoke ``user``'s token; return whether they had one (only then is it audited)."""
    owner = _lock(user)
    if not Token.objects.filter(user=owner).exists():
        return False
    token_revoke(user=owner)
    audit_event_record(actor=user, action="api_token.revoked", target=f"user {owner.username}")
    return True
