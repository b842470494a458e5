"""Fixtures several test modules use, registered for the whole suite by tests/conftest.py
(`pytest_plugins`). The four main personas (rita, leo, ines, omar) are in tests/conftest.py;
inside a world built once for the module, a persona fixture gives the world's user
(tests/support/shared_db.py)."""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from core.permissions import INTERVIEWER
from tests.oidc_provider import Provider, running
from tests.support.shared_db import persona


@pytest.fixture
def pia(db: None) -> User:
    return persona("pia", INTERVIEWER, first_name="Pia")


@pytest.fixture
def sam(db: None) -> User:
    return persona("sam", INTERVIEWER, first_name="Sam")


@pytest.fixture
def olga(db: None) -> User:
    """An interviewer on no interview unless a test seats her."""
    return persona("olga", INTERVIEWER, first_name="Olga")


@pytest.fixture
def commit(django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Run the on-commit callbacks (the emails' Celery hand-off) of the block it wraps."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def provider() -> Iterator[Provider]:
    """The company's OpenID provider, running on a loopback port for the test."""
    with running() as provider:
        yield provider
