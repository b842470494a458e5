"""Plain SQL for the scorecard endpoints' hot path.

Every autosave, submit and debrief runs a handful of fixed-shape statements.
Through the ORM, each costs about 1 ms of CPU, nearly all of it spent building
and compiling the query (columns, joins, quoting). The same statement on a
cursor costs about 0.1 ms. bench/load.py measures what that is worth under
load. The statements that use these helpers are written in plain SQL that
SQLite and PostgreSQL both read, and each sits next to the code that needs it.
"""

from collections.abc import Sequence
from contextlib import nullcontext
from datetime import datetime
from functools import cached_property
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model
from django.db.transaction import TransactionManagementError
from django.utils import timezone

M = TypeVar("M", bound=Model)


def rows(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def row(sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def execute(sql: str, params: Sequence[Any] = ()) -> int:
    """Run a write; return the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def bound_row(sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> Any:
    """Run one statement with its parameters bound by the server (PostgreSQL only);
    return its first row (None for none).

    Django's cursors bind parameters on the client, writing them into the
    statement's text: that rules out binary results, and the server scans a
    large parameter (megabytes of JSON) as SQL before it parses it as a value.
    A plain psycopg cursor on the same connection and transaction binds on the
    server; Django still logs the statement, as it logs its own, and raises its
    own errors (IntegrityError...) for the driver's.
    """
    import psycopg

    with connection.cursor() as cursor, psycopg.Cursor(cursor.connection) as bound:
        logged = cursor.debug_sql(sql, params) if hasattr(cursor, "debug_sql") else None
        with connection.wrap_database_errors, logged or nullcontext():
            bound.execute(sql, params, binary=binary)
            return bound.fetchone()


def marks(values: Sequence[Any]) -> str:
    """Placeholders for an IN list: ``IN ({marks(ids)})``. Never empty: ``IN (NULL)``
    matches nothing."""
    return ", ".join(["%s"] * len(values)) or "NULL"


def tuples(rows: Sequence[Sequence[Any]]) -> str:
    """Placeholders for a multi-row VALUES list of `rows` (none empty)."""
    one = "(" + ", ".join(["%s"] * len(rows[0])) + ")"
    return ", ".join([one] * len(rows))


def for_update(*tables: str) -> str:
    """The row-lock clause where the database has one (PostgreSQL locks just
    `tables`; SQLite serialises writers and has none). As the ORM, refused
    outside a transaction, where a lock would be released at once."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("A row lock needs a transaction.")
    if not connection.features.has_select_for_update:
        return ""
    if tables and connection.features.has_select_for_update_of:
        return " FOR UPDATE OF " + ", ".join(tables)
    return " FOR UPDATE"


def aware(moment: datetime | None) -> datetime | None:
    """A timestamp as the ORM gives it: SQLite's come back naive, in the database's zone."""
    if moment is not None and timezone.is_naive(moment):
        return timezone.make_aware(moment, connection.timezone)
    return moment


def loaded(model: type[M], **values: Any) -> M:
    """An instance as the ORM would load it from these column values, converted as the
    ORM converts them (SQLite's timestamps made aware, JSON decoded...); any other
    field is read from the database on first use (deferred)."""
    fields = [f for f in model._meta.concrete_fields if f.attname in values]
    if len(fields) != len(values):
        unknown = set(values) - {f.attname for f in fields}
        raise TypeError(f"{model.__name__} has no column {', '.join(sorted(unknown))}.")
    db = connections[DEFAULT_DB_ALIAS]
    known = _CONVERTERS.setdefault(db, {})
    return model.from_db(
        DEFAULT_DB_ALIAS,
        [f.attname for f in fields],
        [_read(db, known, f, values[f.attname]) for f in fields],
    )


# Per database connection (each thread has its own): each field's column and the
# converters the ORM's compiler applies to it, the backend's then the field's.
_CONVERTERS: WeakKeyDictionary[Any, dict[Field, tuple[Any, list[Any]]]] = WeakKeyDictionary()


def _read(db: Any, known: dict[Field, tuple[Any, list[Any]]], field: Field, value: Any) -> Any:
    if field not in known:
        column = field.get_col(field.model._meta.db_table)
        known[field] = (column, db.ops.get_db_converters(column) + column.get_db_converters(db))
    column, converters = known[field]
    for convert in converters:
        value = convert(value, column, db)
    return value


def columns(model: type[Model], alias: str) -> str:
    """Every column of `model` as `alias`, for a SELECT list that `from_row` reads back."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(f.column)}" for f in model._meta.concrete_fields if f.column)


def from_row(model: type[M], values: Sequence[Any]) -> M:
    """The instance of a row's values for `columns(model, ...)`, as the ORM loads it."""
    fields = model._meta.concrete_fields
    return loaded(model, **{f.attname: v for f, v in zip(fields, values, strict=True)})


def moment(value: datetime) -> Any:
    """A timestamp as a parameter, stored as the ORM stores it (SQLite: naive UTC text)."""
    return connection.ops.adapt_datetimefield_value(value)


def in_range(pk: int) -> bool:
    """Whether an id fits the 64-bit key columns (SQLite raises on larger integers)."""
    return 0 < pk < 2**63


class Names:
    """A model's table and columns, quoted, from its ``_meta``: ``CARD = Names(Scorecard)``
    gives ``CARD.table`` and a column per field name (``CARD.interview`` is the
    quoted ``interview_id``). An unknown field raises FieldDoesNotExist."""

    def __init__(self, model: type[Model]) -> None:
        self._model = model

    @cached_property
    def table(self) -> str:
        return connection.ops.quote_name(self._model._meta.db_table)

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        column = getattr(self._model._meta.get_field(name), "column", None)
        if column is None:
            raise AttributeError(f"{self._model.__name__}.{name} has no column.")
        # Kept on the instance: the hot path formats these names on every request.
        quoted = self.__dict__[name] = connection.ops.quote_name(column)
        return quoted
