"""Structured logs: one line per event, with the request (or task) it belongs to, no secrets.

Every handler of the site's logging (config/settings.py ``LOGGING``), gunicorn's
(gunicorn.conf.py) and the Celery worker's and beat's (config/celery.py) formats with
``LogFormatter``:

* ``LOG_FORMAT=json`` (the default with DEBUG off): one JSON object per line with ``time``
  (UTC, ISO 8601), ``level``, ``logger``, ``message``, ``request_id`` and ``user_id`` (null
  outside a request), plus ``task`` and ``task_id`` in a Celery task, and ``exc_info``;
* ``LOG_FORMAT=logfmt``: the same keys as ``key=value`` pairs;
* ``LOG_FORMAT=text`` (the default with DEBUG on): one readable line for a terminal.

The request id comes from the ``X-Request-ID`` header when it is a short token of safe
characters, else a new one is made; the response echoes it (``RequestIdMiddleware``).
A task queued during the request carries it in its message headers (``task_published``)
and the worker logs the task's lines with it (``task_started``).

Whatever a line says, ``redact`` removes what must never reach a log: calendar feed
tokens in URLs, API token keys, ``Authorization`` values, webhook secrets (``whsec_``),
passwords and tokens in query strings, form bodies or JSON, and passwords in URLs.

This module reads no Django setting at import: gunicorn's master loads it before Django.
"""

import contextvars
import json
import logging
import os
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.functional import empty
from django.utils.log import log_response
from gunicorn.glogging import Logger as _GunicornLogger  # type: ignore[import-untyped]

REQUEST_ID_HEADER = "X-Request-ID"
# A caller's id is kept only if it is this: long enough for a UUID or a trace id,
# short enough not to bloat every line, and nothing that could forge a log line.
_VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")
# Where the WSGI environ tells gunicorn's access log who made the request.
ENVIRON_USER_ID = "interviewkit.user_id"

FORMATS = ("json", "logfmt", "text")
REDACTED = "[redacted]"

# (pattern, replacement): each keeps the name of what it hides, so a line still says what
# was there. Patterns never consume a quote or backslash, so JSON stays intact.
_SECRETS: list[tuple[re.Pattern[str], str]] = [
    # The private calendar feed's address: /calendar/<token>.ics (interviews/urls.py).
    (re.compile(r"(/calendar/)[A-Za-z0-9_\-%]+"), rf"\1{REDACTED}"),
    # Webhook signing secrets (core/webhooks/signing.py).
    (re.compile(r"whsec_[A-Za-z0-9+/=_\-]+"), f"whsec_{REDACTED}"),
    # API token keys (core/accounts/tokens.py): 24 random characters, a dot, 15 of a MAC.
    (
        re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{24}\.[A-Za-z0-9_\-]{15}(?![A-Za-z0-9_\-])"),
        REDACTED,
    ),
    (
        re.compile(
            r"(authorization['\"]?\s*[:=]\s*['\"]?)(?:(?:Token|Bearer|Basic)\s+)?[^'\"\s,;}]+",
            re.IGNORECASE,
        ),
        rf"\1{REDACTED}",
    ),
    # Anything after an auth scheme (DRF's classic 40-hex keys among them).
    (re.compile(r"\b(Token|Bearer|Basic)(\s+)[^\s'\",;}]+"), rf"\1\2{REDACTED}"),
    # name=value in query strings and form bodies.
    (
        re.compile(
            r"((?:password\d?|passwd|secret|token|csrfmiddlewaretoken|api_key|apikey|"
            r"access_token|refresh_token|client_secret|code|key|signature|sig)=)[^&\s'\"]+",
            re.IGNORECASE,
        ),
        rf"\1{REDACTED}",
    ),
    # "name": "value" in JSON or Python reprs.
    (
        re.compile(
            r"(['\"](?:password\d?|new_password\d?|old_password|passwd|secret|token|key|"
            r"client_secret|access_token|refresh_token)['\"]\s*:\s*['\"])[^'\"]*",
            re.IGNORECASE,
        ),
        rf"\1{REDACTED}",
    ),
    # A password in a URL: scheme://user:password@host.
    (re.compile(r"(://[^:/\s@'\"]+:)[^@\s/'\"]+@"), rf"\1{REDACTED}@"),
]


def redact(text: str) -> str:
    """Return ``text`` with every secret the site knows the shape of replaced."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


@dataclass(frozen=True)
class LogContext:
    request_id: str | None = None
    user_id: int | None = None
    # The request being served, to read its user once authentication has run.
    request: HttpRequest | None = None
    task: str | None = None
    task_id: str | None = None


_EMPTY = LogContext()
_context: contextvars.ContextVar[LogContext] = contextvars.ContextVar("log_context")


def current() -> LogContext:
    return _context.get(_EMPTY)


@contextmanager
def bound(context: LogContext) -> Iterator[None]:
    token = _context.set(context)
    try:
        yield
    finally:
        _context.reset(token)


def _user_id(context: LogContext) -> int | None:
    if context.user_id is not None or context.request is None:
        return context.user_id
    # Only a user authentication already loaded: evaluating request.user here would run a
    # query, whose own DEBUG line would come back to this filter.
    user = context.request.__dict__.get("user")
    if user is None or getattr(user, "_wrapped", None) is empty:
        return None
    if not getattr(user, "is_authenticated", False):
        return None
    return getattr(user, "pk", None)


def request_id_from(value: str | None) -> str:
    """Return the caller's request id if it is acceptable, else a new one."""
    if value and _VALID_REQUEST_ID.match(value):
        return value
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Add ``request_id``, ``user_id``, ``task`` and ``task_id`` to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = _context.get(_EMPTY)
        asked = getattr(record, "request", None)
        if context.request is None and isinstance(asked, HttpRequest):
            # A line about a request written outside its middleware (Django's handler).
            context = LogContext(request_id=getattr(asked, "request_id", None), request=asked)
        if not hasattr(record, "request_id"):
            record.request_id = context.request_id
        if not hasattr(record, "user_id"):
            record.user_id = _user_id(context)
        record.task = getattr(record, "task", None) or context.task
        record.task_id = getattr(record, "task_id", None) or context.task_id
        return True


def log_format(*, debug: bool | None = None) -> str:
    """Return LOG_FORMAT, or its default: ``json`` with DEBUG off, ``text`` with it on."""
    chosen = os.getenv("LOG_FORMAT", "").strip().lower()
    if not chosen:
        if debug is None:  # gunicorn's master, before Django: read DEBUG as settings do
            debug = os.getenv("DEBUG", "True").strip().lower() in ("true", "1", "yes", "on")
        return "text" if debug else "json"
    if chosen not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {chosen!r}")
    return chosen


# Extra keys a call may pass (extra={...}) that go into the line as they are.
_EXTRA_KEYS = ("method", "path", "route", "status", "duration_ms", "remote", "outcome")


class LogFormatter(logging.Formatter):
    """Format a record as one JSON object, logfmt pairs or a readable line (``log_format``)."""

    def __init__(self, fmt: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        # fmt is the output format when given (tests, gunicorn), else LOG_FORMAT.
        self.kind = fmt if fmt in FORMATS else log_format()

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        if not hasattr(record, "request_id"):
            ContextFilter().filter(record)
        fields: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
            "request_id": getattr(record, "request_id", None),
            "user_id": getattr(record, "user_id", None),
        }
        for key in ("task", "task_id", *_EXTRA_KEYS):
            value = getattr(record, key, None)
            if value is not None:
                fields[key] = redact(value) if isinstance(value, str) else value
        if record.exc_info:
            fields["exc_info"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            fields["exc_info"] = redact(record.exc_text)
        if record.stack_info:
            fields["stack_info"] = redact(self.formatStack(record.stack_info))
        return fields

    def format(self, record: logging.LogRecord) -> str:
        fields = self.fields(record)
        if self.kind == "json":
            return json.dumps(fields, default=str, ensure_ascii=False)
        if self.kind == "logfmt":
            return " ".join(f"{key}={_logfmt_value(value)}" for key, value in fields.items())
        where = " ".join(
            f"{key}={fields[key]}" for key in ("request_id", "user_id", "task") if fields.get(key)
        )
        line = f"{fields['time']} {fields['level']} {fields['logger']}: {fields['message']}"
        line = f"{line} [{where}]" if where else line
        return f"{line}\n{fields['exc_info']}" if "exc_info" in fields else line


def _logfmt_value(value: Any) -> str:
    if value is None:
        return ""
    text = str(value)
    if text and not any(c in text for c in ' "=\\\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)


class RequestIdMiddleware:
    """Give each request an id (``X-Request-ID`` if acceptable, else a new one), bind it and
    the request to the log context for the request's lines, and echo it in the response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]  # read by views/tests
        with bound(LogContext(request_id=request_id, request=request)):
            response = self.get_response(request)
            if response.status_code >= 400:
                # Django's "Not Found: /path" line, written here rather than after the last
                # middleware returns, so it carries the request id (it is written once).
                log_response(
                    "%s: %s",
                    response.reason_phrase,
                    request.path,
                    response=response,
                    request=request,
                )
            # For gunicorn's access line, written after the response left Django (under
            # WSGI, META is the environ gunicorn holds).
            request.META[ENVIRON_USER_ID] = _user_id(current())
        response[REQUEST_ID_HEADER] = request_id
        return response


# Celery: the request id travels in the message headers of each task a request queues.


def task_published(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """``before_task_publish``: put the current request id and user id in the message."""
    if headers is None:
        return
    context = _context.get(_EMPTY)
    if context.request_id is not None:
        headers.setdefault("request_id", context.request_id)
        headers.setdefault("user_id", _user_id(context))


# Each task's context token, to restore the worker's own when the task ends.
_task_tokens: dict[str, contextvars.Token[LogContext]] = {}


def task_started(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    """``task_prerun``: log the task's lines with the request that queued it (or, run
    eagerly, with the request running it) and the task's name and id."""
    outer = _context.get(_EMPTY)
    request = getattr(task, "request", None)
    request_id = getattr(request, "request_id", None) or outer.request_id
    user_id = getattr(request, "user_id", None)
    context = replace(
        outer,
        request_id=request_id,
        user_id=user_id if user_id is not None else _user_id(outer),
        task=getattr(task, "name", None),
        task_id=task_id,
    )
    if task_id is not None:
        _task_tokens[task_id] = _context.set(context)


def task_finished(task_id: str | None = None, **kwargs: Any) -> None:
    """``task_postrun``: restore the context the task started in."""
    token = _task_tokens.pop(task_id, None) if task_id is not None else None
    if token is not None:
        try:
            _context.reset(token)
        except ValueError:  # set in another context (a thread pool); forget it instead
            _context.set(LogContext())


def configure(config: dict[str, Any]) -> None:
    """Apply the LOGGING dict (Django's LOGGING_CONFIG), and send Python's warnings through
    it too (``py.warnings``): else they print as bare lines among the JSON ones."""
    import logging.config

    logging.config.dictConfig(config)
    logging.captureWarnings(True)


def celery_setup_logging(loglevel: int | str | None = None, **kwargs: Any) -> None:
    """``setup_logging``: the worker and beat log through the site's LOGGING, not Celery's
    own format, at ``--loglevel`` or LOG_LEVEL, whichever says more."""
    from django.conf import settings

    configure(settings.LOGGING)
    root = logging.getLogger()
    if isinstance(loglevel, str):
        loglevel = logging.getLevelName(loglevel.upper())
    if isinstance(loglevel, int) and loglevel < root.level:
        root.setLevel(loglevel)


class GunicornLogger(_GunicornLogger):
    """gunicorn's logs in the site's format (gunicorn.conf.py sets ``logger_class``): its
    own lines, and one access line per request with its method, redacted path, status,
    duration, request id and user id (the same id the request's own lines carry)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        formatter = LogFormatter()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(formatter)

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not self.access_log_enabled:
            return
        status = resp.status
        status = int(str(status).split(None, 1)[0]) if status else None
        headers = dict((name.lower(), value) for name, value in (resp.headers or []))
        query = environ.get("QUERY_STRING")
        path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        method = environ.get("REQUEST_METHOD", "-")
        duration_ms = round(request_time.total_seconds() * 1000, 1)
        self.access_log.info(
            "%s %s %s",
            method,
            redact(path),
            status,
            extra={
                "method": method,
                "path": redact(path),
                "status": status,
                "duration_ms": duration_ms,
                "request_id": headers.get(REQUEST_ID_HEADER.lower()),
                "user_id": environ.get(ENVIRON_USER_ID),
            },
        )
