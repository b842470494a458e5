"""The persona check's one statement, compiled from the ORM once.

Every API request that asks who someone is (recruiter, lead) lands here. Compiled
once from its queryset, so its tables and columns come from the models' ``_meta``,
it costs a cursor round trip instead of about 1 ms of query building;
tests/core/test_queries.py pins it against the ORM on SQLite and PostgreSQL.
"""

from functools import cache

from django.contrib.auth.models import Group

from core import sql


@cache
def _group_names_sql() -> str:
    query = Group.objects.filter(user__pk=0).values_list("name").query
    text, params = query.sql_with_params()
    assert list(params) == [0], params
    return text


def group_names(user_id: int) -> set[str]:
    """Return the names of the user's groups."""
    return {name for (name,) in sql.rows(_group_names_sql(), [user_id])}
