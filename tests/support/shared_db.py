"""Data built once for many tests, each test still seeing it untouched.

`rolled_back(django_db_blocker)` opens a transaction for a module- or class-scoped
fixture to build its data in, and rolls it back when the fixture is torn down. Tests
using pytest-django's `db` run inside it, each in a savepoint of its own that is rolled
back after the test (Django's TestCase), so every test starts from the data as built,
on SQLite and PostgreSQL alike, in every order and on every xdist worker (each worker
builds its own). Fixtures nest: one opened inside another is a savepoint of it.

A shared fixture stays alive until its module ends (or its params change), so every
test of the module runs beside its data: keep in the module only tests that use it or
do not mind it, and at most one shared fixture alive at a time besides the ones it
depends on (two unrelated ones would nest in whichever order pytest sets them up).
Not for modules with transactional tests (`transaction=True`, `live_server`): they
commit and flush, and cannot run inside an open transaction. Let a function-scoped
fixture give each test the rows read again (`read_again`, `Built.fresh`): a test that
changes an object in memory then changes only its own copy.

While a world built once is open, the persona fixtures (`recruiter`, `interviewer`,
`pia`, ...: `persona`) give the world's user of that name if it made one, so a module
overrides only the fixtures of its world (`panel`, `world`), not every persona's.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields, is_dataclass, replace
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Model
from django.test import override_settings
from pytest_django import DjangoDbBlocker

from core.permissions import INTERVIEWER, LEAD, RECRUITER

T = TypeVar("T")

# A world built once sees the settings the suite's autouse fixtures give each test
# (tests/conftest.py): the fast hasher, and webhooks allowed to the tests' loopback receivers.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# How many worlds built once are open (`rolled_back` blocks not yet ended).
_open_worlds = 0


@contextmanager
def rolled_back(django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    """Database access and a transaction for the block, rolled back when it ends."""
    global _open_worlds
    with (
        django_db_blocker.unblock(),
        override_settings(PASSWORD_HASHERS=FAST_HASHERS, WEBHOOK_ALLOW_PRIVATE_TARGETS=True),
        transaction.atomic(),
    ):
        _open_worlds += 1
        try:
            yield
        finally:
            _open_worlds -= 1
        transaction.set_rollback(True)


def persona(username: str, group: str, **extra: str) -> User:
    """The user a persona fixture gives: inside a world built once, the world's user of
    that name if it made one; otherwise a new one (tests.conftest.make_user)."""
    if _open_worlds:
        made = User.objects.filter(username=username).first()
        if made is not None:
            return made
    from tests.conftest import make_user  # (tests.conftest imports this module)

    return make_user(username, group, **extra)


def read_again(world: T) -> T:
    """A copy of a dataclass of model instances (in dicts, lists and dataclasses), each
    row read again from the database: objects of the test's own, as its savepoint sees
    them."""

    def again(value: Any) -> Any:
        if isinstance(value, Model):
            return type(value)._default_manager.get(pk=value.pk)
        if isinstance(value, dict):
            return {key: again(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [again(inner) for inner in value]
        if is_dataclass(value) and not isinstance(value, type):
            return read_again(value)
        return value

    assert is_dataclass(world) and not isinstance(world, type)
    return replace(world, **{f.name: again(getattr(world, f.name)) for f in fields(world)})


# The suite's personas (tests/conftest.py, tests/support/fixtures.py) by fixture name.
PERSONAS = {
    "recruiter": ("rita", RECRUITER),
    "lead": ("leo", LEAD),
    "interviewer": ("ines", INTERVIEWER),
    "other_interviewer": ("omar", INTERVIEWER),
    "pia": ("pia", INTERVIEWER),
    "sam": ("sam", INTERVIEWER),
    "olga": ("olga", INTERVIEWER),
}


def make_personas(*fixture_names: str) -> None:
    """The personas named (default: all) as their fixtures make them, for a world built
    once."""
    from tests.conftest import make_user  # (tests.conftest imports this module)

    for name in fixture_names or tuple(PERSONAS):
        username, group = PERSONAS[name]
        make_user(username, group, first_name=username.capitalize())


def persona_user(fixture_name: str) -> User:
    """The persona a fixture of that name gives, read from the database."""
    return User.objects.get(username=PERSONAS[fixture_name][0])
