"""One place where domain errors become API responses."""

import logging
from typing import Any

from django.core.exceptions import BadRequest, PermissionDenied, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from config.middleware import (
    MESSAGE,
    RETRY_AFTER_SECONDS,
    connection_lost,
    refused_input,
)

log = logging.getLogger(__name__)


class ApplicationError(Exception):
    """A request that is well-formed but breaks a business rule."""

    status_code = 400

    def __init__(self, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class Conflict(ApplicationError):
    """The request repeats or races a change that already happened (HTTP 409)."""

    status_code = 409


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if connection_lost(exc):
        # PostgreSQL restarting: a 503 the client may retry, not a 500 (config/middleware.py).
        log.warning("database unavailable during %s: %s", context["request"].path, exc)
        set_rollback()
        return Response(
            {"detail": MESSAGE},
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"},
        )
    refused = refused_input(exc)
    if refused is not None:
        # A search too large for the database, say: the request's fault, not an outage.
        log.warning("database refused the input of %s: %s", context["request"].path, exc)
        set_rollback()
        return Response({"detail": refused}, status=400)
    if isinstance(exc, BadRequest | TooManyFieldsSent):
        # A malformed query parameter (core/params.py), or too many of them.
        return Response({"detail": str(exc)}, status=400)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, ApplicationError):
        return Response({"detail": exc.message, **exc.extra}, status=exc.status_code)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    return exception_handler(exc, context)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404, in the API's shape under /api/.

    A path no route matches (an id that is not a number, say) then answers like
    an id that matches nothing: JSON, as the schema documents, not the HTML page.
    """
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
