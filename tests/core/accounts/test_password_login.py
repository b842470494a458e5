"""PASSWORD_LOGIN: with single sign-on on, passwords work unless it is turned off; off,
the sign-in page has only the provider's button, and a password is refused everywhere."""

from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from core.accounts.oidc import PASSWORD_LOGIN_OFF_API, provider_name
from core.models import ApiToken
from tests.oidc_provider import PROVIDER_NAME, Provider, provider_environment, sso_site
from tests.problems import detail

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]

BUTTON = '<a class="button primary" href="/oidc/authenticate/">Sign in with Acme SSO</a>'
REFUSED = "Password sign-in is turned off for this service: sign in with Acme SSO."


@pytest.fixture
def passwords_off(monkeypatch: pytest.MonkeyPatch, provider: Provider) -> Iterator[None]:
    with sso_site(monkeypatch, **provider_environment(provider, PASSWORD_LOGIN="off")):
        yield


def test_it_offers_the_provider_and_the_password_form(client, provider, monkeypatch, lead):
    with sso_site(monkeypatch, **provider_environment(provider)):
        page = client.get("/login/?next=/bank/").content.decode()
        response = client.post("/login/", {"username": "leo", "password": "pw"})

    assert f"Sign in with {PROVIDER_NAME}" in page
    assert 'href="/oidc/authenticate/?next=/bank/"' in page
    assert 'name="password"' in page
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(lead.pk)


def test_it_shows_only_the_providers_button_when_passwords_are_off(client, passwords_off):
    page = client.get("/login/").content.decode()

    assert BUTTON in page
    assert 'name="password"' not in page
    assert "<form" not in page.split('<main class="page">')[1]


def test_it_refuses_a_password_post_with_a_message(client, passwords_off, lead):
    response = client.post("/login/", {"username": "leo", "password": "pw"})

    assert response.status_code == 403
    body = response.content.decode()
    assert f'<p class="error" role="alert">{REFUSED}</p>' in body
    assert BUTTON in body
    assert 'name="password"' not in body
    assert "_auth_user_id" not in client.session


def test_it_refuses_a_password_for_an_api_token(passwords_off, lead):
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": "leo", "password": "pw"}, format="json"
    )

    assert detail(response, 403, "password_login_off") == PASSWORD_LOGIN_OFF_API.format(
        provider=provider_name()
    )
    assert not ApiToken.objects.exists()


def test_it_refuses_a_password_on_the_admin_sign_in(client, passwords_off, lead):
    lead.is_staff = True
    lead.save()

    response = client.post("/admin/login/", {"username": "leo", "password": "pw"})

    assert response.status_code == 200  # the form again, with its error
    assert "_auth_user_id" not in client.session
