"""A list filtered by an id that does not exist answers like one filtered by an id the
caller may not see: an empty list. A 400 for the one and an empty list for the other
would tell an outsider which ids exist (the schemathesis fuzz found the 400s). The
bank's filters still refuse a role, level or competency that does not exist: the bank
hides nothing, and the 400 tells a caller of a typo (tests/kit/test_questions_api.py)."""

from collections.abc import Iterator

import pytest
from pytest_django import DjangoDbBlocker

from tests.conftest import client_for
from tests.problems import field_errors
from tests.security.conftest import World, build_world
from tests.support.shared_db import read_again, rolled_back

UNKNOWN = 10**9
# Not ids of anything, yet numbers: past a 64-bit id (foreign key lookups skip Django's
# range check, and SQLite overflows), past django-filter's cap of 1e50, negative, fractional.
ODD_NUMBERS = ["1.7976931348623157e308", "-1e308", str(2**63), "-3", "0", "2.5"]
# (list URL, filter): every filter by the id of an object not everyone may see.
FILTERS = [
    ("/api/v1/interviews/", "loop"),
    ("/api/v1/loops/", "candidate"),
    ("/api/v1/scorecards/", "interview"),
]


# The world of tests/security/conftest.py, built once for the module; each test reads it
# again in a savepoint of its own (tests/support/shared_db.py).
@pytest.fixture(scope="module")
def built_world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    with rolled_back(django_db_blocker):
        yield build_world()


@pytest.fixture
def world(built_world: World, db: None) -> World:
    return read_again(built_world)


def rows(body: dict) -> list:  # type: ignore[type-arg]
    return body["results"]


@pytest.mark.parametrize(
    ("url", "name", "hidden"),
    [
        ("/api/v1/interviews/", "loop", lambda w: w.loop.pk),
        ("/api/v1/loops/", "candidate", lambda w: w.candidate.pk),
        ("/api/v1/scorecards/", "interview", lambda w: w.first.pk),
    ],
)
def test_an_unknown_id_answers_like_one_you_may_not_see(world: World, url, name, hidden) -> None:
    api = client_for(world.users["olga"])  # an interviewer on no loop

    seen = api.get(f"{url}?{name}={hidden(world)}")
    unknown = api.get(f"{url}?{name}={UNKNOWN}")

    assert seen.status_code == unknown.status_code == 200
    assert seen.json() == unknown.json()
    assert rows(seen.json()) == []


@pytest.mark.parametrize(("url", "name"), FILTERS)
@pytest.mark.parametrize("value", [str(UNKNOWN), *ODD_NUMBERS])
def test_a_number_no_row_has_matches_nothing(world: World, url, name, value) -> None:
    response = client_for(world.users["rita"]).get(url, {name: value})

    assert response.status_code == 200
    assert rows(response.json()) == []


@pytest.mark.parametrize(("url", "name"), FILTERS)
def test_a_filter_that_is_not_a_number_is_refused(world: World, url, name) -> None:
    response = client_for(world.users["rita"]).get(url, {name: "first"})

    assert field_errors(response) == {name: ["Enter a number."]}
