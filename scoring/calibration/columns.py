"""A queryset's integer columns, read straight into numpy arrays.

The calibration job reads a million ratings and their scorecards this way
(ratings.py): on PostgreSQL the server packs the rows into one binary value,
which numpy reads in one call; elsewhere a plain cursor fills arrays in chunks.
"""

from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection
from django.db.models import QuerySet

from core.sql import bound_row

if TYPE_CHECKING:
    import psycopg

# Epoch microseconds standing for "no time" (a loop without a decision).
NO_TIME = -(2**63)
# PostgreSQL counts timestamps from 2000-01-01 UTC.
_POSTGRES_EPOCH_MICROSECONDS = 946_684_800_000_000


def integer_columns(
    queryset: QuerySet,
    names: tuple[str, ...],
    times: tuple[str, ...] = (),
    packed: dict[str, int] | None = None,
) -> dict[str, np.ndarray]:
    """Return the queryset's integer columns as int64 arrays keyed by `names`.

    Columns named in `times` are timestamps (PostgreSQL only), returned as
    epoch microseconds (NO_TIME for NULL).

    On PostgreSQL the server packs the rows into one bytea of fixed-width
    big-endian int8 records (string_agg of int8send) that numpy reads in one
    call: a single value to fetch instead of a message per row, which is where
    streaming a million rows through COPY spends its time (a Python round per
    row), and cheaper for the server than an array per column. One aggregate
    over all rows, no GROUP BY, which PostgreSQL would sort for; a value is
    limited to 1 GB, some 13 million rows of ten columns, more than a run
    holds in memory anyway. Elsewhere a plain cursor fills arrays in chunks.

    `packed` maps a column to a number of bits b: on PostgreSQL it travels in
    the low b bits of the int8 of the column before it, which may travel in
    the one before it in turn (each int8send costs the server about a tenth of
    a microsecond a row). If a value does not fit (checked in the same
    query), the query runs again unpacked.
    """
    return Packed(queryset, names, times, packed).read()


class Packed:
    """A read of a queryset's integer columns (see integer_columns), compiled on creation.

    Compiled here, on the thread that made it: `read` may run on another
    thread, with a connection of its own.
    """

    def __init__(
        self,
        queryset: QuerySet,
        names: tuple[str, ...],
        times: tuple[str, ...] = (),
        packed: dict[str, int] | None = None,
    ):
        self.sql, self.params = queryset.query.sql_with_params()
        self.names, self.times, self.packed = names, times, packed or {}

    def read(
        self, on: "psycopg.Connection[Any] | None" = None, first: tuple[int, int] | None = None
    ) -> dict[str, np.ndarray]:
        """Return the columns, read on this thread's connection or on the connection `on`;
        with `first`, only the rows whose first column lies in that range (inclusive)."""
        names, times, pack = self.names, self.times, self.packed
        where, params = "", tuple(self.params)
        if first is not None:
            where, params = " WHERE t.c0 BETWEEN %s AND %s", (*params, *first)
        if connection.vendor != "postgresql":
            # A CTE names the columns: SQLite takes no column list after an alias.
            sql = f"WITH t ({self._aliases()}) AS ({self.sql}) SELECT * FROM t{where}"
            with connection.cursor() as cursor:
                cursor.execute(sql if where else self.sql, params)
                chunks = [np.zeros((0, len(names)), dtype=np.int64)]
                while batch := cursor.fetchmany(50_000):
                    chunks.append(np.asarray(batch, dtype=np.int64))
                table = np.concatenate(chunks)
            return {name: table[:, n] for n, name in enumerate(names)}
        import psycopg

        slots: list[str] = []  # one int8 each
        runs: list[list[int]] = []  # the columns each slot carries, the first in the high bits
        fits: list[str] = []  # conditions under which the packed values are exact
        n = 0
        while n < len(names):
            column = f"t.c{n}"
            if names[n] in times:
                # A timestamp's binary form is already an int8: microseconds since 2000.
                slots.append(f"timestamptz_send(coalesce({column}, '-infinity'))")
                runs.append([n])
                n += 1
                continue
            run, value, free = [n], f"{column}::int8", 63
            while n + 1 < len(names) and names[n + 1] in pack:
                bits, low = pack[names[n + 1]], f"t.c{n + 1}"
                value = f"(({value} << {bits}) | {low}::int8)"
                fits.append(f"{low} >= 0 AND {low} < {2**bits}")
                free -= bits
                n += 1
                run.append(n)
            if len(run) > 1:
                fits.append(f"{column} >= 0 AND {column} < {2**free}")
            slots.append(f"int8send({value})")
            runs.append(run)
            n += 1
        check = f"bool_and({' AND '.join(fits)})" if fits else "true"
        packed_sql = (
            f"SELECT string_agg({' || '.join(slots)}, ''::bytea), count(*), {check} "
            f"FROM ({self.sql}) AS t ({self._aliases()}){where}"
        )
        if on is not None:
            with psycopg.Cursor(on) as binary:
                binary.execute(packed_sql, params, binary=True)
                found = binary.fetchone()
        else:
            found = bound_row(packed_sql, params, binary=True)
        data, rows, exact = found or (None, 0, True)
        if exact is False:
            self.packed = {}
            return self.read(on, first)
        table = np.frombuffer(data or b"", dtype=">i8").reshape(-1, len(slots))
        if table.shape[0] != rows:
            # string_agg skips a record holding a NULL.
            raise ValueError("unexpected NULL in an integer column")
        columns: dict[str, np.ndarray] = {}
        for slot, run in enumerate(runs):
            values = table[:, slot].astype(np.int64)
            if names[run[0]] in times:
                # '-infinity' is sent as the smallest int8, which is NO_TIME.
                values[values != NO_TIME] += _POSTGRES_EPOCH_MICROSECONDS
            for n in reversed(run[1:]):
                bits = pack[names[n]]
                columns[names[n]] = values & ((1 << bits) - 1)
                values = values >> bits
            columns[names[run[0]]] = values
        return {name: columns[name] for name in names}

    def _aliases(self) -> str:
        return ", ".join(f"c{n}" for n in range(len(self.names)))
