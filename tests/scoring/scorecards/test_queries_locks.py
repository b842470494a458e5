"""scoring/scorecards/queries.py's card lock (`card_locked`): the row is locked on
PostgreSQL, and only inside a transaction."""

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import queries, services
from tests.support.loops import Built


@pytest.fixture
def panel(panel_per_test: Built) -> Built:
    """Built for each test: these tests commit (tests/scoring/conftest.py)."""
    return panel_per_test


def test_it_locks_the_card_row_only_on_postgresql(first: Interview, interviewer: User) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        queries.card_locked(scorecard_id=card.pk, user_id=interviewer.pk)
        list(Scorecard.objects.select_for_update(of=("self",)).filter(pk=card.pk))
    # (The savepoint's own statements aside.)
    statement, orm = (q["sql"] for q in captured.captured_queries if "SELECT" in q["sql"])
    if connection.vendor == "postgresql":
        assert statement.rstrip().endswith("FOR UPDATE OF s")
        assert orm.endswith(f"FOR UPDATE OF {connection.ops.quote_name(Scorecard._meta.db_table)}")
    else:
        assert "FOR UPDATE" not in statement and "FOR UPDATE" not in orm


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_lock_outside_a_transaction() -> None:
    assert not connection.in_atomic_block
    # Stricter than the ORM, which refuses only where it would lock (PostgreSQL).
    with pytest.raises(TransactionManagementError):
        queries.card_locked(scorecard_id=1, user_id=1)
    if connection.vendor == "postgresql":
        with pytest.raises(TransactionManagementError):
            list(Scorecard.objects.select_for_update().filter(pk=1))
