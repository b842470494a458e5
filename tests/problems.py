"""Reading the API's error bodies (RFC 9457 problem details, core/api/problems.py) in tests."""

from typing import Any

from core.api.problems import PROBLEM_JSON, TYPE_PREFIX

NOT_SIGNED_IN = "Authentication credentials were not provided."
NOT_ALLOWED = "You do not have permission to perform this action."
NOT_FOUND = "Not found."


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """Assert ``response`` is the problem ``code`` with ``status``; return its body."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == PROBLEM_JSON
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert body["type"] == TYPE_PREFIX + code
    assert body["title"]
    return body


def detail(response: Any, status: int, code: str) -> str:
    """Assert ``response`` is the problem ``code`` with ``status``; return its ``detail``."""
    return str(problem(response, status, code)["detail"])


def field_errors(response: Any) -> dict[str, list[str]]:
    """Assert ``response`` is a 400 validation problem; return each field's messages."""
    body = problem(response, 400, "validation_error")
    return {attr: [e["detail"] for e in errors] for attr, errors in body["errors"].items()}


def field_codes(response: Any) -> dict[str, list[str]]:
    """Like field_errors, each field's error codes."""
    body = problem(response, 400, "validation_error")
    return {attr: [e["code"] for e in errors] for attr, errors in body["errors"].items()}


def not_signed_in(response: Any) -> None:
    """Assert a 401 with the API's challenge, for a caller without credentials."""
    assert detail(response, 401, "not_authenticated") == NOT_SIGNED_IN
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'
