"""The API's rate limits (API_ANON_RATE, API_USER_RATE): over the rate, a 429 with
Retry-After and a message; under it, the normal answer. Each caller is counted on
its own, by user or, for anonymous callers, by the address TRUSTED_PROXY_COUNT says to
trust, and a refused request changes nothing."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from core.models import ApiToken
from interviews.models import Candidate
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def low_rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The rates are read when the throttle classes are defined; lower them for the test.
    rates = {"anon": "2/minute", "user": "3/minute"}
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    yield
    cache.clear()


def test_a_signed_in_caller_over_the_rate_gets_429_with_retry_after(recruiter: User) -> None:
    api = client_for(recruiter)
    answers = [api.get("/api/v1/candidates/").status_code for _ in range(3)]

    refused = api.get("/api/v1/candidates/")

    assert answers == [200, 200, 200]
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert refused.json()["detail"].startswith("Request was throttled.")


def test_a_refused_write_writes_nothing(recruiter: User) -> None:
    api = client_for(recruiter)
    for n in range(3):
        api.post("/api/v1/candidates/", {"name": f"Ada {n}"}, format="json")

    refused = api.post("/api/v1/candidates/", {"name": "Over the rate"}, format="json")

    assert refused.status_code == 429
    assert not Candidate.objects.filter(name="Over the rate").exists()
    assert Candidate.objects.count() == 3


def test_each_caller_has_its_own_count(recruiter: User, lead: User) -> None:
    first = client_for(recruiter)
    for _ in range(3):
        first.get("/api/v1/roles/")
    assert first.get("/api/v1/roles/").status_code == 429

    assert client_for(lead).get("/api/v1/roles/").status_code == 200


def test_anonymous_callers_are_limited_by_address() -> None:
    anonymous = APIClient()
    answers = [
        anonymous.post("/api/v1/auth/token/", {"username": "x", "password": "y"}).status_code
        for _ in range(3)
    ]

    assert answers == [401, 401, 429]


def test_the_schema_documents_429_and_503_with_retry_after() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()

    operations = [
        operation
        for methods in schema["paths"].values()
        for method, operation in methods.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert operations
    for operation in operations:
        for code in ("429", "503"):
            response = operation["responses"][code]
            assert "Retry-After" in response["headers"], operation["operationId"]
            assert response["content"]["application/problem+json"]["schema"] == {
                "$ref": "#/components/schemas/Problem"
            }


# --- whose address is counted (TRUSTED_PROXY_COUNT, core/http/client_address.py) ----------


def guess(api: APIClient, password: str = "y", **headers: str) -> int:
    body = {"username": "ines", "password": password}
    return api.post("/api/v1/auth/token/", body, format="json", **headers).status_code


def test_without_proxies_a_varying_x_forwarded_for_buys_no_new_allowance() -> None:
    api = APIClient()

    answers = [guess(api, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}") for n in range(5)]

    assert answers == [401, 401, 429, 429, 429]


def test_without_proxies_each_remote_address_has_its_own_count() -> None:
    api = APIClient()
    for _ in range(2):
        guess(api, REMOTE_ADDR="192.0.2.1")

    assert guess(api, REMOTE_ADDR="192.0.2.1") == 429
    assert guess(api, REMOTE_ADDR="192.0.2.2") == 401


def test_behind_one_proxy_the_rightmost_address_is_counted_and_the_rest_ignored(
    settings: Any,
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    api = APIClient()  # REMOTE_ADDR is the proxy's, 127.0.0.1, for every caller

    answers = [guess(api, HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.7") for n in range(3)]

    assert answers == [401, 401, 429]
    # Another client behind the same proxy, even one naming the first on the left.
    assert guess(api, HTTP_X_FORWARDED_FOR="203.0.113.7, 203.0.113.8") == 401


def test_behind_two_proxies_the_second_address_from_the_right_is_counted(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 2
    api = APIClient()

    answers = [
        guess(api, HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.7, 10.0.0.{n}") for n in range(3)
    ]

    assert answers == [401, 401, 429]
    assert guess(api, HTTP_X_FORWARDED_FOR="203.0.113.8, 10.0.0.1") == 401


def test_a_sign_in_over_the_rate_is_refused_even_with_the_right_password(
    interviewer: User,
) -> None:
    api = APIClient()
    for n in range(2):
        guess(api, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")

    refused = api.post(
        "/api/v1/auth/token/",
        {"username": "ines", "password": "pw"},
        format="json",
        HTTP_X_FORWARDED_FOR="198.51.100.9",
    )

    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Request was throttled.")
    assert not ApiToken.objects.exists()
