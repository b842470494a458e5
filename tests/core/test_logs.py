"""Structured logs (core/logs.py): request ids, the line's keys and formats, Celery's
request ids, gunicorn's access line, and redaction."""

import io
import json
import logging
import re
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from config.celery import app as celery_app
from core import logs
from tests.conftest import client_for
from tests.core.conftest import KEYS, Captured

HEX32 = re.compile(r"^[0-9a-f]{32}$")


@celery_app.task(name="tests.core.test_logs.log_a_line")
def log_a_line() -> None:
    logging.getLogger("tests.task").info("in the task")


def about(captured: Captured, logger: str) -> list[dict[str, Any]]:
    return [line for line in captured.json() if line["logger"] == logger]


# --- request ids -------------------------------------------------------------------------------


def test_it_echoes_the_callers_request_id_and_logs_the_requests_lines_with_it(
    db: None, captured: Captured
) -> None:
    response = Client().get("/api/v1/nowhere/", HTTP_X_REQUEST_ID="trace-4f2a-0001")

    assert response.status_code == 404
    assert response["X-Request-ID"] == "trace-4f2a-0001"
    [line] = about(captured, "django.request")
    assert line["message"] == "Not Found: /api/v1/nowhere/"
    assert (line["request_id"], line["level"]) == ("trace-4f2a-0001", "WARNING")


@pytest.mark.parametrize(
    "given",
    ["short", "x" * 65, "has space-in-it", 'quote"and\\slash', "new\nline-forged"],
)
def test_it_replaces_a_malformed_request_id_with_a_new_one(
    db: None, captured: Captured, given: str
) -> None:
    response = Client().get("/api/v1/nowhere/", HTTP_X_REQUEST_ID=given)

    made = response["X-Request-ID"]
    assert HEX32.match(made)
    [line] = about(captured, "django.request")
    assert line["request_id"] == made


def test_it_makes_a_request_id_when_none_is_given(db: None, captured: Captured) -> None:
    first = Client().get("/api/v1/nowhere/")["X-Request-ID"]
    second = Client().get("/api/v1/nowhere/")["X-Request-ID"]

    assert HEX32.match(first) and HEX32.match(second) and first != second
    assert [line["request_id"] for line in about(captured, "django.request")] == [first, second]


def test_it_logs_the_signed_in_users_id(recruiter: User, captured: Captured) -> None:
    response = client_for(recruiter).get("/api/v1/interviews/999999/")

    assert response.status_code == 404
    [line] = about(captured, "django.request")
    assert (line["user_id"], line["request_id"]) == (recruiter.pk, response["X-Request-ID"])


def test_a_line_outside_any_request_has_null_ids(captured: Captured) -> None:
    logging.getLogger("tests.outside").info("nothing to do with a request")

    [line] = about(captured, "tests.outside")
    assert list(line) == KEYS
    assert (line["request_id"], line["user_id"], line["level"]) == (None, None, "INFO")
    assert line["message"] == "nothing to do with a request"


# --- formats -----------------------------------------------------------------------------------


def record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("kit.import", logging.ERROR, __file__, 1, message, args, None)


def test_it_writes_logfmt_when_asked() -> None:
    with logs.bound(logs.LogContext(request_id="req-00000001", user_id=7)):
        line = logs.LogFormatter("logfmt").format(record('said "%s" = no', "hi"))

    assert re.fullmatch(
        r'time=\S+ level=ERROR logger=kit\.import message="said \\"hi\\" = no" '
        r"request_id=req-00000001 user_id=7",
        line,
    ), line


def test_it_writes_one_json_object_per_line_even_with_a_traceback() -> None:
    try:
        raise ValueError("bad\nrow")
    except ValueError:
        import sys

        broken = record("failed")
        broken.exc_info = sys.exc_info()

    text = logs.LogFormatter("json").format(broken)

    assert "\n" not in text
    fields = json.loads(text)
    assert list(fields) == [*KEYS, "exc_info"]
    assert "ValueError: bad\nrow" in fields["exc_info"]


def test_the_format_comes_from_log_format_or_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    assert (logs.log_format(debug=False), logs.log_format(debug=True)) == ("json", "text")
    monkeypatch.setenv("LOG_FORMAT", "logfmt")
    assert logs.log_format(debug=False) == "logfmt"
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="LOG_FORMAT must be one of json, logfmt, text, not 'xml'"):
        logs.log_format(debug=False)


# --- Celery ------------------------------------------------------------------------------------


def test_a_task_run_eagerly_in_a_request_logs_with_its_request_id(captured: Captured) -> None:
    with logs.bound(logs.LogContext(request_id="req-eager-0001", user_id=5)):
        log_a_line.delay()

    [line] = about(captured, "tests.task")
    assert (line["request_id"], line["user_id"]) == ("req-eager-0001", 5)
    assert line["task"] == "tests.core.test_logs.log_a_line"
    assert logs.current() == logs.LogContext()


def test_a_published_task_carries_the_request_id_to_the_worker() -> None:
    headers: dict[str, Any] = {"id": "t-1"}
    with logs.bound(logs.LogContext(request_id="req-queued-0001", user_id=9)):
        logs.task_published(headers=headers)
    assert headers == {"id": "t-1", "request_id": "req-queued-0001", "user_id": 9}

    # The worker: the headers are the task's request attributes.
    task = SimpleNamespace(name="scoring.tasks.calibrate_task", request=SimpleNamespace(**headers))
    logs.task_started(task_id="t-1", task=task)
    try:
        assert logs.current() == logs.LogContext(
            request_id="req-queued-0001",
            user_id=9,
            task="scoring.tasks.calibrate_task",
            task_id="t-1",
        )
    finally:
        logs.task_finished(task_id="t-1")
    assert logs.current() == logs.LogContext()


def test_a_task_published_outside_a_request_carries_nothing() -> None:
    headers: dict[str, Any] = {}

    logs.task_published(headers=headers)

    assert headers == {}


# --- gunicorn ----------------------------------------------------------------------------------


def test_gunicorn_writes_one_redacted_access_line_with_the_request_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gunicorn.config import Config

    monkeypatch.setenv("LOG_FORMAT", "json")
    cfg = Config()
    cfg.set("accesslog", "-")
    logger = logs.GunicornLogger(cfg)
    stream = io.StringIO()
    for handler in logger.access_log.handlers:
        handler.setStream(stream)  # type: ignore[attr-defined]
    response = SimpleNamespace(
        status="200 OK", headers=[("X-Request-ID", "req-gunicorn-1")], sent=10
    )
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/calendar/Zm9vYmFyYmF6cXV4c2VjcmV0.ics",
        "QUERY_STRING": "token=abc&page=2",
        "RAW_URI": "/calendar/Zm9vYmFyYmF6cXV4c2VjcmV0.ics?token=abc&page=2",
        "SERVER_PROTOCOL": "HTTP/1.1",
        logs.ENVIRON_USER_ID: 12,
    }

    logger.access(response, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=25))

    [line] = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert "Zm9vYmFy" not in stream.getvalue() and "abc" not in stream.getvalue()
    assert {key: line[key] for key in ("logger", "message", "request_id", "user_id")} == {
        "logger": "gunicorn.access",
        "message": "GET /calendar/[redacted].ics?token=[redacted]&page=2 200",
        "request_id": "req-gunicorn-1",
        "user_id": 12,
    }
    assert (line["status"], line["duration_ms"], line["method"]) == (200, 25.0, "GET")


# --- redaction ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("GET /calendar/q1w2e3r4t5y6-_AbC.ics", "GET /calendar/[redacted].ics"),
        ("secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw=", "secret whsec_[redacted]"),
        ("Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
         "Authorization: [redacted]"),
        ("Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Token [redacted]"),
        ("{'HTTP_AUTHORIZATION': 'Bearer abc.def'}", "{'HTTP_AUTHORIZATION': '[redacted]'}"),
        ("key AbCdEfGhIjKlMnOpQrStUvWx.AbCdEfGhIjKlMnO used", "key [redacted] used"),
        ("/?next=/&password=hunter2&x=1", "/?next=/&password=[redacted]&x=1"),
        ('{"password": "hunter2", "username": "ines"}',
         '{"password": "[redacted]", "username": "ines"}'),
        ("postgres://kit:pw@db.internal:5432/kit", "postgres://kit:[redacted]@db.internal:5432/kit"),
        ("Not Found: /api/v1/interviews/92/", "Not Found: /api/v1/interviews/92/"),
    ],
)  # fmt: skip
def test_it_redacts_every_kind_of_secret_and_nothing_else(text: str, shown: str) -> None:
    assert logs.redact(text) == shown
