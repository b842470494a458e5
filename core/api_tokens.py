"""The signed-in user's own API tokens, for the /account/token/ page: read their state,
create a token (replacing the others), revoke them, with each change audited.

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

from config.token_auth import Issued, TokenExpired, token_issue, token_refusal, token_revoke
from core.models import ApiToken
from core.services import audit_event_record


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
