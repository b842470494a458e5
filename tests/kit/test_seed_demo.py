"""manage.py seed_demo [--password P] [--if-empty]: the starter bank and the demo users.

seed_demo takes seconds (a bank, loops, a year of scorecards), so the tests of what it
makes read one run, made once into an empty database (`seeded_once`)."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django import DjangoDbBlocker

from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from kit.models import Question
from tests.kit.bank import run, snapshot
from tests.support.factories import make_question
from tests.support.shared_db import rolled_back

DEMO_USERS = {
    "demo-recruiter": [RECRUITER],
    "demo-lead": [LEAD],
    "demo-hiring-manager": sorted([HIRING_MANAGER, INTERVIEWER]),
    **{f"demo-interviewer-{n}": [INTERVIEWER] for n in range(1, 7)},
}


def users() -> list[dict[str, Any]]:
    """Return the users and their groups; the password hash is left out (it is salted)."""
    return [
        {
            "id": user.pk,
            "username": user.username,
            "name": (user.first_name, user.last_name),
            "email": user.email,
            "active": user.is_active,
            "staff": (user.is_staff, user.is_superuser),
            "groups": sorted(g.name for g in user.groups.all()),
        }
        for user in User.objects.order_by("pk").prefetch_related("groups")
    ]


@pytest.fixture(scope="class")
def seeded_once(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[str]:
    """seed_demo run once into an empty database, for the class (tests/support/shared_db.py):
    what it printed."""
    with rolled_back(django_db_blocker):
        # --if-empty only stops it when the bank already has questions.
        out, _ = run("seed_demo", "--if-empty", "--password", "calibrate-me")
        yield out


class TestIntoAnEmptyDatabase:
    def test_it_loads_the_starter_bank(self, seeded_once: str, db: None) -> None:
        assert "Demo ready:" in seeded_once
        questions = Question.objects.select_related("current", "min_level", "max_level")
        assert questions.count() >= 25
        for question in questions.prefetch_related("competencies"):
            version = question.current
            kinds = list(version.rubric.values_list("kind", flat=True))
            assert question.min_level is not None, question.title
            assert question.max_level is not None, question.title
            assert 3 <= question.min_level.rank <= question.max_level.rank <= 7, question.title
            assert question.competencies.count() >= 1, question.title
            assert len(kinds) >= 3, question.title
            assert "strong" in kinds, question.title
            assert "red_flag" in kinds, question.title
            assert version.follow_ups.count() >= 1, question.title

    def test_it_creates_the_demo_users_in_their_groups_with_a_usable_password(
        self, seeded_once: str, db: None
    ) -> None:
        for username, groups in DEMO_USERS.items():
            user = User.objects.get(username=username)
            assert sorted(g.name for g in user.groups.all()) == groups, username
            assert user.is_active
            assert not user.is_superuser
            assert user.has_usable_password()
            assert user.check_password("calibrate-me"), username
        assert User.objects.filter(username__startswith="demo-").count() == len(DEMO_USERS)
        # A real sign-in through the login form (axes needs the request) for each persona.
        for username in (
            "demo-recruiter",
            "demo-lead",
            "demo-hiring-manager",
            "demo-interviewer-6",
        ):
            client = Client()
            response = client.post("/login/", {"username": username, "password": "calibrate-me"})
            assert (response.status_code, response["Location"]) == (302, "/"), username
            assert client.get("/bank/").status_code == 200, username
        # The hiring manager owns the starter role: they build its loops.
        owner = User.objects.get(username="demo-hiring-manager")
        roles = list(owner.owned_roles.values_list("name", flat=True))
        assert roles == ["AI Infrastructure Engineer"]

    def test_it_changes_nothing_when_run_again_but_the_password(
        self, seeded_once: str, db: None
    ) -> None:
        bank, people = snapshot(), users()

        run("seed_demo")

        assert snapshot() == bank
        assert users() == people
        for username in DEMO_USERS:
            assert User.objects.get(username=username).check_password("demo")


def test_it_leaves_a_non_empty_bank_alone_with_if_empty(db: None) -> None:
    make_question(title="Someone else's question")
    bank, people = snapshot(), users()

    out, _ = run("seed_demo", "--if-empty")

    assert out == "The database already has questions; leaving it as it is.\n"
    assert snapshot() == bank
    assert users() == people == []
