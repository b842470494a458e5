"""Signing out ends the session here and, for someone who came through the provider,
sends them to the provider's end-session endpoint to end it there too."""

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import requests
from django.test import Client

from tests.oidc_provider import CLIENT_ID, Provider, provider_environment, query, running, sso_site

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch, provider: Provider) -> Iterator[dict[str, object]]:
    with sso_site(monkeypatch, **provider_environment(provider)) as values:
        yield values


def sign_in(client: Client, provider: Provider, sub: str) -> None:
    start = client.get("/oidc/authenticate/")
    back = urlsplit(provider.authorize(start["Location"], sub))
    assert client.get(f"{back.path}?{back.query}")["Location"] == "/"


def test_it_ends_the_session_here_and_at_the_provider(client, provider, site):
    sign_in(client, provider, "lena-sub")
    id_token = client.session["oidc_id_token"]

    response = client.post("/logout/")

    assert response.status_code == 302
    end_session = f"{provider.url}/oauth2/end_session"
    assert response["Location"].startswith(f"{end_session}?")
    assert query(response["Location"]) == {
        "id_token_hint": id_token,
        "post_logout_redirect_uri": "http://testserver/login/",
        "client_id": CLIENT_ID,
    }
    assert "_auth_user_id" not in client.session
    assert client.get("/bank/")["Location"] == "/login/?next=/bank/"
    # The provider's end-session page takes the hint (one it issued, for Lena) and
    # offers the way back to the sign-in page.
    page = requests.get(response["Location"], timeout=10)
    assert page.status_code == 200
    assert "http://testserver/login/" in page.text
    assert provider.verify(id_token)["sub"] == "lena-sub"


def test_it_signs_a_password_user_out_here_only(client, provider, site, lead):
    client.post("/login/", {"username": "leo", "password": "pw"})

    response = client.post("/logout/")

    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert "_auth_user_id" not in client.session
    assert not [path for path, _ in provider.visits if path == "/oauth2/end_session"]


def test_it_uses_the_configured_end_session_endpoint(client, provider, monkeypatch):
    env = provider_environment(provider, OIDC_OP_LOGOUT_ENDPOINT="https://sso.acme.example/bye?x=1")
    with sso_site(monkeypatch, **env) as values:
        sign_in(client, provider, "lena-sub")

        response = client.post("/logout/")

        assert response["Location"].startswith("https://sso.acme.example/bye?x=1&id_token_hint=")
        # The sign-out form's redirect goes there: the page's policy allows it.
        assert "https://sso.acme.example" in str(values["CONTENT_SECURITY_POLICY"])


def test_it_signs_out_here_when_the_provider_cannot_be_reached(client, monkeypatch):
    with running() as provider, sso_site(monkeypatch, **provider_environment(provider)):
        sign_in(client, provider, "lena-sub")
    # The provider has stopped, and this process has not read its discovery document.
    with sso_site(monkeypatch, **provider_environment(provider)):
        response = client.post("/logout/")

    assert response["Location"] == "/login/"
    assert "_auth_user_id" not in client.session
