"""Shared fixtures: personas, API clients, and the rule for optional services.

Tests that need PostgreSQL, Redis or Chromium run whenever those are present.
On a laptop without them they are skipped; in CI (CI=true) they fail instead,
so a broken CI environment cannot pass by skipping.
"""

import os
import shutil
import socket

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from kit.ladder import ensure_ladder
from kit.models import Level
from kit.permissions import INTERVIEWER, LEAD, RECRUITER

IN_CI = os.environ.get("CI", "").lower() == "true"

# Property tests draw the same examples every run: a suite that passed once passes again.
hypothesis_settings.register_profile("project", derandomize=True, deadline=None)
hypothesis_settings.load_profile("project")


def need(what: str, available: bool) -> None:
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but is not available")
    pytest.skip(f"{what} is not available here")


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def chromium_path() -> str | None:
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")


@pytest.fixture(autouse=True)
def reference_data_after_flush(request):  # type: ignore[no-untyped-def]
    """Put the level ladder and persona groups back for transactional tests.

    Transactional tests (live server, real worker, concurrency) run on committed
    data, and each one's teardown empties every table, data migrations' rows
    included. (Django's serialized rollback is not used: while Playwright's event
    loop runs, Django sees an async context and its own connection objects.)
    """
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or bool(
        {"transactional_db", "live_server"} & set(request.fixturenames)
    )
    if transactional:
        request.getfixturevalue("transactional_db")
        ensure_ladder(Level, Group)


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def migrate(targets: list[tuple[str, str]] | None = None) -> MigrationExecutor:
    """Migrate the test database to `targets` (default: the latest), for migration tests."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


def make_user(username: str, persona: str | None = None, **extra: str) -> User:
    # Transactional tests flush the tables; put the ladder and groups back if so.
    ensure_ladder(Level, Group)
    user = User.objects.create_user(
        username=username, password="pw", email=f"{username}@example.com", **extra
    )
    if persona:
        user.groups.add(Group.objects.get(name=persona))
    return user


@pytest.fixture
def recruiter(db) -> User:  # type: ignore[no-untyped-def]
    return make_user("rita", RECRUITER, first_name="Rita")


@pytest.fixture
def lead(db) -> User:  # type: ignore[no-untyped-def]
    return make_user("leo", LEAD, first_name="Leo")


@pytest.fixture
def interviewer(db) -> User:  # type: ignore[no-untyped-def]
    return make_user("ines", INTERVIEWER, first_name="Ines")


@pytest.fixture
def other_interviewer(db) -> User:  # type: ignore[no-untyped-def]
    return make_user("omar", INTERVIEWER, first_name="Omar")


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client
