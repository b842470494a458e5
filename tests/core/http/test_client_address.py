"""The one rule for the client's address (core/http/client_address.py), and the settings
that configure it and the API tokens, read from the environment."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from core.http.client_address import client_ip

ROOT = Path(__file__).resolve().parents[3]
REMOTE = "192.0.2.10"


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, None, REMOTE),
        (0, "198.51.100.1", REMOTE),
        (0, "198.51.100.1, 203.0.113.7", REMOTE),
        (1, None, REMOTE),
        (1, "203.0.113.7", "203.0.113.7"),
        (1, "198.51.100.1, 198.51.100.2, 203.0.113.7", "203.0.113.7"),
        (1, "198.51.100.1,203.0.113.7", "203.0.113.7"),
        (2, "198.51.100.1, 203.0.113.7, 10.0.0.1", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),  # fewer entries than proxies: the leftmost
        (1, "2001:db8::7", "2001:db8::7"),
        (1, "2001:DB8:0::7", "2001:db8::7"),
        (1, "", REMOTE),
        (1, "198.51.100.1, not-an-address", REMOTE),
        (1, "198.51.100.1, 203.0.113.7:443", REMOTE),
    ],
)
def test_it_picks_the_address_the_proxy_count_trusts(
    settings: Any, proxies: int, forwarded: str | None, expected: str
) -> None:
    settings.TRUSTED_PROXY_COUNT = proxies
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    request = RequestFactory().get("/", REMOTE_ADDR=REMOTE, **headers)

    assert client_ip(request) == expected


@pytest.mark.parametrize("proxies", [0, 1, 2])
@pytest.mark.parametrize(
    "forwarded", [None, "203.0.113.7", "198.51.100.1, 203.0.113.7", "a, 198.51.100.1, 10.0.0.1"]
)
def test_it_agrees_with_drf_num_proxies_on_well_formed_headers(
    settings: Any, monkeypatch: pytest.MonkeyPatch, proxies: int, forwarded: str | None
) -> None:
    settings.TRUSTED_PROXY_COUNT = proxies
    monkeypatch.setattr(api_settings, "NUM_PROXIES", proxies)
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    request = RequestFactory().get("/", REMOTE_ADDR=REMOTE, **headers)

    assert client_ip(request) == BaseThrottle().get_ident(request)


def settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    ours = ("DEBUG", "DATABASE_URL", "TRUSTED_PROXY_COUNT", "API_TOKEN_TTL_DAYS")
    clean = {k: v for k, v in os.environ.items() if k not in ours}
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.TRUSTED_PROXY_COUNT, s.REST_FRAMEWORK['NUM_PROXIES'], "
        "s.AXES_CLIENT_IP_CALLABLE, s.API_TOKEN_TTL_DAYS)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_by_default_no_proxy_is_trusted_and_tokens_last_30_days() -> None:
    result = settings_with()

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "0", "core.http.client_address.client_ip", "30"]


def test_the_proxy_count_and_token_lifetime_come_from_the_environment() -> None:
    result = settings_with(TRUSTED_PROXY_COUNT="2", API_TOKEN_TTL_DAYS="7")

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "2", "core.http.client_address.client_ip", "7"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TRUSTED_PROXY_COUNT": "-1"}, "TRUSTED_PROXY_COUNT=-1 must be 0 or more"),
        ({"TRUSTED_PROXY_COUNT": "one"}, "TRUSTED_PROXY_COUNT='one' is not an integer"),
        ({"API_TOKEN_TTL_DAYS": "0"}, "API_TOKEN_TTL_DAYS=0 must be 1 or more"),
        ({"API_TOKEN_TTL_DAYS": "30d"}, "API_TOKEN_TTL_DAYS='30d' is not an integer"),
    ],
)
def test_it_refuses_to_start_with_a_bad_value(env: dict[str, str], message: str) -> None:
    result = settings_with(**env)

    assert result.returncode != 0
    assert message in result.stderr
