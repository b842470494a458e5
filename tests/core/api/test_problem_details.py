"""Every API error is RFC 9457 problem details with a stable code (core/api/problems.py)."""

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from interviews.models import Candidate
from kit import selectors as kit_selectors
from kit.models import Role
from tests.conftest import client_for
from tests.problems import NOT_ALLOWED, detail, not_signed_in, problem

ROLES = "/api/v1/roles/"


@pytest.mark.django_db
def test_a_validation_error_names_each_field_with_its_code(lead: User) -> None:
    bad = {"name": "x" * 500, "description": ["x"]}
    response = client_for(lead).post(ROLES, bad, format="json")

    body = problem(response, 400, "validation_error")
    assert body == {
        "type": "urn:interview-kit:problem:validation_error",
        "title": "Validation error",
        "status": 400,
        "detail": "name: Ensure this field has no more than 120 characters. (and 1 more)",
        "code": "validation_error",
        "instance": ROLES,
        "errors": {
            "name": [
                {
                    "code": "max_length",
                    "detail": "Ensure this field has no more than 120 characters.",
                }
            ],
            "description": [{"code": "invalid", "detail": "Not a valid string."}],
        },
    }
    assert not Role.objects.exists()


@pytest.mark.django_db
def test_a_broken_business_rule_carries_its_own_code(recruiter: User) -> None:
    candidate = Candidate.objects.create(name="Ada Lovelace", email="ada@example.com")
    client = client_for(recruiter)
    erase = f"/api/v1/candidates/{candidate.pk}/erase/"
    assert client.post(erase).status_code == 200

    response = client.post(erase)

    assert problem(response, 409, "candidate_already_erased") == {
        "type": "urn:interview-kit:problem:candidate_already_erased",
        "title": "Candidate already erased",
        "status": 409,
        "detail": "This candidate's data was already erased.",
        "code": "candidate_already_erased",
        "instance": erase,
    }


@pytest.mark.django_db
def test_a_caller_without_credentials_gets_401_with_the_challenge(api: APIClient) -> None:
    not_signed_in(api.get(ROLES))
    not_signed_in(api.post(ROLES, {"name": "Anonymous role"}, format="json"))
    assert not Role.objects.filter(name="Anonymous role").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("scheme", ["Bearer", "Token", "bearer"])
def test_the_token_works_under_either_scheme(api: APIClient, lead: User, scheme: str) -> None:
    key = token_issue(user=lead).key

    response = api.get(ROLES, HTTP_AUTHORIZATION=f"{scheme} {key}")

    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("scheme", ["Bearer", "Token"])
def test_an_unknown_token_is_401_authentication_failed(api: APIClient, scheme: str) -> None:
    response = api.get(ROLES, HTTP_AUTHORIZATION=f"{scheme} not-a-key")

    assert detail(response, 401, "authentication_failed") == "Invalid token."
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'


@pytest.mark.django_db
def test_a_known_caller_who_may_not_act_gets_403(interviewer: User) -> None:
    response = client_for(interviewer).post(ROLES, {"name": "Not mine"}, format="json")

    assert detail(response, 403, "permission_denied") == NOT_ALLOWED
    assert "WWW-Authenticate" not in response
    assert not Role.objects.filter(name="Not mine").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["multipart", None])
def test_a_form_body_is_415_and_writes_nothing(lead: User, fmt: str | None) -> None:
    client = client_for(lead)
    if fmt is None:
        response = client.post(
            ROLES, "name=Form+role", content_type="application/x-www-form-urlencoded"
        )
    else:
        response = client.post(ROLES, {"name": "Form role"}, format=fmt)

    assert "Unsupported media type" in detail(response, 415, "unsupported_media_type")
    assert not Role.objects.filter(name="Form role").exists()


@pytest.mark.django_db
def test_a_body_that_is_not_json_is_400_parse_error(lead: User) -> None:
    response = client_for(lead).post(ROLES, '{"name": ', content_type="application/json")

    assert detail(response, 400, "parse_error").startswith("JSON parse error")
    assert Role.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_a_path_no_route_matches_is_a_json_404_even_under_debug(lead: User, debug: bool) -> None:
    client = client_for(lead)
    with override_settings(DEBUG=debug):
        unknown = client.get("/api/v1/no-such-thing/")
        not_numeric = client.get("/api/v1/questions/abc/")
        slashless = client.get("/api/v1/roles")

    assert detail(unknown, 404, "not_found") == "Not found."
    assert detail(not_numeric, 404, "not_found") == "Not found."
    assert detail(slashless, 404, "not_found") == (
        "Not found. API paths end with a slash: /api/v1/roles/"
    )
    assert len(unknown.content) < 300


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_an_unexpected_error_is_a_500_problem_that_leaks_nothing(
    lead: User, monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    def broken() -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(kit_selectors, "question_list", broken)
    client = client_for(lead)
    client.raise_request_exception = False

    with override_settings(DEBUG=debug):
        response = client.get("/api/v1/questions/")

    assert detail(response, 500, "server_error") == "Server Error (500)"
    assert b"secret internals" not in response.content


@pytest.mark.django_db
def test_a_session_write_without_its_csrf_token_is_403_and_writes_nothing(lead: User) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(lead)

    response = client.post(ROLES, {"name": "No token"}, format="json")

    assert detail(response, 403, "permission_denied") == "CSRF Failed: CSRF cookie not set."
    assert not Role.objects.filter(name="No token").exists()
