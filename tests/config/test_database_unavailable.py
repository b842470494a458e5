"""A request that fails because PostgreSQL is unreachable answers 503 with Retry-After.

bench/faults.py checks the same against a real PostgreSQL restart under load; here
the database error is raised where a restart raises it (a view's query, token
authentication) and the translation is checked for the API, for pages, and for
errors that must stay 500s.
"""

from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.middleware import MESSAGE, RETRY_AFTER_SECONDS
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

LOST = "server closed the connection unexpectedly"


def broken_page(request: HttpRequest) -> HttpResponse:
    raise OperationalError(LOST)


def failing_page(request: HttpRequest) -> HttpResponse:
    raise ValueError("a bug, not an outage")


class BrokenApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request: Request) -> Response:
        raise InterfaceError("connection already closed")


# This module is also the URLconf of the tests marked with it.
urlpatterns = [
    path("broken/", broken_page),
    path("failing/", failing_page),
    path("api/broken/", BrokenApi.as_view()),
]


def assert_retry_later(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.headers["Cache-Control"] == "no-store"


def test_it_answers_503_json_when_an_api_view_loses_the_database(interviewer):
    with mock.patch(
        "scoring.scorecards.selectors.debrief_document", side_effect=OperationalError(LOST)
    ):
        response = client_for(interviewer).get("/api/v1/loops/1/debrief/")

    assert_retry_later(response)
    assert response.json() == {"detail": MESSAGE}


def test_it_answers_503_when_token_authentication_cannot_reach_the_database(api, interviewer):
    token = Token.objects.create(user=interviewer)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    with mock.patch.object(Token.objects, "select_related", side_effect=OperationalError(LOST)):
        response = api.get("/api/v1/levels/")

    assert_retry_later(response)
    assert response.json() == {"detail": MESSAGE}


def test_it_answers_503_html_when_a_page_loses_the_database(client, interviewer):
    client.force_login(interviewer)
    with mock.patch("interviews.selectors.my_interviews", side_effect=OperationalError(LOST)):
        response = client.get("/interviews/")

    assert_retry_later(response)
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert MESSAGE in response.content.decode()
    # The site's headers still go out on the error page.
    assert "Content-Security-Policy" in response.headers


@pytest.mark.urls(__name__)
def test_it_answers_503_for_interface_errors_in_api_views(client):
    response = client.get("/api/broken/")

    assert_retry_later(response)
    assert response.json() == {"detail": MESSAGE}


@pytest.mark.urls(__name__)
def test_it_answers_json_to_a_client_that_asks_for_it(client):
    response = client.get("/broken/", headers={"Accept": "application/json"})

    assert_retry_later(response)
    assert response.json() == {"detail": MESSAGE}


@pytest.mark.urls(__name__)
def test_it_leaves_other_errors_as_500s(client):
    client.raise_request_exception = False

    response = client.get("/failing/")

    assert response.status_code == 500
    assert "Retry-After" not in response.headers
