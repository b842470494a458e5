"""core/queries.py against the ORM query it was compiled from."""

import pytest
from django.contrib.auth.models import Group

from core import queries
from core.permissions import LEAD, RECRUITER
from tests.conftest import make_user


@pytest.mark.django_db
def test_it_reads_each_users_groups_as_the_orm_does() -> None:
    both = make_user("both", RECRUITER)
    both.groups.add(Group.objects.get(name=LEAD))
    one = make_user("one", LEAD)
    none = make_user("none")
    Group.objects.create(name="Auditors").user_set.add(one)

    for user in (both, one, none):
        orm = set(Group.objects.filter(user=user).values_list("name", flat=True))
        assert queries.group_names(user.pk) == orm
    assert queries.group_names(one.pk) == {LEAD, "Auditors"}
    assert queries.group_names(none.pk) == set()
    assert queries.group_names(10**9) == set()


def test_the_compiled_statement_names_the_models_tables() -> None:
    text = queries._group_names_sql()

    assert Group._meta.db_table in text
    assert Group.user_set.through._meta.db_table in text
    assert text.count("%s") == 1
