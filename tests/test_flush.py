"""The suite's flush after a transactional test (tests/support/flush.py): the test's rows
go; what a freshly migrated database has (content types, permissions, the level ladder,
the persona groups) is there again, as it was."""

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command

from core.permissions import INTERVIEWER
from kit.models import Level, Role
from tests.conftest import make_user
from tests.support.factories import RoleFactory


def as_migrated() -> dict[str, list[tuple[object, ...]]]:
    return {
        "content types": sorted(ContentType.objects.values_list("app_label", "model")),
        "permissions": sorted(Permission.objects.values_list("content_type__model", "codename")),
        "levels": list(Level.objects.order_by("rank").values_list("name", "rank")),
        "groups": sorted(Group.objects.values_list("name")),
    }


@pytest.mark.django_db(transaction=True)
def test_a_flush_empties_the_tests_rows_and_keeps_what_a_migrated_database_has() -> None:
    before = as_migrated()
    assert before["permissions"] and before["levels"] and before["groups"]
    make_user("someone", INTERVIEWER)
    RoleFactory(name="Someone's role")

    # As Django's TransactionTestCase ends each test.
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)

    assert (User.objects.count(), Role.objects.count()) == (0, 0)
    assert as_migrated() == before
