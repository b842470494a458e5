"""The OpenAPI schema documents each operation's errors with the bodies they really have.

tests/fuzz/test_schemathesis.py holds the API to this schema, and
tests/core/api/test_generated_client.py generates a client from it; these tests pin the rules.
"""

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.api.openapi import FORBIDDEN_READS, OPTIONAL
from core.api.openapi_docs import (
    ERROR_CODES,
    GENERIC_CODES,
    IDEMPOTENCY_CODES,
    PAGE_ONLY_CODES,
    SUMMARIES,
)
from core.api.problems import PROBLEM_JSON

PROBLEM = {"$ref": "#/components/schemas/Problem"}
VALIDATION_PROBLEM = {"$ref": "#/components/schemas/ValidationProblem"}
CHALLENGE = 'Bearer realm="api", Token realm="api"'


@cache
def schema() -> dict[str, Any]:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def operation(path: str, method: str) -> dict[str, Any]:
    return schema()["paths"][path][method]


def body_schema(response: dict[str, Any], media: str = PROBLEM_JSON) -> dict[str, Any]:
    assert list(response["content"]) == [media]
    return response["content"][media]["schema"]


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, methods in schema()["paths"].items()
        for method, op in methods.items()
    ]


def test_paths_sit_under_the_server_and_ids_are_integers() -> None:
    assert schema()["servers"] == [{"url": "/api/v1", "description": "This server"}]
    for path, method, op in operations():
        assert not path.startswith("/api/"), path
        for parameter in op.get("parameters", []):
            if parameter["in"] == "path":
                assert parameter["schema"] == {"type": "integer"}, (path, method, parameter)


def test_operations_have_readable_ids_tags_per_resource_a_summary_and_an_example() -> None:
    ids = [op["operationId"] for _, _, op in operations()]
    assert sorted(ids) == sorted(SUMMARIES)
    for path, method, op in operations():
        assert op["tags"] == [path.split("/")[1]], (path, method)
        assert op["summary"] == SUMMARIES[op["operationId"]]
        for code, response in op["responses"].items():
            for body in response.get("content", {}).values():
                if code.startswith("2"):
                    assert "example" in body or body.get("examples"), (path, method, code)
    assert (
        operation("/scorecards/{id}/submit/", "post")["operationId"] == "scorecards_submit_create"
    )


def test_request_bodies_are_json_only() -> None:
    for path, method, op in operations():
        if "requestBody" in op:
            assert list(op["requestBody"]["content"]) == ["application/json"], (path, method)


def test_obtaining_a_token_needs_no_credentials() -> None:
    op = operation("/auth/token/", "post")

    assert op["security"] == [] and "security" not in schema()  # stated, not left out
    assert sorted(op["responses"]) == ["200", "400", "401", "413", "415", "429", "503"]
    # Refused credentials: a 401 with the challenge, like any other refused credential.
    assert "WWW-Authenticate" in op["responses"]["401"]["headers"]


def test_both_token_schemes_are_offered_as_alternatives() -> None:
    schemes = schema()["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["type"] == "http" and schemes["bearerAuth"]["scheme"] == "bearer"
    assert (schemes["tokenAuth"]["type"], schemes["tokenAuth"]["name"]) == (
        "apiKey",
        "Authorization",
    )
    assert operation("/roles/", "get")["security"] == [
        {"bearerAuth": []},
        {"tokenAuth": []},
        {"cookieAuth": []},
    ]


@pytest.mark.django_db
def test_every_other_operation_needs_credentials_and_documents_the_401_and_403() -> None:
    for path, method, op in operations():
        if (path, method) == ("/auth/token/", "post"):
            continue
        assert op["security"], (path, method)
        unauthorized = op["responses"]["401"]
        assert body_schema(unauthorized) == PROBLEM, (path, method)
        assert unauthorized["headers"]["WWW-Authenticate"]["schema"]["example"] == CHALLENGE
        if method != "get" or op["operationId"] in FORBIDDEN_READS:
            assert body_schema(op["responses"]["403"]) == PROBLEM, (path, method)
        else:  # a read that hides what a persona may not see (404, an empty list)
            assert "403" not in op["responses"], (path, method)


def test_every_error_has_the_handlers_body() -> None:
    seen = 0
    for path, method, op in operations():
        for code, response in op["responses"].items():
            if code[0] in "45":
                seen += 1
                expected = VALIDATION_PROBLEM if code == "400" else PROBLEM
                assert body_schema(response) == expected, (path, method, code)
    assert seen > 300


def test_the_problem_schemas_are_typed() -> None:
    components = schema()["components"]["schemas"]
    assert "ValidationError" not in components and "Error" not in components
    problem = components["Problem"]
    assert problem["required"] == ["type", "title", "status", "detail", "code"]
    assert {name: prop["type"] for name, prop in problem["properties"].items()} == {
        "type": "string",
        "title": "string",
        "status": "integer",
        "detail": "string",
        "code": "string",
        "instance": "string",
    }
    errors = components["ValidationProblem"]["allOf"][1]["properties"]["errors"]
    item = errors["additionalProperties"]["items"]
    assert item["required"] == ["code", "detail"]
    assert {prop["type"] for prop in item["properties"].values()} == {"string"}


def test_response_members_are_required_because_they_are_always_sent() -> None:
    components = schema()["components"]["schemas"]
    for name, component in components.items():
        if name.endswith("Request") or "properties" not in component:
            continue
        always = [key for key in component["properties"] if (name, key) not in OPTIONAL]
        assert component.get("required", []) == always, name
    assert "instance" not in components["Problem"]["required"]


def test_ids_in_the_path_and_pages_document_the_404() -> None:
    assert "404" in operation("/loops/{id}/debrief/", "get")["responses"]
    assert "404" in operation("/roles/", "get")["responses"]  # a page past the end
    assert "404" in operation("/levels/", "get")["responses"]  # every list is paginated
    assert "404" not in operation("/auth/token/rotate/", "post")["responses"]  # no id, no page


def test_bodies_and_filters_document_the_400() -> None:
    assert {"400", "413", "415"} <= set(operation("/roles/", "post")["responses"])
    assert "400" in operation("/scorecards/", "get")["responses"]  # filters
    assert "400" not in operation("/roles/", "get")["responses"]  # only a page
    assert "400" not in operation("/candidates/{id}/erase/", "post")["responses"]


def test_conflicts_are_documented_where_a_service_raises_them() -> None:
    conflicts = {(path, method) for path, method, op in operations() if "409" in op["responses"]}

    assert conflicts == {
        ("/scorecards/{id}/", "put"),
        ("/scorecards/{id}/submit/", "post"),
        ("/loops/{id}/decision/", "post"),
        ("/loops/{id}/cancel/", "post"),
        ("/loops/{id}/reopen/", "post"),
        ("/candidates/{id}/erase/", "post"),
        ("/loops/", "post"),
        ("/webhooks/deliveries/{id}/replay/", "post"),
        ("/pool-memberships/", "post"),
        ("/pool-memberships/{id}/", "delete"),
        ("/pool-memberships/{id}/graduate/", "post"),
        ("/training-seats/{id}/sign-off/", "post"),
    }


def test_every_code_a_service_raises_is_documented_on_an_operation_or_page_only() -> None:
    raised = set()
    for package in ("kit", "interviews", "scoring", "core", "config"):
        for path in Path(package).rglob("*.py"):
            raised |= set(re.findall(r'code="([a-z_]+)"', path.read_text()))
    documented = {
        code for by_status in ERROR_CODES.values() for codes in by_status.values() for code in codes
    }
    generic = {code for codes in GENERIC_CODES.values() for code in codes}
    idempotency = {code for codes in IDEMPOTENCY_CODES.values() for code in codes}
    known = documented | generic | idempotency | PAGE_ONLY_CODES | {"invalid", "locked_out"}

    assert raised - known == set()
    assert set(ERROR_CODES) <= set(SUMMARIES)  # no code listed for an operation that is gone


def test_error_responses_name_the_codes_they_carry() -> None:
    submit = operation("/scorecards/{id}/submit/", "post")["responses"]
    assert "`scorecard_already_submitted`" in submit["409"]["description"]
    assert "`scorecard_incomplete`" in submit["400"]["description"]
    decision = operation("/loops/{id}/decision/", "post")["responses"]
    assert "`hire_waits_for_scorecards`" in decision["400"]["description"]
    assert (
        "`interview_clash`"
        in operation("/interviews/{id}/", "put")["responses"]["400"]["description"]
    )
    for path, method, op in operations():
        for code, response in op["responses"].items():
            if code[0] in "45":
                assert "Codes: `" in response["description"], (path, method, code)
