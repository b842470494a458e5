"""What a transactional test's flush does in the suite: delete rows, keep the reference data.

Django's TransactionTestCase (pytest-django's `transactional_db`, `live_server`) ends
each test with `flush`, which empties every table, data migrations' rows included, and
then sends post_migrate (content types and permissions come back that way).

* `flush_by_delete`: on PostgreSQL the flush is one TRUNCATE of every table, which gives
  each of the 60 tables a new file and takes an exclusive lock on it: about 0.3 s on an
  idle machine and about 2 s beside another worker and a browser, per test. The tables
  hold a test's few rows, so DELETE empties them in about 15 ms. Foreign keys are
  deferred (Django makes them DEFERRABLE INITIALLY DEFERRED), so the order does not
  matter: by the commit nothing refers to anything. Sequences are left as they are, as
  TRUNCATE without RESTART IDENTITY leaves them; a flush that resets sequences or
  cascades is Django's own. The content types and permissions stay: the post_migrate
  after the flush would write the same rows again (0.08 s a flush down to 0.05 s).
* `reference_data_kept`: the level ladder and persona groups (kit.ladder, the data
  migration's rows) come back on the flush's post_migrate, committed, so every test
  after a transactional one finds them as a freshly migrated database has them.
  (Django's serialized rollback is not used: while Playwright's event loop runs, Django
  sees an async context and its own connection objects.)
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

from django.apps import AppConfig
from django.contrib.auth.models import Group
from django.db.backends.postgresql.operations import DatabaseOperations
from django.db.models.signals import post_migrate

from kit.ladder import ensure_ladder
from kit.models import Level

# Rows the flush's post_migrate would only write again, identical: the content types and
# permissions, which Django derives from the models.
DERIVED_FROM_MODELS = {"django_content_type", "auth_permission"}


@contextmanager
def flush_by_delete() -> Iterator[None]:
    """While the block runs, PostgreSQL's flush deletes rows instead of truncating."""
    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        self: DatabaseOperations,
        style: Any,
        tables: Sequence[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if reset_sequences or allow_cascade or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [
            "SET CONSTRAINTS ALL DEFERRED;",
            *(
                f"DELETE FROM {self.quote_name(table)};"
                for table in tables
                if table not in DERIVED_FROM_MODELS
            ),
        ]

    with mock.patch.object(DatabaseOperations, "sql_flush", sql_flush):
        yield


def _ladder_back(sender: AppConfig, **kwargs: Any) -> None:
    if sender.name == "kit":
        ensure_ladder(Level, Group)


@contextmanager
def reference_data_kept() -> Iterator[None]:
    """While the block runs, a flush (or a migration) ends with the ladder and groups."""
    post_migrate.connect(_ladder_back, dispatch_uid="tests.support.flush")
    try:
        yield
    finally:
        post_migrate.disconnect(dispatch_uid="tests.support.flush")
