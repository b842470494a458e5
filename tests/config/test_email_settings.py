"""Mail settings come from the environment: a relay by its parts or by one EMAIL_URL."""

import re

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import email_settings
from tests.config.test_settings import manage

NAMES = ("EMAIL_URL", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD",
         "EMAIL_HOST_PASSWORD_FILE", "EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_TIMEOUT",
         "EMAIL_BACKEND")  # fmt: skip


@pytest.fixture(autouse=True)
def no_email_environment(monkeypatch):  # type: ignore[no-untyped-def]
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)


def test_it_prints_mail_to_the_console_with_nothing_set():
    assert email_settings()["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


def test_it_sends_through_the_relay_named_by_its_parts(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    secret = tmp_path / "smtp-password"
    secret.write_text("from a file\n")
    monkeypatch.setenv("EMAIL_HOST", "smtp.example.com")
    monkeypatch.setenv("EMAIL_HOST_USER", "kit")
    monkeypatch.setenv("EMAIL_HOST_PASSWORD_FILE", str(secret))
    monkeypatch.setenv("EMAIL_USE_TLS", "True")
    monkeypatch.setenv("EMAIL_TIMEOUT", "7")
    assert email_settings() == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "smtp.example.com",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "kit",
        "EMAIL_HOST_PASSWORD": "from a file",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_TIMEOUT": 7,
    }


@pytest.mark.parametrize(
    ("url", "port", "tls", "ssl"),
    [
        ("smtp://relay.internal", 25, False, False),
        ("smtp+starttls://kit:p%40ss%3Aword@relay.internal:2587", 2587, True, False),
        ("smtps://kit:p%40ss%3Aword@relay.internal", 465, False, True),
    ],
)
def test_it_reads_one_email_url(monkeypatch, url, port, tls, ssl):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EMAIL_URL", url)
    got = email_settings()
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"]) == ("relay.internal", port)
    assert (got["EMAIL_USE_TLS"], got["EMAIL_USE_SSL"]) == (tls, ssl)
    if "@" in url:
        assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"]) == ("kit", "p@ss:word")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"EMAIL_HOST": "relay", "EMAIL_USE_TLS": "True", "EMAIL_USE_SSL": "True"},
         "EMAIL_USE_TLS (STARTTLS, usually port 587) and EMAIL_USE_SSL (implicit TLS, usually "
         "port 465) cannot both be on"),
        ({"EMAIL_URL": "smtps://relay", "EMAIL_USE_TLS": "True"}, "cannot both be on"),
        ({"EMAIL_URL": "http://relay"}, "EMAIL_URL must look like smtp://"),
        ({"EMAIL_URL": "smtp://relay:twenty-five"}, "EMAIL_URL has a port that is not a number"),
        ({"EMAIL_URL": "smtp://relay", "EMAIL_HOST": "relay"}, "Set EMAIL_URL or EMAIL_HOST"),
        ({"EMAIL_HOST": "relay", "EMAIL_TIMEOUT": "0"}, "EMAIL_TIMEOUT=0 must be 1 or more"),
        ({"EMAIL_USE_TLS": "maybe"}, "EMAIL_USE_TLS='maybe' is not a boolean"),
    ],
)  # fmt: skip
def test_it_refuses_contradictory_or_malformed_mail_settings(monkeypatch, env, message):  # type: ignore[no-untyped-def]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        email_settings()


def test_it_refuses_to_start_with_both_kinds_of_tls():
    result = manage("check", EMAIL_HOST="relay", EMAIL_USE_TLS="True", EMAIL_USE_SSL="True")
    assert result.returncode != 0
    assert "EMAIL_USE_TLS (STARTTLS, usually port 587) and EMAIL_USE_SSL" in result.stderr
