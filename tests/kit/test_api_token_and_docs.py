"""The API's token auth (POST /api/v1/auth/token/, the Authorization header), schema and docs."""

import json
import re

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.tokens import key_digest
from core.models import ApiToken
from kit.models import Question
from tests.kit.questions_api import payload
from tests.problems import detail, field_errors

# --- token auth ---------------------------------------------------------------------------


def test_it_issues_a_token_for_good_credentials(api: APIClient, lead: User) -> None:
    response = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"})

    assert response.status_code == 200
    key = response.json()["token"]
    assert list(response.json()) == ["token"]
    # Stored as its hash only (core/accounts/tokens.py).
    assert ApiToken.objects.get(user=lead).digest == key_digest(key)


def test_each_sign_in_issues_its_own_token(api: APIClient, lead: User) -> None:
    first = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()
    second = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()

    assert first != second
    assert ApiToken.objects.count() == 2


@pytest.mark.parametrize(
    "data",
    [{"username": "leo", "password": "wrong"}, {"username": "nobody", "password": "pw"}],
    ids=["wrong-password", "unknown-user"],
)
def test_it_refuses_a_token_for_bad_credentials_with_a_401_challenge(
    api: APIClient, lead: User, data: dict[str, str]
) -> None:
    response = api.post("/api/v1/auth/token/", data)

    assert detail(response, 401, "authentication_failed") == (
        "Unable to log in with provided credentials."
    )
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"username": "leo"}, {"password": ["This field is required."]}),
        ({"password": "pw"}, {"username": ["This field is required."]}),
    ],
    ids=["no-password", "no-username"],
)
def test_it_refuses_a_sign_in_missing_a_field_with_a_400_naming_it(
    api: APIClient, lead: User, data: dict[str, str], expected: dict[str, list[str]]
) -> None:
    response = api.post("/api/v1/auth/token/", data)

    assert field_errors(response) == expected
    assert not ApiToken.objects.exists()


def test_it_accepts_a_token_in_the_authorization_header(
    api: APIClient, lead: User, bank: dict[str, Question], vocabulary: None
) -> None:
    token = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()["token"]
    caller = type(api)()
    caller.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    listing = caller.get("/api/v1/questions/")
    created = caller.post("/api/v1/questions/", payload(), format="json")

    assert listing.status_code == 200
    assert listing.json()["count"] == len(bank)
    # Token requests carry no session cookie, so no CSRF token is needed to write.
    assert created.status_code == 201
    assert Question.objects.get(title="Sizing a KV cache").current.created_by == lead


def test_it_refuses_an_unknown_token(api: APIClient, bank: dict[str, Question]) -> None:
    api.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")

    response = api.get("/api/v1/questions/")

    assert detail(response, 401, "authentication_failed") == "Invalid token."
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'


# --- schema and docs ------------------------------------------------------------------------------


def test_it_serves_an_openapi_3_schema(api: APIClient, db: None) -> None:
    response = api.get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Interview Kit API"
    # Paths are relative to the one server, /api/v1 (SPECTACULAR_SETTINGS["SERVERS"]).
    assert [server["url"] for server in schema["servers"]] == ["/api/v1"]
    for path in (
        "/questions/",
        "/questions/{id}/",
        "/roles/",
        "/levels/",
        "/competencies/",
        "/auth/token/",
    ):
        assert path in schema["paths"], path


def test_it_serves_the_docs_without_any_external_url(api: APIClient, db: None) -> None:
    response = api.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls)
    # Everything the page loads comes from this server: relative URLs or the test host.
    for url in urls:
        assert not url.startswith("//"), url
        assert not re.match(r"https?://", url) or url.startswith("http://testserver/"), url
    hosts = set(re.findall(r"https?://([^/\"'\s)]+)", html))
    assert hosts <= {"testserver"}, hosts
