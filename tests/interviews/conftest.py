"""The interview tests' world (tests/support/loops.py's make_world) and its loop.

`world` is the world built once for the module (`world_built_once`), read again in each
test's savepoint (tests/support/shared_db.py). A module of transactional tests (the
`*_races.py` modules), or of tests that read whole tables, builds its own per test instead
(`world_per_test`).
"""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from interviews import services
from interviews.models import Interview, Loop
from kit.models import Role
from tests.support.loops import Seat, World, load_starter, make_world, seat_panels
from tests.support.shared_db import read_again, rolled_back


@pytest.fixture
def starter(db) -> Role:  # type: ignore[no-untyped-def]
    """The starter bank and loop templates, loaded as seed_demo loads them."""
    return load_starter()


@pytest.fixture(scope="module")
def world_built_once(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The world, built once for the module that asks for it."""
    with rolled_back(django_db_blocker):
        yield make_world()


@pytest.fixture
def world(world_built_once: World, db: None) -> World:
    """The small world (tests/support/loops.py), built once for the module; each test
    reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(world_built_once)


@pytest.fixture
def world_per_test(db: None) -> World:
    """The world built for one test, for a module that overrides `world` with it: its
    tests commit (transactional), or read whole tables."""
    return make_world()


@pytest.fixture
def loop(world: World, recruiter: User) -> Loop:
    """The candidate's loop: Serving (serving-1, serving-2), Training (both-1, training-1)."""
    return services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, by=recruiter
    )


@pytest.fixture
def interviews(loop: Loop) -> list[Interview]:
    return list(loop.interviews.order_by("order"))


@pytest.fixture
def elsewhere(recruiter: User, world: World) -> Interview | None:
    """The first interview of another candidate's loop (Jo Other's), with no panel yet."""
    jo = services.candidate_create(name="Jo Other")
    loop = services.loop_create(candidate=jo, role=world.role, level=world.level, by=recruiter)
    return loop.interviews.order_by("order").first()


@pytest.fixture
def panels(interviews: list[Interview], interviewer: User, other_interviewer: User) -> Loop:
    """Ines sits on the first interview (tomorrow), Omar on the second (the day after)."""
    seat_panels(
        interviews,
        [Seat(interviewers=[interviewer]), Seat(interviewers=[other_interviewer])],
        start=timezone.now().replace(microsecond=0) + timedelta(days=1),
        every=timedelta(days=1),
        minutes=45,
    )
    return interviews[0].loop
