"""Fixtures several test modules use, registered for the whole suite by tests/conftest.py
(`pytest_plugins`). The four main personas (rita, leo, ines, omar) are in tests/conftest.py."""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from core.permissions import INTERVIEWER
from tests.conftest import make_user
from tests.oidc_provider import Provider, running


@pytest.fixture
def pia(db: None) -> User:
    return make_user("pia", INTERVIEWER, first_name="Pia")


@pytest.fixture
def sam(db: None) -> User:
    return make_user("sam", INTERVIEWER, first_name="Sam")


@pytest.fixture
def olga(db: None) -> User:
    """An interviewer on no interview unless a test seats her."""
    return make_user("olga", INTERVIEWER, first_name="Olga")


@pytest.fixture
def commit(django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Run the on-commit callbacks (the emails' Celery hand-off) of the block it wraps."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def provider() -> Iterator[Provider]:
    """The company's OpenID provider, running on a loopback port for the test."""
    with running() as provider:
        yield provider
