"""A name with a NUL character is refused (400), never sent to the database.

PostgreSQL cannot compare text holding a NUL and fails the query: POST /questions/
with one in a level name was a 500 there (found by the schemathesis fuzz). Every API
field that names an object (a role, a level, a competency, a user) is checked here.
"""

from collections.abc import Iterator

import pytest
from pytest_django import DjangoDbBlocker

from tests.conftest import client_for
from tests.problems import field_errors
from tests.security.conftest import World, build_world
from tests.support.shared_db import read_again, rolled_back

NUL = "L5\x00"
# (persona, method, path, body, the field holding the NUL): each sent by someone allowed
# to, so the request gets as far as reading the body. Other fields may fail too.
CASES = [
    ("leo", "post", "/api/v1/questions/", {"role": NUL}, "role"),
    ("leo", "post", "/api/v1/questions/", {"min_level": NUL}, "min_level"),
    ("leo", "post", "/api/v1/questions/", {"competencies": [NUL]}, "competencies"),
    ("leo", "post", "/api/v1/loop-templates/", {"level": NUL}, "level"),
    ("rita", "post", "/api/v1/loops/", {"role": NUL}, "role"),
    ("rita", "post", "/api/v1/loops/preview/", {"level": NUL}, "level"),
    ("rita", "put", "/api/v1/interviews/{first}/", {"interviewers": [NUL]}, "interviewers"),
    ("rita", "put", "/api/v1/interviews/{first}/", {"shadow": NUL}, "shadow"),
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


@pytest.mark.parametrize(("persona", "method", "path", "body", "field"), CASES)
def test_a_name_with_a_nul_character_is_refused(world: World, persona, method, path, body, field):
    api = client_for(world.users[persona])

    response = getattr(api, method)(path.format(first=world.first.pk), body, format="json")

    assert field_errors(response)[field] == ["Null characters are not allowed."]
