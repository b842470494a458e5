"""One place where domain errors become API responses."""

import logging
from typing import Any

from django.core.exceptions import BadRequest, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import BadHeaderError, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt, requires_csrf_token
from drf_standardized_errors.formatter import ExceptionFormatter, flatten_errors
from drf_standardized_errors.handler import ExceptionHandler
from rest_framework import exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings

from core.api.problems import PROBLEM_JSON, problem, problem_response
from core.http.middleware import (
    HEADER_REFUSED,
    MESSAGE,
    RETRY_AFTER_SECONDS,
    connection_lost,
    refused_input,
)

log = logging.getLogger(__name__)


class ApplicationError(Exception):
    """A request that is well-formed but breaks a business rule.

    ``code`` is the stable, machine-readable name of the rule (problem details'
    ``code``, core/api/problems.py); ``message`` says it to a person.
    """

    status_code = 400

    def __init__(
        self, message: str, extra: dict[str, Any] | None = None, *, code: str = "rule_broken"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.code = code


class Conflict(ApplicationError):
    """The request repeats or races a change that already happened (HTTP 409)."""

    status_code = 409


class PreconditionFailed(ApplicationError):
    """The object changed since the caller read it: its If-Match is stale (HTTP 412)."""

    status_code = 412


class _Problem(exceptions.APIException):
    """Any error already decided (status, code, message), on its way to the formatter."""

    def __init__(
        self, status: int, code: str, message: str, extra: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, code)
        self.status_code = status
        self.extra = extra or {}


NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY  # errors of the body as a whole

# DRF's default codes that read better under another name in a problem's `code`.
_CODES = {"invalid": "validation_error", "error": "server_error"}


class ProblemFormatter(ExceptionFormatter):
    """Lay an API exception out as RFC 9457 problem details (core/api/problems.py)."""

    def run(self) -> dict[str, Any]:
        exc = self.exc
        request = self.context.get("request")
        instance = request.path if request is not None else None
        if isinstance(exc, exceptions.ValidationError):
            errors: dict[str, list[dict[str, str]]] = {}
            for e in flatten_errors(exc.detail):
                errors.setdefault(e.attr or NON_FIELD, []).append(
                    {"code": e.code, "detail": e.detail}
                )
            attr, first = next(iter(errors.items()), (NON_FIELD, [{"detail": "Invalid input."}]))
            detail = first[0]["detail"] if attr == NON_FIELD else f"{attr}: {first[0]['detail']}"
            more = sum(map(len, errors.values())) - 1
            if more > 0:
                detail += f" (and {more} more)"
            return problem(
                status=exc.status_code,
                code="validation_error",
                detail=detail,
                instance=instance,
                errors=errors,
            )
        code = exc.get_codes()
        code = code if isinstance(code, str) else exc.default_code
        return problem(
            status=exc.status_code,
            code=_CODES.get(code, code),
            detail=str(exc.detail),
            instance=instance,
            **getattr(exc, "extra", {}),
        )


class ProblemHandler(ExceptionHandler):
    """drf-standardized-errors' handler, knowing this project's exceptions."""

    def convert_known_exceptions(self, exc: Exception) -> Exception:
        request = self.context["request"]
        path = request.path if request is not None else ""
        if connection_lost(exc):
            # PostgreSQL restarting: a 503 the client may retry, not a 500
            # (core/http/middleware.py).
            log.warning("database unavailable during %s: %s", path, exc)
            return _Problem(503, "database_unavailable", MESSAGE)
        refused = refused_input(exc)
        if refused is not None:
            # A search too large for the database, say: the request's fault, not an outage.
            log.warning("database refused the input of %s: %s", path, exc)
            return _Problem(400, "input_refused", refused)
        if isinstance(exc, BadHeaderError):
            # A header built from input holding a line break (drf-spectacular names the
            # schema file after ?version=): the request's fault.
            return _Problem(400, "bad_query", HEADER_REFUSED)
        if isinstance(exc, BadRequest | TooManyFieldsSent):
            # A malformed query parameter (core/http/params.py), or too many of them.
            return _Problem(400, "bad_query", str(exc))
        if isinstance(exc, DjangoValidationError):
            detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
            return exceptions.ValidationError(detail)
        if isinstance(exc, ApplicationError):
            return _Problem(exc.status_code, exc.code, exc.message, exc.extra)
        return super().convert_known_exceptions(exc)

    def get_headers(self, exc: exceptions.APIException) -> dict[str, str]:
        headers = super().get_headers(exc)
        if exc.status_code == 503:
            headers.update({"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"})
        return headers

    def report_exception(self, exc: exceptions.APIException, response: Response) -> None:
        # An outage answered 503 is logged once as a warning above; reporting it as a
        # server error too would page someone for every request while PostgreSQL restarts.
        if isinstance(exc, _Problem):
            return
        super().report_exception(exc, response)

    def get_response(self, exc: exceptions.APIException, data: dict[str, Any]) -> Response:
        # Problems are JSON whatever the view renders (the schema view answers YAML).
        request = self.context.get("request")
        if request is not None:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = PROBLEM_JSON
        return Response(
            data, status=exc.status_code, headers=self.get_headers(exc), content_type=PROBLEM_JSON
        )


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    return ProblemHandler(exc, context).run()  # type: ignore[arg-type]  # a dict is its TypedDict


@csrf_exempt  # a write to no route is a 404, not the CSRF failure's HTML 403
def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Answer a path under /api/v1/ that no route matches: problem details, DEBUG or not.

    handler404 covers this with DEBUG off; with DEBUG on Django would show its
    technical 404 page, 34 KB of HTML to a client that asked for JSON. A path that
    lacks only its final slash is named, since APPEND_SLASH cannot redirect it.
    """
    message = "Not found."
    if not request.path.endswith("/"):
        try:
            if resolve(request.path + "/").func is not api_not_found:
                message = f"Not found. API paths end with a slash: {request.path}/"
        except Resolver404:
            pass
    return problem_response(status=404, code="not_found", detail=message, instance=request.path)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404, in the API's shape under /api/.

    A path no route matches (an id that is not a number, say) then answers like
    an id that matches nothing: JSON, as the schema documents, not the HTML page.
    """
    if request.path.startswith("/api/"):
        return problem_response(
            status=404, code="not_found", detail="Not found.", instance=request.path
        )
    return defaults.page_not_found(request, exception)


@requires_csrf_token  # the page's sign-out form needs a token, as Django's own 403 view has
def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 403 page, saying the view's reason when it gave one.

    Only pages come here: DRF answers its own refusals as problem details, and an
    anonymous caller of a page is sent to sign in before any view can refuse them.
    """
    reason = str(exception) if exception is not None else ""
    return render(request, "403.html", {"reason": reason}, status=403)
