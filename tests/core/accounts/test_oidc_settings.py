"""Single sign-on's settings come from the environment (config.settings.oidc_settings):
off when nothing is set, loud about anything missing or misspelt."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

import config.settings
from core.accounts import oidc
from tests.oidc_provider import environment, provider_environment, running, sso_site

ROOT = Path(__file__).resolve().parents[3]
BASE = {
    "OIDC_RP_CLIENT_ID": "kit",
    "OIDC_RP_CLIENT_SECRET": "s3cret",
    "OIDC_OP_DISCOVERY_URL": "https://sso.acme.example/realms/staff/.well-known/openid-configuration",
    "OIDC_GROUP_LEAD": "kit-leads",
}


def read(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, object]:
    environment(monkeypatch, **env)
    return config.settings.oidc_settings()


def test_it_is_off_with_nothing_set(monkeypatch, client, db):
    assert read(monkeypatch) == {}
    assert settings.OIDC_ENABLED is False
    assert settings.PASSWORD_LOGIN is True
    assert settings.AUTHENTICATION_BACKENDS == [
        "axes.backends.AxesStandaloneBackend",
        "django.contrib.auth.backends.ModelBackend",
    ]
    assert "mozilla_django_oidc" not in settings.INSTALLED_APPS
    assert client.get("/oidc/authenticate/").status_code == 404
    assert "Sign in with" not in client.get("/login/").content.decode()


def test_it_adds_the_app_and_the_backend_between_axes_and_passwords(monkeypatch):
    values = read(monkeypatch, **BASE)

    assert values["OIDC_ENABLED"] is True
    assert values["PASSWORD_LOGIN"] is True
    assert values["INSTALLED_APPS"] == [*config.settings.INSTALLED_APPS, "mozilla_django_oidc"]
    assert values["AUTHENTICATION_BACKENDS"] == [
        "axes.backends.AxesStandaloneBackend",
        "core.accounts.oidc.SignInBackend",
        "django.contrib.auth.backends.ModelBackend",
    ]
    assert values["LOGIN_REDIRECT_URL_FAILURE"] == "/oidc/failed/"


def test_it_has_defaults_for_what_is_not_set(monkeypatch):
    values = read(monkeypatch, **BASE)

    assert {name: values[name] for name in sorted(values) if name.startswith("OIDC_")} == {
        "OIDC_ENABLED": True,
        "OIDC_GROUPS_CLAIM": "groups",
        "OIDC_GROUP_HIRING_MANAGER": [],
        "OIDC_GROUP_INTERVIEWER": [],
        "OIDC_GROUP_LEAD": ["kit-leads"],
        "OIDC_GROUP_RECRUITER": [],
        "OIDC_OP_AUTHORIZATION_ENDPOINT": "",
        "OIDC_OP_DISCOVERY_URL": BASE["OIDC_OP_DISCOVERY_URL"],
        "OIDC_OP_ISSUER": "",
        "OIDC_OP_JWKS_ENDPOINT": "",
        "OIDC_OP_LOGOUT_ENDPOINT": "",
        "OIDC_OP_TOKEN_ENDPOINT": "",
        "OIDC_OP_USER_ENDPOINT": "",
        "OIDC_PROVIDER_NAME": "your company account",
        "OIDC_RP_CLIENT_ID": "kit",
        "OIDC_RP_CLIENT_SECRET": "s3cret",
        "OIDC_RP_SCOPES": "openid email profile",
        "OIDC_RP_SIGN_ALGO": "RS256",
        "OIDC_STORE_ID_TOKEN": True,
        "OIDC_TIMEOUT": 10,
        "OIDC_USERNAME_CLAIM": "preferred_username",
    }


def test_it_maps_several_provider_groups_to_one_persona(monkeypatch):
    values = read(monkeypatch, **BASE, OIDC_GROUP_RECRUITER="talent, hiring-managers")

    assert values["OIDC_GROUP_RECRUITER"] == ["talent", "hiring-managers"]


def test_it_lets_the_sign_out_redirect_reach_the_provider(monkeypatch):
    values = read(monkeypatch, **BASE)

    assert "form-action 'self' https://sso.acme.example;" in str(values["CONTENT_SECURITY_POLICY"])


def test_it_drops_the_password_backend_when_password_login_is_off(monkeypatch):
    values = read(monkeypatch, **BASE, PASSWORD_LOGIN="False")

    assert values["PASSWORD_LOGIN"] is False
    assert values["AUTHENTICATION_BACKENDS"] == [
        "axes.backends.AxesStandaloneBackend",
        "core.accounts.oidc.SignInBackend",
    ]


def test_it_rejects_a_misspelt_password_login(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match="PASSWORD_LOGIN='of' is not a boolean"):
        read(monkeypatch, **BASE, PASSWORD_LOGIN="of")


def test_it_refuses_password_login_off_without_single_sign_on(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match="PASSWORD_LOGIN=False needs single sign-on"):
        read(monkeypatch, PASSWORD_LOGIN="False")


def test_it_reads_the_client_secret_from_a_file(monkeypatch, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-a-file\n")
    env = {**BASE, "OIDC_RP_CLIENT_SECRET_FILE": str(secret)}
    del env["OIDC_RP_CLIENT_SECRET"]

    assert read(monkeypatch, **env)["OIDC_RP_CLIENT_SECRET"] == "from-a-file"


def test_it_refuses_a_client_without_a_secret(monkeypatch):
    env = {**BASE}
    del env["OIDC_RP_CLIENT_SECRET"]

    with pytest.raises(ImproperlyConfigured) as error:
        read(monkeypatch, **env)

    assert str(error.value) == (
        "OIDC_RP_CLIENT_SECRET (or OIDC_RP_CLIENT_SECRET_FILE) must be set along with "
        "OIDC_RP_CLIENT_ID"
    )


def test_it_names_the_endpoints_missing_without_a_discovery_url(monkeypatch):
    env = {**BASE, "OIDC_OP_TOKEN_ENDPOINT": "https://sso.acme.example/token"}
    del env["OIDC_OP_DISCOVERY_URL"]

    with pytest.raises(ImproperlyConfigured) as error:
        read(monkeypatch, **env)

    assert str(error.value) == (
        "Single sign-on needs OIDC_OP_DISCOVERY_URL, or else OIDC_OP_AUTHORIZATION_ENDPOINT, "
        "OIDC_OP_USER_ENDPOINT, OIDC_OP_JWKS_ENDPOINT"
    )


def test_it_refuses_a_configuration_that_maps_no_group(monkeypatch):
    env = {**BASE}
    del env["OIDC_GROUP_LEAD"]

    with pytest.raises(ImproperlyConfigured, match="at least one of OIDC_GROUP_RECRUITER"):
        read(monkeypatch, **env)


def test_it_reads_the_discovery_document_once_and_the_given_endpoints_win(monkeypatch):
    with running() as provider:
        env = provider_environment(provider, OIDC_OP_LOGOUT_ENDPOINT="https://sso.acme.example/bye")
        with sso_site(monkeypatch, **env):
            first = oidc.provider()
            second = oidc.provider()

    assert (
        first
        == second
        == oidc.Provider(
            authorization_endpoint=f"{provider.url}/oauth2/authorize",
            token_endpoint=f"{provider.url}/oauth2/token",
            userinfo_endpoint=f"{provider.url}/userinfo",
            jwks_uri=f"{provider.url}/jwks",
            end_session_endpoint="https://sso.acme.example/bye",
            issuer=provider.url,
        )
    )
    assert [path for path, _ in provider.visits] == ["/.well-known/openid-configuration"]


def test_it_says_which_discovery_url_it_could_not_read(monkeypatch):
    with running() as provider:
        env = provider_environment(provider)
    with sso_site(monkeypatch, **env), pytest.raises(oidc.ProviderUnavailable) as error:
        oidc.provider()

    assert str(error.value).startswith(
        f"could not read the discovery document at OIDC_OP_DISCOVERY_URL={provider.discovery_url}: "
    )


def test_the_site_starts_with_single_sign_on_configured():
    """The settings block and the conditional URL include, as a process reads them."""
    script = (
        "import json; from django.conf import settings; from django.urls import reverse; "
        "print(json.dumps([settings.AUTHENTICATION_BACKENDS, "
        "'mozilla_django_oidc' in settings.INSTALLED_APPS, "
        "reverse('oidc_authentication_callback'), reverse('login')]))"
    )
    env = {name: value for name, value in os.environ.items() if not name.startswith("OIDC_")}
    env.pop("PASSWORD_LOGIN", None)
    env.update(BASE, PASSWORD_LOGIN="off")
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [
        ["axes.backends.AxesStandaloneBackend", "core.accounts.oidc.SignInBackend"],
        True,
        "/oidc/callback/",
        "/login/",
    ]


def test_the_site_refuses_to_start_with_a_misspelt_password_login():
    env = {name: value for name, value in os.environ.items() if not name.startswith("OIDC_")}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**env, "PASSWORD_LOGIN": "nope"},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    assert "PASSWORD_LOGIN='nope' is not a boolean (use True or False)" in result.stderr
