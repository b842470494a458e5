"""core/sql.py: the plain-SQL helpers of the scorecard hot path, on SQLite and PostgreSQL."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import sql
from interviews.models import Loop


def test_marks_and_tuples_make_placeholders() -> None:
    assert sql.marks([7, 8, 9]) == "%s, %s, %s"
    assert sql.marks([]) == "NULL"  # IN (NULL) matches nothing
    assert sql.tuples([(1, "a"), (2, "b")]) == "(%s, %s), (%s, %s)"


def test_an_empty_in_list_matches_nothing(interviewer: User) -> None:
    ids: list[int] = []
    assert sql.rows(f"SELECT id FROM auth_user WHERE id IN ({sql.marks(ids)})", ids) == []
    ids = [interviewer.pk]
    assert sql.rows(f"SELECT id FROM auth_user WHERE id IN ({sql.marks(ids)})", ids) == [
        (interviewer.pk,)
    ]


def test_execute_counts_the_rows_it_changed(interviewer: User, lead: User) -> None:
    changed = sql.execute(
        "UPDATE auth_user SET first_name = %s WHERE id IN (%s, %s)", ["Pat", interviewer.pk, 0]
    )

    assert changed == 1
    assert User.objects.get(pk=interviewer.pk).first_name == "Pat"
    assert User.objects.get(pk=lead.pk).first_name != "Pat"


def test_row_is_none_when_nothing_matches(db) -> None:  # type: ignore[no-untyped-def]
    assert sql.row("SELECT id FROM auth_user WHERE id = %s", [0]) is None


@pytest.mark.parametrize("pk", [1, 2**63 - 1])
def test_ids_that_fit_a_64_bit_key_are_in_range(pk: int) -> None:
    assert sql.in_range(pk)


@pytest.mark.parametrize("pk", [0, -1, 2**63, 2**70])
def test_ids_beyond_a_64_bit_key_are_not(pk: int) -> None:
    assert not sql.in_range(pk)


def test_aware_reads_a_naive_timestamp_as_utc() -> None:
    naive = datetime(2026, 11, 30, 9, 15)
    assert sql.aware(naive) == datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    assert sql.aware(None) is None
    moment = timezone.now()
    assert sql.aware(moment) is moment


def test_a_stored_moment_reads_back_as_the_orm_wrote_it(interviewer: User) -> None:
    moment = datetime(2026, 11, 30, 9, 15, 30, 123456, tzinfo=UTC)
    sql.execute(
        "UPDATE auth_user SET last_login = %s WHERE id = %s", [sql.moment(moment), interviewer.pk]
    )

    assert User.objects.get(pk=interviewer.pk).last_login == moment
    (raw,) = sql.row("SELECT last_login FROM auth_user WHERE id = %s", [interviewer.pk])  # type: ignore[misc]
    assert sql.aware(raw) == moment


def test_loaded_gives_an_instance_as_the_orm_loads_it(interviewer: User) -> None:
    moment = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    User.objects.filter(pk=interviewer.pk).update(last_login=moment)
    # As a plain cursor gives it: naive on SQLite, aware on PostgreSQL.
    (stored,) = sql.row("SELECT last_login FROM auth_user WHERE id = %s", [interviewer.pk])  # type: ignore[misc]

    user = sql.loaded(User, id=interviewer.pk, username="as-read", last_login=stored)

    assert (user.pk, user.username) == (interviewer.pk, "as-read")
    assert user.last_login == moment and user.last_login.tzinfo is not None
    assert not user._state.adding  # an existing row: usable in related filters
    assert user.get_deferred_fields() >= {"email", "first_name"}


def test_a_field_loaded_does_not_query_and_any_other_is_read_on_first_use(
    interviewer: User,
) -> None:
    user = sql.loaded(User, id=interviewer.pk, username=interviewer.username)

    with CaptureQueriesContext(connection) as queries:
        assert user.username == interviewer.username
    assert len(queries) == 0
    with CaptureQueriesContext(connection) as queries:
        assert user.email == interviewer.email
    assert len(queries) == 1


def test_the_lock_clause_matches_the_database(db) -> None:  # type: ignore[no-untyped-def]
    with transaction.atomic():
        clause = sql.for_update("s")
    if connection.vendor == "postgresql":
        assert clause == " FOR UPDATE OF s"
    else:
        assert clause == ""


def test_a_lock_outside_a_transaction_is_refused(transactional_db) -> None:  # type: ignore[no-untyped-def]
    # It would be released as soon as taken: the ORM refuses it too.
    with pytest.raises(TransactionManagementError, match="needs a transaction"):
        sql.for_update("s")


def test_loaded_converts_as_the_orm_does(db) -> None:  # type: ignore[no-untyped-def]
    # A JSON column reads back as text on a plain cursor: the field decodes it.
    loop = sql.loaded(Loop, id=1, warnings='["No question for the coding slot."]')

    assert loop.warnings == ["No question for the coding slot."]


def test_loaded_refuses_a_name_that_is_not_a_column() -> None:
    with pytest.raises(TypeError, match="Loop has no column candidate, status_id"):
        sql.loaded(Loop, id=1, candidate=7, status_id="draft")


def test_a_row_of_every_column_reads_back_as_the_orm_loads_it(interviewer: User) -> None:
    values = sql.row(
        f"SELECT {sql.columns(User, 'u')} FROM auth_user u WHERE u.id = %s", [interviewer.pk]
    )
    assert values is not None

    user = sql.from_row(User, values)

    expected = User.objects.get(pk=interviewer.pk)
    fields = [f.attname for f in User._meta.concrete_fields]
    assert [getattr(user, f) for f in fields] == [getattr(expected, f) for f in fields]
    assert user.get_deferred_fields() == set()


def test_a_statement_bound_on_the_server_is_logged_and_raises_djangos_errors(
    interviewer: User,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("parameters are bound on the server only on PostgreSQL")

    with CaptureQueriesContext(connection) as queries:
        assert sql.bound_row("SELECT %s::int8 + 1", [41]) == (42,)
        assert sql.bound_row("SELECT int8send(%s::int8)", [258], binary=True) == (
            b"\x00\x00\x00\x00\x00\x00\x01\x02",
        )
    # Logged as the server got them: the statement, its parameters apart.
    assert [query["sql"] for query in queries] == [
        "SELECT %s::int8 + 1",
        "SELECT int8send(%s::int8)",
    ]
    users = User.objects.count()
    with pytest.raises(IntegrityError), transaction.atomic():
        sql.bound_row(
            "INSERT INTO auth_user (id, username, password, is_superuser, first_name, "
            "last_name, email, is_staff, is_active, date_joined) "
            "VALUES (%s, 'again', '', false, '', '', '', false, true, now())",
            [interviewer.pk],
        )
    assert User.objects.count() == users
