"""The OpenAPI schema documents each operation's errors with the bodies they really have.

tests/fuzz/test_schemathesis.py holds the API to this schema; these tests pin the rules.
"""

from functools import cache
from typing import Any

import pytest
from rest_framework.test import APIClient

ERROR = {"$ref": "#/components/schemas/Error"}
VALIDATION_ERROR = {"$ref": "#/components/schemas/ValidationError"}


@cache
def schema() -> dict[str, Any]:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def operation(path: str, method: str) -> dict[str, Any]:
    return schema()["paths"][path][method]


def body_schema(response: dict[str, Any]) -> dict[str, Any]:
    return response["content"]["application/json"]["schema"]


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, methods in schema()["paths"].items()
        for method, op in methods.items()
    ]


def test_obtaining_a_token_needs_no_credentials() -> None:
    op = operation("/api/v1/auth/token/", "post")

    assert "security" not in op and "security" not in schema()
    assert sorted(op["responses"]) == ["200", "400", "429", "503"]


@pytest.mark.django_db
def test_every_other_operation_needs_credentials_and_documents_the_403() -> None:
    for path, method, op in operations():
        if (path, method) == ("/api/v1/auth/token/", "post"):
            continue
        assert op["security"], (path, method)
        assert body_schema(op["responses"]["403"]) == ERROR, (path, method)


def test_every_error_has_the_handlers_body() -> None:
    for path, method, op in operations():
        for code, response in op["responses"].items():
            if code.startswith("4"):
                expected = VALIDATION_ERROR if code == "400" else ERROR
                assert body_schema(response) == expected, (path, method, code)


def test_ids_in_the_path_and_pages_document_the_404() -> None:
    assert "404" in operation("/api/v1/loops/{id}/debrief/", "get")["responses"]
    assert "404" in operation("/api/v1/roles/", "get")["responses"]  # a page past the end
    assert "404" not in operation("/api/v1/levels/", "get")["responses"]  # not paginated


def test_bodies_and_filters_document_the_400() -> None:
    assert "400" in operation("/api/v1/roles/", "post")["responses"]
    assert "400" in operation("/api/v1/scorecards/", "get")["responses"]  # filters
    assert "400" not in operation("/api/v1/roles/", "get")["responses"]  # only a page
    assert "400" not in operation("/api/v1/candidates/{id}/erase/", "post")["responses"]


def test_conflicts_are_documented_where_a_service_raises_them() -> None:
    conflicts = {(path, method) for path, method, op in operations() if "409" in op["responses"]}

    assert conflicts == {
        ("/api/v1/scorecards/{id}/", "put"),
        ("/api/v1/scorecards/{id}/submit/", "post"),
        ("/api/v1/loops/{id}/decision/", "post"),
        ("/api/v1/candidates/{id}/erase/", "post"),
    }
