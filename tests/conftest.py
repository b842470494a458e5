"""Shared fixtures: personas, API clients, and the rule for optional services.

Tests that need PostgreSQL, Redis or Chromium run whenever those are present.
On a laptop without them they are skipped; in CI (CI=true) they fail instead,
so a broken CI environment cannot pass by skipping. The rule is the same for tests
marked slow: CI runs them with `make test-slow`, with the services present.
"""

import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from celery._state import _set_task_join_will_block
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from tests.support.flush import flush_by_delete, reference_data_kept
from tests.support.shared_db import persona

IN_CI = os.environ.get("CI", "").lower() == "true"

# Fixtures several modules share (more personas, the OpenID provider, on-commit capture).
pytest_plugins = ["tests.support.fixtures"]

# Property tests draw the same examples every run: a suite that passed once passes again.
hypothesis_settings.register_profile("project", derandomize=True, deadline=None)
hypothesis_settings.load_profile("project")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep a module that builds its data once (or starts Chromium once) on one xdist
    worker, so it builds it once: `make test` runs with `--dist loadgroup`, which sends
    each group to one worker (the largest first) and every other test on its own."""
    # The whole module, so its tests run in the file's order as they do without xdist.
    sharing = {
        item.module.__name__
        for item in items
        if isinstance(item, pytest.Function) and shares_module_fixture(item)
    }
    for item in items:
        if isinstance(item, pytest.Function) and item.module.__name__ in sharing:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def shares_module_fixture(item: pytest.Function) -> bool:
    """Whether the test uses a module- or class-scoped fixture of ours (a world built once,
    tests/support/shared_db.py; Chromium): plugins' own (baseid "") do not count. pytest
    has no public way to read a test's fixture definitions: `_fixtureinfo` it is."""
    return any(
        definitions[-1].scope in ("module", "class") and definitions[-1].baseid
        for definitions in item._fixtureinfo.name2fixturedefs.values()
    )


def need(what: str, available: bool) -> None:
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but is not available")
    pytest.skip(f"{what} is not available here")


def at_once(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together, each on its own database connection;
    return what each returned, or the exception it raised, in the order given.

    For races on PostgreSQL (transactional tests): an exception comes back as a value,
    so no thread can fail silently, and no thread may still be running at the end.
    """
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(n: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[n] = call()
        except BaseException as exc:  # returned, so the test sees it
            outcomes[n] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n, call)) for n, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running"
    return outcomes


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def chromium_path() -> str | None:
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")


@pytest.fixture(scope="session", autouse=True)
def flush_quickly_keeping_reference_data() -> Iterator[None]:
    """A transactional test (live server, real worker, concurrency) runs on committed
    data, and its flush empties every table: here the flush deletes rows rather than
    truncating tables, and puts the level ladder and persona groups back, committed
    (tests/support/flush.py)."""
    with flush_by_delete(), reference_data_kept():
        yield


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    # The cache holds only the API's rate-limit counts: each test starts with none, so a
    # test's anonymous calls are not throttled for what earlier tests in its process sent.
    cache.clear()


@pytest.fixture(autouse=True)
def outside_a_task() -> None:
    # Celery marks "inside a task" in a process-wide flag that an eager task sets and
    # restores: eager tasks run in threads at once (the race tests) can leave it set, and a
    # later test's EagerResult.get() then refuses ("Never call result.get() within a task").
    _set_task_join_will_block(False)


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def webhooks_to_loopback(settings):  # type: ignore[no-untyped-def]
    # The tests' receivers listen on 127.0.0.1; tests of the refusal turn this off.
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True


def migrate(targets: list[tuple[str, str]] | None = None) -> MigrationExecutor:
    """Migrate the test database to `targets` (default: the latest), for migration tests."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


def make_user(username: str, persona: str | None = None, **extra: str) -> User:
    user = User.objects.create_user(
        username=username, password="pw", email=f"{username}@example.com", **extra
    )
    if persona:
        user.groups.add(Group.objects.get(name=persona))
    return user


@pytest.fixture
def recruiter(db) -> User:  # type: ignore[no-untyped-def]
    return persona("rita", RECRUITER, first_name="Rita")


@pytest.fixture
def lead(db) -> User:  # type: ignore[no-untyped-def]
    return persona("leo", LEAD, first_name="Leo")


@pytest.fixture
def interviewer(db) -> User:  # type: ignore[no-untyped-def]
    return persona("ines", INTERVIEWER, first_name="Ines")


@pytest.fixture
def other_interviewer(db) -> User:  # type: ignore[no-untyped-def]
    return persona("omar", INTERVIEWER, first_name="Omar")


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client
