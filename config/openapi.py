"""The API's error responses, documented once for every operation.

Views declare the successes and the errors peculiar to them (a 409 where a service
raises `Conflict`, say) with `extend_schema`; the postprocessing hook below adds the
errors every operation of a kind can give, and the body every error has. The bodies
are what `config.exceptions.api_exception_handler` returns:

* 400: the fields that failed and their messages, `{"title": ["Ensure this field has
  no more than 120 characters."]}` (`non_field_errors` for the whole body; nested
  inputs nest the same way), or `{"detail": "..."}` for a business rule broken
  (`ApplicationError`) or a body that is not JSON.
* any other error: `{"detail": "..."}`.

Which operations give which error, and why:

* 403 on every operation that needs credentials (all but obtaining a token): no
  credentials, unknown ones, a missing CSRF token, or a persona without the right.
  Session authentication comes first, so DRF answers 403 rather than 401.
* 404 where the path names an object (unknown, or one the caller may not see:
  ids leak nothing), and on paginated lists (a page past the end).
* 400 where there is a body to validate, or query parameters to validate (filters,
  a calibration scope).
* 429 on every operation: the caller went over its rate (API_ANON_RATE, API_USER_RATE);
  Retry-After says when to try again.
* 503 on every operation: the database was unreachable (config/middleware.py);
  Retry-After says when to try again.
"""

from typing import Any

from drf_spectacular.utils import OpenApiResponse

ERROR = "Error"
VALIDATION_ERROR = "ValidationError"

COMPONENTS: dict[str, dict[str, Any]] = {
    ERROR: {
        "type": "object",
        "description": "Why the request was refused.",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
    },
    VALIDATION_ERROR: {
        "type": "object",
        "description": (
            "The fields that failed, each with its messages (`non_field_errors` for the "
            "whole body; nested inputs nest the same way), or `detail` alone for a business "
            "rule broken or a body that could not be parsed."
        ),
        "minProperties": 1,
        "additionalProperties": {
            "oneOf": [
                {"type": "string"},
                {"type": "array"},
                {"type": "object"},
            ]
        },
    },
}

DESCRIPTIONS = {
    400: "Invalid input.",
    403: "Not signed in, unknown credentials, or not allowed.",
    404: "No such object, or not one the caller may see.",
    409: "Conflicts with a change already made.",
    429: "Too many requests: over the caller's rate. Try again after Retry-After seconds.",
    503: "The database is unreachable for a moment. Try again after Retry-After seconds.",
}
# Errors any operation can give, whatever it is: throttling and a database outage.
ANYWHERE = {429, 503}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def error(description: str) -> OpenApiResponse:
    """Document an error peculiar to one operation (a 409, a 404 without an id) for
    `extend_schema`; the hook gives it the error body."""
    return OpenApiResponse(description=description)


def _ref(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}


def _errors(operation: dict[str, Any]) -> set[int]:
    parameters = operation.get("parameters", [])
    query = {p["name"] for p in parameters if p["in"] == "query"}
    codes: set[int] = set(ANYWHERE)
    if operation.get("security"):
        codes.add(403)
    if operation.get("requestBody") or query - {"page"}:
        codes.add(400)
    if any(p["in"] == "path" for p in parameters) or "page" in query:
        codes.add(404)
    return codes


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Add the errors each operation can give, and the body of every error response."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(COMPONENTS)
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.setdefault("responses", {})
            for code in sorted(_errors(operation)):
                responses.setdefault(str(code), {"description": DESCRIPTIONS[code]})
            for code, response in responses.items():
                if code[0] in "45" and "content" not in response:
                    response["content"] = _ref(VALIDATION_ERROR if code == "400" else ERROR)
                    if not response.get("description"):
                        response["description"] = DESCRIPTIONS.get(int(code), "")
                if int(code) in ANYWHERE:
                    response.setdefault("headers", RETRY_AFTER)
            operation["responses"] = dict(sorted(responses.items()))
    return result
