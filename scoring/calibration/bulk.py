"""Insert many rows fast: COPY on PostgreSQL, batched INSERTs elsewhere."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from django.db import connection, models
from django.db.models import JSONField
from psycopg.types.json import Jsonb

BATCH = 5000


Row = tuple[Any, ...]


def _adapter(model: type[models.Model], fields: Sequence[str]) -> Callable[[Row], Row]:
    """What a row needs before COPY: its JSON columns' values wrapped (unwrapped, psycopg
    would send a list as a PostgreSQL array, "{}", which jsonb reads as an empty object);
    a table without one (the ratings) takes its rows as they are."""
    json_at = [
        n for n, name in enumerate(fields) if isinstance(model._meta.get_field(name), JSONField)
    ]
    if not json_at:
        return lambda row: row

    def adapt(row: Row) -> Row:
        values = list(row)
        for n in json_at:
            if isinstance(values[n], list | dict):
                values[n] = Jsonb(values[n])
        return tuple(values)

    return adapt


def _column(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    # A reverse relation (ForeignObjectRel) has no column to copy into.
    if not isinstance(field, models.Field) or field.column is None:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field.column


def insert(model: type[models.Model], fields: Sequence[str], rows: Sequence[Row]) -> list[int]:
    """Insert `rows` (values in `fields` order) and return their new ids, in order."""
    ids: list[int] = []
    _write(model, fields, rows, ids=ids, count=len(rows))
    return ids


def copy(model: type[models.Model], fields: Sequence[str], rows: Iterable[Row]) -> int:
    """Stream rows into the table (values in `fields` order); return how many."""
    return _write(model, fields, rows)


def _write(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Row],
    *,
    ids: list[int] | None = None,
    count: int = 0,
) -> int:
    """Write `rows`; with `ids` (and `count`, their number), collect their new primary keys.

    The one place calibration asks which database it runs on. On PostgreSQL
    the rows go through COPY, the ids first reserved from the table's sequence;
    elsewhere through bulk_create in batches. COPY is kept because it halves
    the import: import_scorecards of 125,390 ratings on PostgreSQL took 24.1,
    31.2 and 16.2 s with COPY, 57.8 and 57.3 s with bulk_create (fresh
    databases, on the loaded 2-core machine; not measured at 1.25 M ratings).
    """
    if connection.vendor != "postgresql":
        written = 0
        for batch in _batches(rows):
            objects = [model(**dict(zip(fields, row, strict=True))) for row in batch]
            model._default_manager.bulk_create(objects)
            if ids is not None:
                ids.extend(obj.pk for obj in objects)
            written += len(objects)
        return written
    if ids is not None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [model._meta.db_table, model._meta.pk.column, count],
            )
            ids.extend(row[0] for row in cursor.fetchall())
        rows = ((pk, *row) for pk, row in zip(ids, rows, strict=True))
        fields = ["id", *fields]
    names = ", ".join(connection.ops.quote_name(_column(model, name)) for name in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    written = 0
    # Django's cursor wraps psycopg's; COPY needs the raw one, whose errors
    # wrap_database_errors turns into Django's (a full disk: OperationalError).
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as pipe,
    ):
        adapt = _adapter(model, fields)
        for row in rows:
            pipe.write_row(adapt(row))
            written += 1
    return written


def _batches(rows: Iterable[Row]) -> Iterator[list[Row]]:
    it = iter(rows)
    while batch := list(islice(it, BATCH)):
        yield batch
