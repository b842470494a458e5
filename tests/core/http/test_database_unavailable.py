"""503 with Retry-After only when the database connection is lost or refused.

bench/faults.py checks the 503 against a real PostgreSQL restart under load. Here:

* the classification (core/http/middleware.py: `connection_lost`, `refused_input`) of
  the errors the drivers raise, wrapped as Django wraps them, each raised by a page
  and by an API view: a lost or refused connection is a 503 the client may retry; a
  query the database refuses because of its input (a search too large, a NUL it
  cannot compare) a 400 saying so; anything else (a locked SQLite file, a cancelled
  statement, a bug) a plain 500, without Retry-After (#15: every one was a 503);
* real errors end to end: a search too large for SQLite and for PostgreSQL, a
  locked SQLite file, and on PostgreSQL a connection terminated by the server.
"""

import sqlite3
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import (
    DatabaseError,
    DataError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    ProgrammingError,
    connection,
)
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path
from psycopg import errors as pg
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.tokens import token_issue
from core.http.middleware import (
    BAD_VALUE,
    MESSAGE,
    RETRY_AFTER_SECONDS,
    TOO_LARGE,
    connection_lost,
    refused_input,
)
from core.models import ApiToken
from kit.models import Question
from kit.selectors import question_search
from tests.conftest import client_for, need
from tests.problems import detail, field_errors

pytestmark = pytest.mark.django_db

LOST = "server closed the connection unexpectedly"


def as_django(error_class: type[DatabaseError], cause: Exception) -> DatabaseError:
    """The error as Django raises it from a driver's: its own class, `from` the original
    (django.db.utils.DatabaseErrorWrapper)."""
    error = error_class(*cause.args)
    error.__cause__ = cause
    return error


def locked_sqlite_error(tmp: Path) -> sqlite3.OperationalError:
    """The error SQLite really raises for a file another connection holds locked."""
    holder = sqlite3.connect(tmp / "locked.sqlite3", isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    waiter = sqlite3.connect(tmp / "locked.sqlite3", timeout=0)
    try:
        waiter.execute("SELECT * FROM t")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        waiter.close()
        holder.close()
    raise AssertionError("the file was not locked")


# name -> (the error a view raises, the status it must answer)
ERRORS: dict[str, tuple[Callable[[], Exception], int]] = {
    # lost or refused connections: 503
    "refused": (
        lambda: as_django(
            OperationalError, psycopg.OperationalError("connection failed: Connection refused")
        ),
        503,
    ),
    "closed by server": (lambda: as_django(OperationalError, psycopg.OperationalError(LOST)), 503),
    "admin shutdown": (lambda: as_django(OperationalError, pg.AdminShutdown("terminating")), 503),
    "crash shutdown": (lambda: as_django(OperationalError, pg.CrashShutdown("crash")), 503),
    "cannot connect now": (
        lambda: as_django(OperationalError, pg.CannotConnectNow("starting up")),
        503,
    ),
    "connection failure": (
        lambda: as_django(OperationalError, pg.ConnectionFailure("lost")),
        503,
    ),
    "too many clients": (
        lambda: as_django(OperationalError, pg.TooManyConnections("too many clients")),
        503,
    ),
    "connection already closed": (lambda: InterfaceError("connection already closed"), 503),
    # the request's input: 400
    "tsquery too big": (
        lambda: as_django(OperationalError, pg.ProgramLimitExceeded("value is too big")),
        400,
    ),
    "sqlite expression tree": (
        lambda: as_django(
            OperationalError,
            sqlite3.OperationalError("Expression tree is too large (maximum depth 1000)"),
        ),
        400,
    ),
    "sqlite too many variables": (
        lambda: as_django(OperationalError, sqlite3.OperationalError("too many SQL variables")),
        400,
    ),
    "nul in text": (
        lambda: as_django(
            DataError, psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
        ),
        400,
    ),
    "number out of range": (
        lambda: as_django(DataError, pg.NumericValueOutOfRange("integer out of range")),
        400,
    ),
    # neither: 500
    "sqlite locked": (
        lambda: as_django(OperationalError, sqlite3.OperationalError("database is locked")),
        500,
    ),
    "statement timeout": (
        lambda: as_django(OperationalError, pg.QueryCanceled("canceling statement")),
        500,
    ),
    "lock not available": (
        lambda: as_django(OperationalError, pg.LockNotAvailable("could not obtain lock")),
        500,
    ),
    "deadlock": (lambda: as_django(OperationalError, pg.DeadlockDetected("deadlock")), 500),
    "sqlite no such table": (
        lambda: as_django(OperationalError, sqlite3.OperationalError("no such table: x")),
        500,
    ),
    "undefined table": (
        lambda: as_django(ProgrammingError, pg.UndefinedTable("relation does not exist")),
        500,
    ),
    "integrity": (lambda: as_django(IntegrityError, pg.UniqueViolation("duplicate key")), 500),
    "bug": (lambda: ValueError("a bug, not an outage"), 500),
}


def erring_page(request: HttpRequest, name: str) -> HttpResponse:
    raise ERRORS[name][0]()


class ErringApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request: Request, name: str) -> Response:
        raise ERRORS[name][0]()


class SearchApi(APIView):
    """The bank's search run on whatever it is given: the real API caps `q` at 200
    characters before the database sees it, so this is how the database's own refusal
    of a too-large search reaches the error handling end to end."""

    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request: Request) -> Response:
        found = question_search(Question.objects.all(), request.query_params.get("q", ""))
        return Response({"count": found.count()})


# This module is also the URLconf of the tests marked with it.
urlpatterns = [
    path("page/<str:name>/", erring_page),
    path("api/search/", SearchApi.as_view()),
    path("api/<str:name>/", ErringApi.as_view()),
]


def assert_retry_later(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.headers["Cache-Control"] == "no-store"


def assert_expected(response, status: int) -> None:  # type: ignore[no-untyped-def]
    if status == 503:
        assert_retry_later(response)
        return
    assert response.status_code == status
    assert "Retry-After" not in response.headers
    assert MESSAGE not in response.content.decode()


# --- the classification, through a page and the API ------------------------------------------


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("name", ERRORS)
def test_a_page_answers_each_database_error_by_its_cause(name: str) -> None:
    client = Client(raise_request_exception=False)

    response = client.get(f"/page/{name}/")

    assert_expected(response, ERRORS[name][1])
    if response.status_code == 503:
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert MESSAGE in response.content.decode()


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("name", ERRORS)
def test_an_api_view_answers_each_database_error_by_its_cause(name: str) -> None:
    client = Client(raise_request_exception=False)

    response = client.get(f"/api/{name}/")

    status = ERRORS[name][1]
    assert_expected(response, status)
    if status == 503:
        assert detail(response, 503, "database_unavailable") == MESSAGE
    elif status == 400:
        assert detail(response, 400, "input_refused") in (TOO_LARGE, BAD_VALUE)


def test_a_locked_sqlite_file_is_not_an_outage(tmp_path: Path) -> None:
    error = locked_sqlite_error(tmp_path)

    assert "locked" in str(error)
    assert not connection_lost(as_django(OperationalError, error))
    assert refused_input(as_django(OperationalError, error)) is None


@pytest.mark.urls(__name__)
def test_it_answers_json_to_a_client_that_asks_for_it() -> None:
    response = Client().get("/page/admin shutdown/", headers={"Accept": "application/json"})

    assert_retry_later(response)
    assert detail(response, 503, "database_unavailable") == MESSAGE


# --- where a lost connection really strikes ------------------------------------------------


def test_it_answers_503_json_when_an_api_view_loses_the_database(interviewer: User) -> None:
    with mock.patch(
        "scoring.scorecards.selectors.debrief_document",
        side_effect=ERRORS["closed by server"][0](),
    ):
        response = client_for(interviewer).get("/api/v1/loops/1/debrief/")

    assert_retry_later(response)
    assert detail(response, 503, "database_unavailable") == MESSAGE


def test_it_answers_503_when_token_authentication_cannot_reach_the_database(
    api, interviewer: User
) -> None:  # type: ignore[no-untyped-def]
    token = token_issue(user=interviewer)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    with mock.patch.object(
        ApiToken.objects, "select_related", side_effect=ERRORS["admin shutdown"][0]()
    ):
        response = api.get("/api/v1/levels/")

    assert_retry_later(response)
    assert detail(response, 503, "database_unavailable") == MESSAGE


def test_it_answers_503_html_when_a_page_loses_the_database(
    client: Client, interviewer: User
) -> None:
    client.force_login(interviewer)
    with mock.patch("interviews.selectors.my_interviews", side_effect=ERRORS["refused"][0]()):
        response = client.get("/interviews/")

    assert_retry_later(response)
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert MESSAGE in response.content.decode()
    # The site's headers still go out on the error page.
    assert "Content-Security-Policy" in response.headers


# --- real errors, end to end ---------------------------------------------------------------


def too_large_search() -> str:
    # SQLite: one condition a word nests past its expression depth of 1,000. PostgreSQL:
    # websearch_to_tsquery refuses a query over its 1 MB size limit (54000); long words
    # reach it in milliseconds (as many short ones take seconds).
    if connection.vendor == "sqlite":
        return " ".join(f"w{i}" for i in range(1_100))
    return " ".join("a" * 2_000 + str(i) for i in range(600))


@pytest.mark.urls(__name__)
def test_a_search_too_large_for_the_database_is_a_400_not_an_outage(db: None) -> None:
    response = Client().get("/api/search/", {"q": too_large_search()})

    assert detail(response, 400, "input_refused") == TOO_LARGE
    assert "Retry-After" not in response.headers


def test_a_search_too_long_for_the_api_is_refused_before_the_database(
    interviewer: User,
) -> None:
    response = client_for(interviewer).get("/api/v1/questions/", {"q": too_large_search()})

    errors = field_errors(response)
    assert list(errors) == ["q"]
    assert "200" in errors["q"][0]


def test_a_search_too_long_for_the_page_is_refused_before_the_database(
    client: Client, interviewer: User
) -> None:
    client.force_login(interviewer)

    response = client.get("/bank/", {"q": too_large_search()})

    assert response.status_code == 400
    assert "&#x27;q&#x27; is longer than 200 characters." in response.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("url", ["/interviews/", "/api/v1/levels/"])
def test_a_connection_the_server_terminates_is_a_503(url: str, interviewer: User) -> None:
    need("PostgreSQL", connection.vendor == "postgresql")
    client = client_for(interviewer) if url.startswith("/api/") else Client()
    if not url.startswith("/api/"):
        client.force_login(interviewer)
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    settings = connection.settings_dict
    admin = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
        dbname=settings["NAME"], password=settings["PASSWORD"] or None, autocommit=True,
    )  # fmt: skip
    try:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        response = client.get(url)
    finally:
        admin.close()
        connection.close()  # the next query (the test's flush) connects afresh

    assert_retry_later(response)
