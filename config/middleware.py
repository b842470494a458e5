"""Answer 503 with Retry-After while the database cannot be reached, instead of a 500 page.

A PostgreSQL restart or failover makes requests in flight fail with
OperationalError or InterfaceError. Their transactions are rolled back, so
nothing is half-written; the client only needs to know that trying again in a
few seconds will work. Connection health checks (CONN_HEALTH_CHECKS) then
replace the broken persistent connections, so the service recovers by itself.

API views answer through DRF's exception handler (config.exceptions); this
middleware covers every other view. Neither touches the database or renders a
template (a template's context processors would query it).
"""

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = "The database is unavailable for a moment. Try again in a few seconds."
PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Back in a moment</title></head>
<body><h1>Back in a moment</h1><p>{MESSAGE}</p></body></html>
"""
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)


def database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Return the 503 for a request that failed because the database is unreachable."""
    log.warning("database unavailable during %s %s: %s", request.method, request.path, exc)
    if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
        response: HttpResponse = JsonResponse({"detail": MESSAGE}, status=503)
    else:
        response = HttpResponse(PAGE, status=503, content_type="text/html; charset=utf-8")
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response.headers["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DATABASE_UNAVAILABLE):
            return database_unavailable(request, exception)
        return None
