"""A real OpenID provider on a loopback port, for the single sign-on tests.

oidc-provider-mock (discovery, JWKS, authorize, token, userinfo, end session) runs in a
thread behind a thin WSGI layer that records the pages asked for and can make the
provider misbehave: sign ID tokens with a key it does not publish, or issue them for
another client, as another issuer, expired or for another sign-in.
`running(expired=True)` runs one whose own ID tokens have already expired.

`sso_site(...)` turns single sign-on on for one test the way the environment does:
the variables go through config.settings.oidc_settings(), config/urls.py is reloaded
so that its conditional include sees them, and no discovery document is known yet.
"""

import importlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import oidc_provider_mock
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from django.test import override_settings
from django.urls import clear_url_caches
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

CLIENT_ID = "interview-kit"
CLIENT_SECRET = "kit-secret"
PROVIDER_NAME = "Acme SSO"
GROUPS = {
    "OIDC_GROUP_RECRUITER": "kit-recruiters",
    "OIDC_GROUP_INTERVIEWER": "kit-interviewers",
    "OIDC_GROUP_LEAD": "kit-leads",
}

# The provider's people: their subject and claims.
LENA = oidc_provider_mock.User(
    sub="lena-sub",
    claims={
        "preferred_username": "lena",
        "given_name": "Lena",
        "family_name": "Lindgren",
        "email": "lena@acme.example",
        "groups": ["kit-leads", "all-staff"],
    },
)
ROB = oidc_provider_mock.User(
    sub="rob-sub",
    claims={"preferred_username": "rob", "email": "rob@acme.example", "groups": ["kit-recruiters"]},
)
NORA = oidc_provider_mock.User(
    sub="nora-sub",
    claims={"preferred_username": "nora", "email": "nora@acme.example", "groups": ["all-staff"]},
)
# No preferred_username: the username is the subject.
SAM = oidc_provider_mock.User(sub="sam-sub", claims={"groups": "kit-interviewers"})
PEOPLE = (LENA, ROB, NORA, SAM)

# The issuer of tokens "from another provider".
OTHER_ISSUER = "https://sso.elsewhere.example"
# Keys the provider never publishes (a forger's), and one it publishes when it issues
# tampered tokens. Made once: an RSA key takes a while.
FORGED_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


class Provider:
    """The provider's WSGI app, with a record of visits and a way to misbehave."""

    def __init__(self, *, expired: bool) -> None:
        self.app = oidc_provider_mock.app(
            user_claims=PEOPLE,
            require_nonce=True,
            access_token_max_age=timedelta(seconds=-300) if expired else timedelta(hours=1),
        )
        # None (honest), "signature" (signs with FORGED_KEY), "audience" (tokens for
        # another client), "issuer" (tokens of another provider), "expired" (tokens that
        # expired ten minutes ago) or "nonce" (tokens of another sign-in); all but the
        # first are signed with OTHER_KEY, which it then publishes.
        self.misbehave: str | None = None
        self.visits: list[tuple[str, dict[str, str]]] = []
        self.url = ""

    @property
    def discovery_url(self) -> str:
        return f"{self.url}/.well-known/openid-configuration"

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        if request.method == "GET":
            self.visits.append((request.path, dict(request.args)))
        tampered = (
            ["/oauth2/token"] if self.misbehave == "signature" else ["/oauth2/token", "/jwks"]
        )
        if self.misbehave is None or request.path not in tampered:
            return self.app(environ, start_response)
        response = Response.from_app(self.app, environ)
        body = response.get_json()
        if request.path == "/jwks":
            key = jwt.algorithms.RSAAlgorithm.to_jwk(OTHER_KEY.public_key(), as_dict=True)
            body = {"keys": [{**key, "kid": "other", "alg": "RS256", "use": "sig"}]}
        elif response.status_code == 200:
            claims = jwt.decode(body["id_token"], options={"verify_signature": False})
            if self.misbehave == "signature":
                body["id_token"] = jwt.encode(claims, FORGED_KEY, algorithm="RS256")
            else:
                claims.update(self._tampered_claims())
                body["id_token"] = jwt.encode(
                    claims, OTHER_KEY, algorithm="RS256", headers={"kid": "other"}
                )
        response.set_data(json.dumps(body))
        return response(environ, start_response)

    def _tampered_claims(self) -> dict[str, Any]:
        now = int(time.time())
        return {
            "audience": {"aud": ["another-app"]},
            "issuer": {"iss": OTHER_ISSUER},
            "expired": {"iat": now - 3600, "exp": now - 600},
            "nonce": {"nonce": "a-nonce-of-another-sign-in"},
        }[self.misbehave or ""]

    def document(self) -> dict[str, Any]:
        return requests.get(self.discovery_url, timeout=10).json()

    def authorize(self, location: str, sub: str) -> str:
        """Sign `sub` in on the provider's authorization page that `location` opens;
        return where the provider sends the browser back to."""
        answer = requests.post(location, data={"sub": sub}, allow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text
        return answer.headers["Location"]

    def set_claims(self, sub: str, claims: dict[str, Any]) -> None:
        answer = requests.put(f"{self.url}/users/{sub}", json=claims, timeout=10)
        assert answer.status_code == 204, answer.text

    def verify(self, id_token: str) -> dict[str, Any]:
        """Return the claims of an ID token this provider issued (its signature checked)."""
        keys = requests.get(self.document()["jwks_uri"], timeout=10).json()["keys"]
        key = jwt.PyJWK(keys[0], algorithm="RS256")
        return jwt.decode(id_token, key, algorithms=["RS256"], audience=CLIENT_ID)


@contextmanager
def running(*, expired: bool = False) -> Iterator[Provider]:
    provider = Provider(expired=expired)
    server = make_server("127.0.0.1", 0, provider, threaded=True, request_handler=_Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    provider.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield provider
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def query(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


ENVIRONMENT = (
    "PASSWORD_LOGIN",
    "OIDC_RP_CLIENT_ID",
    "OIDC_RP_CLIENT_SECRET",
    "OIDC_RP_CLIENT_SECRET_FILE",
    "OIDC_OP_DISCOVERY_URL",
    "OIDC_OP_AUTHORIZATION_ENDPOINT",
    "OIDC_OP_TOKEN_ENDPOINT",
    "OIDC_OP_USER_ENDPOINT",
    "OIDC_OP_JWKS_ENDPOINT",
    "OIDC_OP_LOGOUT_ENDPOINT",
    "OIDC_OP_ISSUER",
    "OIDC_RP_SIGN_ALGO",
    "OIDC_RP_SCOPES",
    "OIDC_USERNAME_CLAIM",
    "OIDC_GROUPS_CLAIM",
    "OIDC_PROVIDER_NAME",
    "OIDC_TIMEOUT",
    *GROUPS,
)


def environment(monkeypatch: pytest.MonkeyPatch, **env: str) -> None:
    """Set exactly these variables of single sign-on's in the environment."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def provider_environment(provider: Provider, **env: str) -> dict[str, str]:
    return {
        "OIDC_RP_CLIENT_ID": CLIENT_ID,
        "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
        "OIDC_OP_DISCOVERY_URL": provider.discovery_url,
        "OIDC_PROVIDER_NAME": PROVIDER_NAME,
        **GROUPS,
        **env,
    }


def _reload_urls() -> None:
    import config.urls

    importlib.reload(config.urls)
    clear_url_caches()


@contextmanager
def sso_site(monkeypatch: pytest.MonkeyPatch, **env: str) -> Iterator[dict[str, object]]:
    """Run the site with single sign-on configured by these environment variables."""
    import config.settings
    from core.accounts import oidc

    # As in a process just started: no discovery document read yet.
    oidc._discovered.clear()
    environment(monkeypatch, **env)
    values = config.settings.oidc_settings()
    # mozilla_django_oidc has no models, templates or static files: the app registry
    # need not be rebuilt for it.
    values.pop("INSTALLED_APPS", None)
    try:
        with override_settings(**values):
            _reload_urls()
            yield values
    finally:
        _reload_urls()
