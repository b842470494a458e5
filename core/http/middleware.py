"""Errors answered without a 500 page: a lost database, bad input, a body too large.

1. 503 with Retry-After when the database connection is lost or refused. A
   PostgreSQL restart or failover makes requests in flight fail; their
   transactions are rolled back, so nothing is half-written, and trying again in
   a few seconds will work. Connection health checks (CONN_HEALTH_CHECKS) then
   replace the broken persistent connections, so the service recovers by itself.
   Only a lost connection is an outage (see `connection_lost`): any other
   database error is the request's fault or a bug.
2. 400 for a query the database refuses because of what the request holds: a
   search expression too large for it, a value it cannot compare (see
   `refused_input`). The message says so without echoing the database's text.
3. 400 naming the parameter for BadRequest (core/http/params.py reads query strings),
   and 400 for a response header a view built from input holding a line break
   (BadHeaderError: drf-spectacular names the schema file after ?version=).
4. 413 before the body is read when Content-Length is over
   DATA_UPLOAD_MAX_MEMORY_SIZE: JSON under /api/, a plain page elsewhere.

API views answer 1 to 3 through DRF's exception handler (core.api.exceptions);
this module covers every other view. None of these touches the database or
renders a template (a template's context processors would query it).
"""

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest, RequestDataTooBig, TooManyFieldsSent
from django.db import DatabaseError, DataError, InterfaceError, OperationalError
from django.http import BadHeaderError, HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.html import escape

from core.api.problems import problem_response

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = "The database is unavailable for a moment. Try again in a few seconds."
PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Back in a moment</title></head>
<body><h1>Back in a moment</h1><p>{MESSAGE}</p></body></html>
"""
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)

# SQLSTATEs of a lost or refused connection besides class 08 (connection exception):
# the server going away (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
# connect now, as while it starts up or fails over) or full (53300 too many clients).
SERVER_GONE = {"57P01", "57P02", "57P03", "53300"}
# Class 54: program limit exceeded (a tsquery, statement or expression too large).
LIMIT_EXCEEDED = "54"
# SQLite reports its limits as plain errors; these are the messages of those limits.
SQLITE_LIMIT = re.compile(
    r"too (large|many|big|complex)|stack overflow|string or blob too big", re.IGNORECASE
)
TOO_LARGE = "The request is too large for the database to run (a search of too many words?)."
BAD_VALUE = "The request holds a value the database cannot compare or store."
HEADER_REFUSED = "A query parameter holds a line break, which the response cannot carry."


def _cause(exc: BaseException) -> BaseException:
    # Django re-raises the driver's error as its own, `from` the original.
    return exc.__cause__ or exc


def connection_lost(exc: BaseException) -> bool:
    """Whether `exc` means the database connection was lost or refused.

    1. Only OperationalError and InterfaceError can be.
    2. An error with a SQLSTATE is a lost connection only for class 08, 57P01-57P03
       and 53300.
    3. SQLite has no connection to lose: its errors (a locked file, say) are not.
    4. InterfaceError without a SQLSTATE: the connection is closed or unusable.
    5. OperationalError without a SQLSTATE: the driver's own, raised when it could
       not connect or the socket broke (libpq sets none then).
    """
    if not isinstance(exc, DATABASE_UNAVAILABLE):
        return False
    cause = _cause(exc)
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate:
        return sqlstate.startswith("08") or sqlstate in SERVER_GONE
    return not type(cause).__module__.startswith("sqlite3")


def refused_input(exc: BaseException) -> str | None:
    """Why the database refused what the request holds, or None for any other error."""
    if not isinstance(exc, DatabaseError) or connection_lost(exc):
        return None
    cause = _cause(exc)
    sqlstate = getattr(cause, "sqlstate", None) or ""
    if sqlstate.startswith(LIMIT_EXCEEDED):
        return TOO_LARGE
    if type(cause).__module__.startswith("sqlite3") and SQLITE_LIMIT.search(str(cause)):
        return TOO_LARGE
    # Class 22 (data exception), or the driver's refusal to send a NUL in text.
    if isinstance(exc, DataError):
        return BAD_VALUE
    return None


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or "json" in request.headers.get("Accept", "")


def _page(status: int, title: str, message: str) -> HttpResponse:
    html = (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"</head>\n<body><h1>{title}</h1><p>{escape(message)}</p></body></html>\n"
    )
    return HttpResponse(html, status=status, content_type="text/html; charset=utf-8")


def database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Return the 503 for a request that failed because the database is unreachable."""
    log.warning("database unavailable during %s %s: %s", request.method, request.path, exc)
    if wants_json(request):
        response: HttpResponse = problem_response(
            status=503, code="database_unavailable", detail=MESSAGE, instance=request.path
        )
    else:
        response = HttpResponse(PAGE, status=503, content_type="text/html; charset=utf-8")
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response.headers["Cache-Control"] = "no-store"
    return response


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    """Return a 400 that says what is wrong: problem details for the API."""
    if wants_json(request):
        return problem_response(status=400, code="bad_query", detail=message, instance=request.path)
    return _page(400, "Bad request", message)


def request_too_large(request: HttpRequest, limit: int) -> HttpResponse:
    """Return the 413 for a body over `limit` bytes, in the API's error shape there."""
    message = f"The request body is larger than the limit of {limit} bytes."
    if wants_json(request):
        return problem_response(
            status=413,
            code="request_too_large",
            detail=message,
            instance=request.path,
            limit=limit,
        )
    return _page(413, "Request too large", message)


def content_length(request: HttpRequest) -> int:
    """The body's announced size; 0 when missing or not a number (Django then reads none)."""
    raw = request.META.get("CONTENT_LENGTH") or "0"
    return int(raw) if raw.isascii() and raw.isdigit() else 0


class RequestSizeLimitMiddleware:
    """Refuse a body over DATA_UPLOAD_MAX_MEMORY_SIZE with a 413 from its Content-Length,
    before anything reads or parses it (Django would answer an HTML 400 once a view or
    the CSRF check read it, and DRF's parsers read request streams without the cap)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and content_length(request) > limit:
            log.warning("refused %s %s: body over %s bytes", request.method, request.path, limit)
            return request_too_large(request, limit)
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """Answer the errors this module describes for the site's pages (the API's go
    through core.api.exceptions.api_exception_handler)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if connection_lost(exception):
            return database_unavailable(request, exception)
        refused = refused_input(exception)
        if refused is not None:
            log.warning("database refused the input of %s %s: %s", request.method, request.path,
                        exception)  # fmt: skip
            return bad_request(request, refused)
        if isinstance(exception, RequestDataTooBig):
            return request_too_large(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
        if isinstance(exception, TooManyFieldsSent):
            return bad_request(request, str(exception))
        if isinstance(exception, BadRequest):
            return bad_request(request, str(exception))
        if isinstance(exception, BadHeaderError):
            return bad_request(request, HEADER_REFUSED)
        return None


class CreatedLocationMiddleware:
    """Give an API 201 or 202 the Location of what it made, when the view gave none.

    Every creating POST under /api/v1/ goes to a collection (``/loops/``,
    ``/calibration/runs/``) and answers the object with its ``id``; the object lives
    at the collection's path plus the id, when that path is a route of its own.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code in (201, 202)
            and request.path.startswith("/api/v1/")
            and "Location" not in response
        ):
            location = _created_at(request.path, getattr(response, "data", None))
            if location is not None:
                response["Location"] = location
        return response


def _created_at(path: str, data: object) -> str | None:
    # Here, not at the top: core.api.exceptions imports this module.
    from core.api.exceptions import api_not_found

    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        return None
    location = f"{path}{data['id']}/"
    try:
        found = resolve(location)
    except Resolver404:
        return None
    return location if found.func is not api_not_found else None
