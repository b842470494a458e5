"""A malformed query parameter on any page is a 400 that names it, and writes nothing
(#15: /calibration/?role=abc, ?version=², ?question=², ?answers=99999... were 500s, and
an unknown filter value silently showed every question).

Each page that reads its query string is asked, by a persona who may read it, for each
of its parameters with each malformed value of the parameter's kind: not a number, a
number no id can be, a NUL character, a string too long, a value not on the list,
the parameter given twice. tests/fuzz/test_page_query_strings.py fuzzes the same pages
(and the API) with random query strings for every persona.
"""

import html
from collections.abc import Iterator

import pytest
from django.test import Client
from pytest_django import DjangoDbBlocker

from core.models import AuditEvent
from scoring.exercises.limits import ANSWERS_MAX
from tests.problems import detail, field_errors
from tests.scoring.helpers import state
from tests.security.conftest import World, build_world
from tests.support.shared_db import read_again, rolled_back

NOT_IDS = ["abc", "1.5", "-1", "0", "²", str(2**63), "9" * 5000, "1\x00", "x" * 20_000]
# Pages reading ids with core.http.params also refuse other scripts' digits; the bank's filter
# (a form field, shared with the API) reads a fullwidth one as 1, as Python's int() does.
STRICT_IDS = [*NOT_IDS, "１", "٣"]
NOT_NUMBERS = ["abc", "0", "-1", "1.5", "²", str(2**63), "9" * 5000, "1\x00"]
NOT_NAMES = ["no-such-thing", "L5\x00", "x" * 201]
NOT_CHOICES = ["bogus", "csv\x00", "x" * 201]
NOT_TEXT = ["a\x00b", "x" * 201]
TWICE = ["1", "2"]  # ?name=1&name=2

# (persona, page, parameter, malformed values): every parameter a page reads.
CASES = [
    ("leo", "/bank/", "role", NOT_IDS),
    ("leo", "/bank/", "level", NOT_NAMES),
    ("leo", "/bank/", "competency", NOT_NAMES),
    ("leo", "/bank/", "status", NOT_CHOICES),
    ("leo", "/bank/", "q", NOT_TEXT),
    ("leo", "/bank/", "page", NOT_NUMBERS),
    ("omar", "/bank/questions/{question}/", "version", NOT_NUMBERS),
    ("rita", "/loops/new/", "candidate", STRICT_IDS),
    ("rita", "/loops/new/", "role", STRICT_IDS),
    ("rita", "/loops/new/", "level", STRICT_IDS),
    ("leo", "/calibration/", "role", STRICT_IDS),
    ("leo", "/calibration/", "level", STRICT_IDS),
    ("leo", "/calibration/", "job", STRICT_IDS),
    ("omar", "/calibration/", "role", STRICT_IDS),
    ("leo", "/calibration/export.csv", "role", STRICT_IDS),
    ("leo", "/calibration/export.csv", "level", STRICT_IDS),
    ("leo", "/calibration/export.csv", "table", NOT_CHOICES),
    ("leo", "/calibration/exercises/new/", "question", STRICT_IDS),
    ("leo", "/calibration/exercises/new/", "answers", [*NOT_NUMBERS, "1", str(ANSWERS_MAX + 1)]),
    ("leo", "/audit/", "action", NOT_TEXT),
    ("leo", "/audit/", "format", NOT_CHOICES),
    ("leo", "/audit/", "page", NOT_NUMBERS),
]
# What makes the rest of the page's query valid, so that only the parameter tried is wrong.
BASE = {
    "/calibration/export.csv": lambda w: {"role": w.role.pk, "table": "interviewers"},
    "/calibration/exercises/new/": lambda w: {"question": w.question.pk},
}


# The world of tests/security/conftest.py, built once for the module; each test reads it
# again in a savepoint of its own (tests/support/shared_db.py).
@pytest.fixture(scope="module")
def built_world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    with rolled_back(django_db_blocker):
        yield build_world()


@pytest.fixture
def world(built_world: World, db: None) -> World:
    return read_again(built_world)


def client_of(world: World, persona: str) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(world.users[persona])
    return client


@pytest.mark.parametrize(
    ("persona", "page", "name", "values"), CASES, ids=[f"{c[1]}?{c[2]}" for c in CASES]
)
def test_a_malformed_query_parameter_is_a_400_naming_it(
    world: World, persona: str, page: str, name: str, values: list[str]
) -> None:
    client = client_of(world, persona)
    path = page.format(question=world.question.pk)
    before = (state(), AuditEvent.objects.count())
    wrong = []
    for value in [*values, TWICE]:
        query = {**BASE.get(page, lambda w: {})(world), name: value}

        response = client.get(path, query)

        body = html.unescape(response.content.decode())
        if response.status_code != 400 or f"'{name}'" not in body:
            wrong.append(f"{name}={str(value)[:20]!r}: {response.status_code} {body[:120]!r}")
        assert response["Content-Type"] == "text/html; charset=utf-8"
    assert not wrong, "\n".join(wrong)
    assert (state(), AuditEvent.objects.count()) == before  # the export audits: nothing here


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("/bank/", {"role": "", "level": "", "competency": "", "status": "", "q": "", "page": ""}),
        ("/bank/", {"status": "active", "page": "999"}),  # past the last page: the last one
        ("/calibration/exercises/new/", {"question": "", "answers": ""}),
        ("/calibration/exercises/new/", {"question": str(10**9), "answers": "8"}),
        ("/calibration/", {"role": str(10**9), "level": "", "job": str(2**63 - 1)}),
        ("/audit/", {"action": "no.such.action", "format": "", "page": "2"}),
    ],
)
def test_well_formed_parameters_still_answer_the_page(
    world: World, page: str, query: dict[str, str]
) -> None:
    response = client_of(world, "leo").get(page, query)

    assert response.status_code == 200


def test_an_unknown_level_no_longer_shows_every_question(world: World) -> None:
    response = client_of(world, "ines").get("/bank/", {"level": "L99"})

    assert response.status_code == 400
    assert "'level': Select a valid choice." in html.unescape(response.content.decode())


def test_the_api_answers_a_malformed_parameter_in_its_own_shape(world: World) -> None:
    # A NUL in a name the bank's filter looks up: PostgreSQL cannot compare it.
    api = client_of(world, "ines")

    response = api.get("/api/v1/questions/", {"level": "L5\x00"})

    assert field_errors(response) == {"level": ["Null characters are not allowed."]}


def test_a_search_longer_than_200_characters_is_a_400_naming_it(world: World) -> None:
    api = client_of(world, "ines")

    refused = api.get("/api/v1/questions/", {"q": "x" * 201})
    accepted = api.get("/api/v1/questions/", {"q": "x" * 200})

    assert field_errors(refused) == {
        "q": ["Ensure this value has at most 200 characters (it has 201)."]
    }
    assert (accepted.status_code, accepted.json()["count"]) == (200, 0)


def test_a_line_break_in_the_schema_version_is_a_400(world: World) -> None:
    # drf-spectacular names the schema file after ?version=; a CR there made a 500.
    response = client_of(world, "ines").get("/api/schema/", {"version": "\r"})

    assert detail(response, 400, "bad_query") == (
        "A query parameter holds a line break, which the response cannot carry."
    )


@pytest.mark.parametrize("value", ["abc", "²", str(2**63), "1\x00", TWICE])
def test_a_malformed_question_to_swap_in_is_a_400(world: World, value: object) -> None:
    # The swap form's body names the question by id: "abc" was a 500.
    before = (state(), list(world.first.questions.values_list("pk", "question_id")))

    response = client_of(world, "rita").post(
        f"/assigned/{world.item.pk}/swap/", {"question": value}
    )

    assert response.status_code == 400
    assert "'question'" in html.unescape(response.content.decode())
    assert (state(), list(world.first.questions.values_list("pk", "question_id"))) == before
