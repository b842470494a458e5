"""Insert many rows fast: COPY on PostgreSQL, batched INSERTs elsewhere."""

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models
from psycopg.types.json import Jsonb


def _adapt(value: Any) -> Any:
    # Lists and dicts go to JSON columns here; unwrapped, psycopg would send them
    # as PostgreSQL arrays ("{}"), which jsonb reads as an empty object.
    return Jsonb(value) if isinstance(value, list | dict) else value


def _columns(model: type[models.Model], fields: Sequence[str]) -> list[str]:
    return [_column(model, name) for name in fields]


def _column(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    # A reverse relation (ForeignObjectRel) has no column to copy into.
    if not isinstance(field, models.Field) or field.column is None:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field.column


def reserve_ids(model: type[models.Model], count: int) -> list[int]:
    """Return `count` fresh primary keys from the table's sequence (PostgreSQL)."""
    if count == 0:
        return []
    table = model._meta.db_table
    column = model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [table, column, count],
        )
        return [row[0] for row in cursor.fetchall()]


def insert(
    model: type[models.Model], fields: Sequence[str], rows: Sequence[tuple[Any, ...]]
) -> list[int]:
    """Insert `rows` (values in `fields` order) and return their new ids, in order."""
    if connection.vendor == "postgresql":
        ids = reserve_ids(model, len(rows))
        copy(model, ["id", *fields], ((pk, *row) for pk, row in zip(ids, rows, strict=True)))
        return ids
    objects = [model(**dict(zip(fields, row, strict=True))) for row in rows]
    model._default_manager.bulk_create(objects, batch_size=2000)
    return [obj.pk for obj in objects]


def copy(model: type[models.Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> int:
    """Stream rows into the table; COPY on PostgreSQL, batches of INSERTs elsewhere."""
    count = 0
    if connection.vendor == "postgresql":
        names = ", ".join(connection.ops.quote_name(c) for c in _columns(model, fields))
        table = connection.ops.quote_name(model._meta.db_table)
        with connection.cursor() as cursor:
            # Django's cursor wraps psycopg's; COPY needs the raw one.
            raw = cursor.cursor
            with raw.copy(f"COPY {table} ({names}) FROM STDIN") as pipe:
                for row in rows:
                    pipe.write_row(tuple(_adapt(value) for value in row))
                    count += 1
        return count
    batch: list[models.Model] = []
    for row in rows:
        batch.append(model(**dict(zip(fields, row, strict=True))))
        if len(batch) == 5000:
            model._default_manager.bulk_create(batch)
            count += len(batch)
            batch = []
    model._default_manager.bulk_create(batch)
    return count + len(batch)
