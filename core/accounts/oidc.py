"""Single sign-on with OpenID Connect: the provider's endpoints, checking what it sends,
and who someone is here once signed in. mozilla-django-oidc runs the protocol (state,
nonce, code exchange); settings come from config/settings.py's oidc_settings().

Who someone is here is the account linked to their identity at the provider: the ID
token's issuer and subject (core.accounts.models.ExternalIdentity). A first sign-in
makes a new account; no username or email ever leads to an existing one, which only an
administrator can link (core.accounts.services.external_identity_link).

A sign-in is refused, with the reason's words on the failure page (core/accounts/oidc_views.py),
and nothing is written and nobody signed in, when:

=========  ============================================================================
reason     when
=========  ============================================================================
state      the answer matches no sign-in started from this browser (state unknown,
           session gone, the callback opened by hand)
denied     the provider answered with an error (the person cancelled, or was refused)
provider   the provider cannot be reached or refuses the code exchange, or its
           discovery document is unreadable
signature  the ID token's signature does not verify against a key the provider
           publishes, or uses another algorithm than OIDC_RP_SIGN_ALGO
audience   the ID token was issued for another client
issuer     the ID token comes from another issuer than the provider's
expired    the ID token has expired (or is not valid yet: a clock is wrong)
replay     the ID token's nonce is not this sign-in's
malformed  the ID token cannot be read, lacks a required claim, or the userinfo
           answer is about someone else
account    no usable username in the claims (OIDC_USERNAME_CLAIM, then ``sub``)
no_role    none of the person's groups maps to a persona (OIDC_GROUP_*)
inactive   the account linked to the person's identity here is deactivated
=========  ============================================================================
"""

import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import jwt
import requests
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import SuspiciousOperation, ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from mozilla_django_oidc.auth import (  # type: ignore[import-untyped]  # ships no type information
    OIDCAuthenticationBackend,
)

from core.accounts.models import ExternalIdentity
from core.audit import selectors, services
from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from core.validators import one_line

logger = logging.getLogger(__name__)

# What the failure page says for each reason (see the table above).
REFUSALS = {
    "state": (
        "This sign-in could not be matched to one started from this browser. It may have "
        "taken too long, or been started in another tab or browser. Please start again."
    ),
    "denied": "The sign-in was cancelled or refused at your company's sign-in page.",
    "provider": (
        "This service could not reach your company's sign-in service, or it refused the "
        "request. Try again in a few minutes; if it keeps happening, tell your administrator."
    ),
    "signature": (
        "The answer from your company's sign-in service did not carry a valid signature, "
        "so it could not be trusted. You have not been signed in."
    ),
    "audience": (
        "The answer from your company's sign-in service was meant for another application, "
        "not this one. You have not been signed in."
    ),
    "issuer": (
        "The answer came from another sign-in service than the one this service trusts. "
        "You have not been signed in."
    ),
    "expired": (
        "The sign-in had expired by the time it reached this service (or a computer's clock "
        "is wrong). Please sign in again."
    ),
    "replay": (
        "The answer from your company's sign-in service belongs to another sign-in (it may "
        "have been replayed). Please sign in again."
    ),
    "malformed": (
        "Your company's sign-in service sent an answer this service could not read. "
        "Tell your administrator."
    ),
    "account": (
        "Your company account has no user name this service can use. Ask your administrator."
    ),
    "no_role": "Your account has no role in this service; ask your administrator.",
    "inactive": "Your account in this service is deactivated; ask your administrator.",
    "unknown": "The sign-in did not succeed. Please try again.",
}

# The persona each OIDC_GROUP_* setting grants (core/permissions.py's groups).
PERSONA_SETTINGS = {
    RECRUITER: "OIDC_GROUP_RECRUITER",
    INTERVIEWER: "OIDC_GROUP_INTERVIEWER",
    LEAD: "OIDC_GROUP_LEAD",
    HIRING_MANAGER: "OIDC_GROUP_HIRING_MANAGER",
}

PASSWORD_LOGIN_OFF = "Password sign-in is turned off for this service: sign in with {provider}."
# For POST /api/v1/auth/token/ (core/accounts/api.py) when PASSWORD_LOGIN is off.
PASSWORD_LOGIN_OFF_API = (
    "Password sign-in is turned off for this service, so an API token cannot be "
    "obtained with a password; sign in with {provider} in the browser."
)


class SignInRefused(Exception):
    """A single sign-on that must not sign anyone in; `reason` is a key of REFUSALS."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be read, or lacks an endpoint."""


def _conf(name: str, default: Any = "") -> Any:
    # The OIDC settings exist only when single sign-on is configured.
    return getattr(settings, name, default)


def provider_name() -> str:
    return str(_conf("OIDC_PROVIDER_NAME", "your company account"))


@dataclass(frozen=True)
class Provider:
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str
    end_session_endpoint: str
    issuer: str


# Discovery documents by URL, each fetched once per process (at the first sign-in).
_discovered: dict[str, dict[str, Any]] = {}


def _discovery(url: str) -> dict[str, Any]:
    if url in _discovered:
        return _discovered[url]
    try:
        response = requests.get(
            url, timeout=_conf("OIDC_TIMEOUT", 10), verify=_conf("OIDC_VERIFY_SSL", True)
        )
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ProviderUnavailable(
            f"could not read the discovery document at OIDC_OP_DISCOVERY_URL={url}: {exc}"
        ) from exc
    if not isinstance(document, dict):
        raise ProviderUnavailable(f"the discovery document at {url} is not a JSON object")
    _discovered[url] = document
    return document


def provider() -> Provider:
    """Return the provider's endpoints: those configured, the others from its discovery
    document. Raise ProviderUnavailable, naming what is missing, if that fails."""
    url = _conf("OIDC_OP_DISCOVERY_URL")
    document = _discovery(url) if url else {}

    def pick(setting: str, key: str) -> str:
        return str(_conf(setting) or document.get(key) or "")

    found = Provider(
        authorization_endpoint=pick("OIDC_OP_AUTHORIZATION_ENDPOINT", "authorization_endpoint"),
        token_endpoint=pick("OIDC_OP_TOKEN_ENDPOINT", "token_endpoint"),
        userinfo_endpoint=pick("OIDC_OP_USER_ENDPOINT", "userinfo_endpoint"),
        jwks_uri=pick("OIDC_OP_JWKS_ENDPOINT", "jwks_uri"),
        end_session_endpoint=pick("OIDC_OP_LOGOUT_ENDPOINT", "end_session_endpoint"),
        issuer=pick("OIDC_OP_ISSUER", "issuer"),
    )
    needed = {
        "authorization_endpoint": found.authorization_endpoint,
        "token_endpoint": found.token_endpoint,
        "jwks_uri": found.jwks_uri,
    }
    missing = [key for key, value in needed.items() if not value]
    if missing:
        raise ProviderUnavailable(f"the discovery document at {url} has no {', '.join(missing)}")
    return found


def provider_logout_url(*, id_token: str, post_logout_redirect_uri: str) -> str | None:
    """Return the provider's end-session URL for this ID token, or None if it has none."""
    try:
        endpoint = provider().end_session_endpoint
    except ProviderUnavailable as exc:
        logger.warning("single sign-on: signed out here only: %s", exc)
        return None
    if not endpoint:
        return None
    query = urlencode(
        {
            "id_token_hint": id_token,
            "post_logout_redirect_uri": post_logout_redirect_uri,
            "client_id": _conf("OIDC_RP_CLIENT_ID"),
        }
    )
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"


def managed_personas() -> dict[str, set[str]]:
    """Return, for each persona with a mapping, the provider's groups that grant it."""
    mapping = {persona: set(_conf(name, [])) for persona, name in PERSONA_SETTINGS.items()}
    return {persona: groups for persona, groups in mapping.items() if groups}


def personas_from(claims: dict[str, Any]) -> set[str]:
    """Return the personas that the groups claim grants."""
    value = claims.get(_conf("OIDC_GROUPS_CLAIM", "groups"))
    if isinstance(value, str):
        names = {value}
    elif isinstance(value, list):
        names = {item for item in value if isinstance(item, str)}
    else:
        names = set()
    return {persona for persona, groups in managed_personas().items() if names & groups}


def username_from(claims: dict[str, Any]) -> str:
    name = claims.get(_conf("OIDC_USERNAME_CLAIM", "preferred_username")) or claims.get("sub")
    if not isinstance(name, str):
        raise SignInRefused("account", "no username claim and no sub")
    name = User.normalize_username(name)
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError as exc:
        raise SignInRefused("account", f"username {name!r} is not valid here") from exc
    if len(name) > User._meta.get_field("username").max_length:  # type: ignore[operator]  # CharField: an int
        raise SignInRefused("account", f"username {name!r} is too long")
    return name


def _text(claims: dict[str, Any], name: str, limit: int) -> str:
    value = claims.get(name)
    return value[:limit] if isinstance(value, str) else ""


def _free_username(wanted: str) -> str:
    """Return `wanted` if no account has it (in any case), else the first of wanted-2,
    wanted-3, ... that none has (cut to fit the username's length)."""
    limit: int = User._meta.get_field("username").max_length  # type: ignore[assignment]  # CharField: an int
    if not User.objects.filter(username__iexact=wanted).exists():
        return wanted
    # Room for a suffix up to -999999999 (the pattern is a literal: usernames hold
    # letters, digits and @.+-_, which re.escape escapes in a way both databases read).
    base = wanted[: limit - 10]
    taken = {
        name.lower()
        for name in User.objects.filter(
            username__iregex=rf"^{re.escape(base)}-[0-9]+$"
        ).values_list("username", flat=True)
    }
    number = 2
    while f"{base}-{number}".lower() in taken:
        number += 1
    return f"{base}-{number}"


def _first_sign_in(*, issuer: str, subject: str, username: str, **names: str) -> User:
    """Return the account of someone whose identity has none: a new one, with no usable
    password, linked to the identity. An account that has the username they asked for
    stays someone else's: they get a free username beside it (_free_username)."""
    for _ in range(5):
        try:
            with transaction.atomic():
                user = User.objects.create(
                    username=_free_username(username), password=make_password(None), **names
                )
                ExternalIdentity.objects.create(issuer=issuer, subject=subject, user=user)
        except IntegrityError:
            # At the same moment, another sign-in took the username, or this person's
            # other sign-in made their account: look again.
            identity = ExternalIdentity.objects.filter(issuer=issuer, subject=subject).first()
            if identity is not None:
                return User.objects.select_for_update().get(pk=identity.user_id)
            continue
        if user.username != username:
            logger.warning(
                "single sign-on: subject %s at %s asked for the username %r, which an "
                "account here has; their new account is %r",
                subject,
                issuer,
                username,
                user.username,
            )
        return user
    raise SignInRefused("account", f"no free username like {username!r}")


def _name(claims: dict[str, Any], name: str, limit: int) -> str:
    # A name is one line without invisible or reordering characters (core/validators.py);
    # the provider's is cleaned rather than refused, since nobody here can correct it.
    return one_line(_text(claims, name, 1000))[:limit]


@transaction.atomic
def oidc_user_sync(
    *,
    issuer: str,
    subject: str,
    username: str,
    email: str,
    first_name: str,
    last_name: str,
    personas: set[str],
    managed: set[str],
) -> User:
    """Return the account of the provider's person (`issuer`, `subject`), signing in,
    and give them exactly `personas` among the `managed` ones (their other groups
    stay), and the hiring-manager persona to anyone who owns a role. A change of access
    is audited.

    1. The identity linked to an account (ExternalIdentity) is that account's: its
       email and names follow the claims. A deactivated one is refused.
    2. An identity seen for the first time gets a new account without a usable
       password (_first_sign_in), named `username` if that is free. An existing
       account is never taken over, nor its email changed, whatever its username or
       email: only an administrator links one (core.accounts.services).
    """
    names = {"email": email, "first_name": first_name, "last_name": last_name}
    identity = ExternalIdentity.objects.filter(issuer=issuer, subject=subject).first()
    if identity is None:
        user = _first_sign_in(issuer=issuer, subject=subject, username=username, **names)
    else:
        user = User.objects.select_for_update().get(pk=identity.user_id)
    if not user.is_active:
        raise SignInRefused("inactive", f"user {user.username} is deactivated")
    before = selectors.user_access(pk=user.pk)
    # The provider is the source of these; a claim it leaves out changes nothing.
    changed = [field for field, value in names.items() if value and getattr(user, field) != value]
    for field in changed:
        setattr(user, field, names[field])
    if changed:
        user.save(update_fields=changed)
    # Owning a role is granted on the role's page (kit.services.role_owners_set) and makes
    # its owner a hiring manager: the provider's group grants that persona too, but does
    # not take it from someone who owns a role.
    if HIRING_MANAGER in managed and user.owned_roles.exists():
        personas = personas | {HIRING_MANAGER}
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in managed}
    held = set(user.groups.filter(name__in=managed).values_list("name", flat=True))
    user.groups.add(*[groups[name] for name in personas - held])
    user.groups.remove(*[groups[name] for name in (managed - personas) & held])
    services.user_access_record(user=user, before=before, by=None)
    return user


def _refusal_for(exc: jwt.PyJWTError) -> SignInRefused:
    """Return the refusal for a token PyJWT would not accept, the most specific first."""
    table: list[tuple[type[jwt.PyJWTError], str]] = [
        (jwt.InvalidSignatureError, "signature"),
        (jwt.InvalidAlgorithmError, "signature"),
        (jwt.ExpiredSignatureError, "expired"),
        (jwt.ImmatureSignatureError, "expired"),
        (jwt.InvalidAudienceError, "audience"),
        (jwt.InvalidIssuerError, "issuer"),
    ]
    for kind, reason in table:
        if isinstance(exc, kind):
            return SignInRefused(reason, f"ID token refused: {exc}")
    return SignInRefused("malformed", f"ID token refused: {exc}")


class SignInBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend, checking more and refusing in words.

    Beyond the library's checks (signature, nonce) this one checks the audience, the
    issuer and the expiry, takes the username from OIDC_USERNAME_CLAIM, and sets the
    persona groups from OIDC_GROUPS_CLAIM at every sign-in. A refusal raises
    SignInRefused, which core/accounts/oidc_views.py turns into the failure page.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Not the library's __init__: it reads the endpoints from settings, and with a
        # discovery URL they are known only at sign-in. Django builds a backend for
        # every signed-in request (get_user), so this stays cheap and offline.
        self.UserModel = User
        self.OIDC_RP_CLIENT_ID = _conf("OIDC_RP_CLIENT_ID")
        self.OIDC_RP_CLIENT_SECRET = _conf("OIDC_RP_CLIENT_SECRET")
        self.OIDC_RP_SIGN_ALGO = _conf("OIDC_RP_SIGN_ALGO", "RS256")
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.issuer = ""

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        # A password sign-in (the login form, the token view) is ModelBackend's business,
        # whatever its query string carries.
        if request is None or "password" in kwargs or "username" in kwargs:
            return None
        if not (request.GET.get("code") and request.GET.get("state")):
            return None
        try:
            endpoints = provider()
        except ProviderUnavailable as exc:
            raise SignInRefused("provider", str(exc)) from exc
        self.OIDC_OP_TOKEN_ENDPOINT = endpoints.token_endpoint
        self.OIDC_OP_USER_ENDPOINT = endpoints.userinfo_endpoint
        self.OIDC_OP_JWKS_ENDPOINT = endpoints.jwks_uri
        self.issuer = endpoints.issuer
        try:
            user: User | None = super().authenticate(request, **kwargs)
        except requests.RequestException as exc:
            raise SignInRefused("provider", f"talking to the provider: {exc}") from exc
        return user

    def _signing_key(self, header: dict[str, Any]) -> Any:
        """Return the provider's published key that the token's header names."""
        algorithm = self.OIDC_RP_SIGN_ALGO
        if algorithm.startswith("HS"):
            return self.OIDC_RP_CLIENT_SECRET
        response = requests.get(
            self.OIDC_OP_JWKS_ENDPOINT,
            timeout=_conf("OIDC_TIMEOUT", 10),
            verify=_conf("OIDC_VERIFY_SSL", True),
        )
        response.raise_for_status()
        kid = header.get("kid")
        keys = [
            key
            for key in response.json().get("keys", [])
            if (kid is None or key.get("kid") == kid)
            and key.get("alg", algorithm) == algorithm
            and key.get("use", "sig") == "sig"
        ]
        # A token that names no key may use the provider's only one.
        if len(keys) != 1:
            raise SignInRefused(
                "signature", f"{len(keys)} published keys match the ID token's kid {kid!r}"
            )
        try:
            return jwt.PyJWK(keys[0], algorithm=algorithm)
        except jwt.PyJWTError as exc:
            raise SignInRefused("signature", f"unusable published key: {exc}") from exc

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        """Return the ID token's claims once its signature, audience, issuer, expiry and
        (at sign-in) nonce are right; raise SignInRefused otherwise."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise SignInRefused("malformed", f"ID token unreadable: {exc}") from exc
        if header.get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SignInRefused(
                "signature",
                f"ID token signed with {header.get('alg')!r}, not {self.OIDC_RP_SIGN_ALGO}",
            )
        try:
            payload: dict[str, Any] = jwt.decode(
                token,
                self._signing_key(header),
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=self.issuer or None,
                options={"require": ["exp", "iat", "aud", "iss", "sub"]},
                leeway=_conf("OIDC_LEEWAY_SECONDS", 30),
            )
        except jwt.PyJWTError as exc:
            raise _refusal_for(exc) from exc
        audience = payload["aud"]
        # Several audiences: the authorized party must be this client (OIDC Core 3.1.3.7).
        several = isinstance(audience, list) and len(audience) > 1
        if several and payload.get("azp") != self.OIDC_RP_CLIENT_ID:
            raise SignInRefused("audience", f"azp {payload.get('azp')!r} is not this client")
        if "nonce" in kwargs and payload.get("nonce") != kwargs["nonce"]:
            raise SignInRefused("replay", "the ID token's nonce is not this sign-in's")
        return payload

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """Return the ID token's claims updated with the userinfo endpoint's, if any."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if not isinstance(userinfo, dict) or userinfo.get("sub") != payload.get("sub"):
                raise SignInRefused("malformed", "the userinfo answer is about someone else")
            claims.update(userinfo)
        return claims

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User:
        # Who the person is comes from the verified ID token only: a userinfo answer
        # may add claims but not change these.
        issuer, subject = payload["iss"], payload["sub"]
        for name, value in (("iss", issuer), ("sub", subject)):
            if not isinstance(value, str) or not 0 < len(value) <= 255:
                raise SignInRefused("malformed", f"the ID token's {name} is not 1 to 255 chars")
        claims = self.get_userinfo(access_token, id_token, payload)
        username = username_from(claims)
        personas = personas_from(claims)
        if not personas:
            groups = claims.get(_conf("OIDC_GROUPS_CLAIM", "groups"))
            raise SignInRefused("no_role", f"{username}: groups {groups!r} map to no persona")
        return oidc_user_sync(
            issuer=issuer,
            subject=subject,
            username=username,
            email=_text(claims, "email", 254),
            first_name=_name(claims, "given_name", 150),
            last_name=_name(claims, "family_name", 150),
            personas=personas,
            managed=set(managed_personas()),
        )

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        # Never used (get_or_create_user above matches on the issuer and subject), but
        # the library's version matches on email, which must never happen.
        raise SuspiciousOperation("SignInBackend matches users by issuer and subject only")
