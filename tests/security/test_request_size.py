"""Request size caps, answered before the work (#15: bodies over the upload limit got an
HTML 400 once read, and a 60,000-rating scorecard PUT cost about 3 s of CPU to refuse).

* A body whose Content-Length is over DATA_UPLOAD_MAX_MEMORY_SIZE is refused with 413
  before anything reads it: JSON in the API's error shape under /api/, a plain page
  elsewhere. Nothing is written.
* The scorecard input refuses more than MAX_RATINGS ratings, and more than MAX_TICKS
  rubric items or follow-ups in a rating, before validating their items: a 400 naming
  the field.
"""

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from pytest_django import DjangoDbBlocker

from interviews.models import Candidate
from scoring.scorecards.serializers import MAX_RATINGS, MAX_TICKS, ScorecardInputSerializer
from tests.conftest import client_for
from tests.problems import field_errors, problem
from tests.scoring.helpers import state
from tests.security.conftest import World, build_world
from tests.support.shared_db import read_again, rolled_back


# The world of tests/security/conftest.py, built once for the module; each test reads it
# again in a savepoint of its own (tests/support/shared_db.py).
@pytest.fixture(scope="module")
def built_world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    with rolled_back(django_db_blocker):
        yield build_world()


@pytest.fixture
def world(built_world: World, db: None) -> World:
    return read_again(built_world)


class UnreadableBody:
    """A request body that fails the test if anything reads it."""

    def __init__(self) -> None:
        self.read_from = False

    def read(self, *args: Any) -> bytes:
        self.read_from = True
        raise AssertionError("the body was read")

    readline = read


def card_url(world: World) -> str:
    return f"/api/v1/scorecards/{world.cards['omar'].pk}/"


def omar(world: World) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(world.users["omar"])
    return client


def too_large(limit: int) -> str:
    return f"The request body is larger than the limit of {limit} bytes."


def test_an_api_body_over_the_limit_is_a_json_413_before_it_is_read(world: World) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = UnreadableBody()
    before = state()

    response = omar(world).generic(
        "PUT",
        card_url(world),
        content_type="application/json",
        CONTENT_LENGTH=str(limit + 1),
        **{"wsgi.input": body},
    )

    refusal = problem(response, 413, "request_too_large")
    assert (refusal["detail"], refusal["limit"], refusal["instance"]) == (
        too_large(limit),
        limit,
        card_url(world),
    )
    assert not body.read_from
    assert state() == before


def test_a_real_body_over_the_limit_is_refused_the_same_way(world: World) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    padded = json.dumps({"summary": "x" * limit, "ratings": []})
    before = state()

    response = omar(world).put(card_url(world), padded, content_type="application/json")

    assert problem(response, 413, "request_too_large")["detail"] == too_large(limit)
    assert state() == before


def test_a_body_at_the_limit_is_read(world: World, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    document = {"recommendation": "", "summary": "", "ratings": []}
    filler = 1_000 - len(json.dumps(document))
    at_limit = json.dumps({**document, "summary": "x" * filler})
    assert len(at_limit) == 1_000

    accepted = omar(world).put(card_url(world), at_limit, content_type="application/json")
    refused = omar(world).put(card_url(world), at_limit + " ", content_type="application/json")

    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["summary"] == "x" * filler
    assert problem(refused, 413, "request_too_large")["limit"] == 1_000


def test_a_page_form_over_the_limit_is_a_plain_413(world: World, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    client = Client(raise_request_exception=False)
    client.force_login(world.users["rita"])

    response = client.post("/candidates/new/", {"name": "Big Body", "notes": "x" * 10_000})

    assert response.status_code == 413
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert too_large(10_000) in response.content.decode()
    assert not Candidate.objects.filter(name="Big Body").exists()


def test_a_card_with_too_many_ratings_is_refused_before_they_are_read(world: World) -> None:
    # Not even ratings: validated one by one, each would add its own error.
    body = {"recommendation": "yes", "ratings": [{"item": "x"}] * 60_000}
    before = state()

    started = time.perf_counter()
    response = client_for(world.users["omar"]).put(card_url(world), body, format="json")
    seconds = time.perf_counter() - started

    assert field_errors(response) == {
        "ratings.non_field_errors": [f"Ensure this field has no more than {MAX_RATINGS} elements."]
    }
    assert state() == before
    # Measured here: 0.1 s, nearly all of it encoding and decoding the 1 MB of JSON
    # (3 s before the bound). The bound below only catches a return to item-by-item work.
    assert seconds < 2, seconds


@pytest.mark.parametrize("field", ["checked", "follow_ups_asked"])
def test_a_rating_with_too_many_ticks_is_refused_before_they_are_read(
    world: World, field: str
) -> None:
    item = world.second.questions.order_by("order").first()
    assert item is not None
    body = {"ratings": [{"item": item.pk, "rating": 3, field: ["x"] * 100_000}]}
    before = state()

    response = client_for(world.users["omar"]).put(card_url(world), body, format="json")

    assert field_errors(response) == {
        f"ratings.0.{field}": [f"Ensure this field has no more than {MAX_TICKS} elements."]
    }
    assert state() == before


def test_the_bounds_leave_room_for_any_real_card() -> None:
    rating = {"item": 1, "checked": list(range(MAX_TICKS)), "follow_ups_asked": [1]}
    serializer = ScorecardInputSerializer(data={"ratings": [rating] * MAX_RATINGS})

    assert serializer.is_valid(), serializer.errors
