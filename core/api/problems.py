"""Error bodies as RFC 9457 problem details, the one shape every API error has.

Every error under /api/ answers ``application/problem+json``::

    {"type": "urn:interview-kit:problem:scorecard_already_submitted",
     "title": "Scorecard already submitted", "status": 409,
     "detail": "This scorecard was already submitted at 2026-12-01 09:12 UTC.",
     "code": "scorecard_already_submitted", "instance": "/api/v1/scorecards/7/submit/"}

``code`` is stable and machine-readable: a program branches on it (or on ``type``,
which carries the same code), never on ``detail``, which is for people and may be
reworded. Validation errors (``code`` "validation_error") add ``errors``, a map
from each failed field's dotted path (``ratings.0.rating``; ``non_field_errors`` for
the body as a whole) to its errors, each ``{"code": "max_value", "detail": "..."}``;
``detail`` then names the first field and its message. Some
problems add members of their own (a 413's ``limit``); clients ignore members they
do not know, as RFC 9457 asks.
"""

from typing import Any

from django.http import JsonResponse

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:interview-kit:problem:"

# Titles of the codes whose words alone would read oddly; the rest are the code in words.
TITLES = {
    "not_authenticated": "Not signed in",
    "authentication_failed": "Credentials refused",
    "permission_denied": "Not allowed",
    "parse_error": "Body is not valid JSON",
    "throttled": "Too many requests",
    "database_unavailable": "Service unavailable for a moment",
    "server_error": "Server error",
}


def title(code: str) -> str:
    return TITLES.get(code) or code.replace("_", " ").capitalize()


def problem(
    *, status: int, code: str, detail: str, instance: str | None = None, **extra: Any
) -> dict[str, Any]:
    """Return the problem details body for one error."""
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": title(code),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if instance is not None:
        body["instance"] = instance
    body.update(extra)
    return body


def problem_response(
    *, status: int, code: str, detail: str, instance: str | None = None, **extra: Any
) -> JsonResponse:
    """Return a problem details response, for views outside DRF (middleware, 404s)."""
    return JsonResponse(
        problem(status=status, code=code, detail=detail, instance=instance, **extra),
        status=status,
        content_type=PROBLEM_JSON,
    )
