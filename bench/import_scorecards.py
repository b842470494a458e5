"""import_scorecards on PostgreSQL against a plain psycopg COPY of the same rows.

Run from the repository root:  python bench/import_scorecards.py [ROWS_CANDIDATES]

It simulates a panel (50,000 candidates, 400 interviewers, 200 questions: about
a million ratings), writes it as the command's CSV, then in one run times

* baseline: psycopg COPY of the CSV into a bare table of four columns;
* import_scorecards: the command on a freshly migrated database (checks every
  row, creates candidates, interviewers, questions, loops, interviews,
  scorecards and ratings, and commits). The calibration it queues is not
  published here, so it is not timed;
* the floor: every row the import wrote (candidates, loops, interviews,
  questions asked, panels, scorecards, ratings), COPYed back into the emptied
  tables and committed: what writing them costs with their indexes and
  foreign-key checks, which any import pays;
* where the floor goes: the same COPY with foreign-key checks skipped
  (session_replication_role = replica, which needs a superuser: the bench's
  own database only), and into bare copies of the tables with neither
  indexes nor foreign keys. What is left between the last line and the
  baseline is writing more than twice as many rows, each wider than a CSV line.

and prints the times, the ratios and the process's peak memory. No assertions.
Needs PostgreSQL (BENCH_PG, default postgres://postgres@127.0.0.1:5432); the
databases are BENCH_DB (default ik_bench_import) and BENCH_DB_copy, dropped and
created afresh.
"""

import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pg import fresh_database, ratings_file, setup_django

CANDIDATES = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
DATABASE = os.environ.get("BENCH_DB", "ik_bench_import")


def main() -> None:
    csv_path = Path(tempfile.gettempdir()) / f"bench-ratings-{CANDIDATES}.csv"
    rows = ratings_file(csv_path, candidates=CANDIDATES, interviewers=400, questions=200)
    print(f"{rows:,} ratings in {csv_path} ({csv_path.stat().st_size / 1e6:.0f} MB)")

    url = fresh_database(f"{DATABASE}_copy")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE ratings (candidate text, interviewer text, question text, rating int)"
        )
        started = time.perf_counter()
        sql = "COPY ratings FROM STDIN WITH (FORMAT csv, HEADER true)"
        with conn.cursor() as cur, csv_path.open("rb") as data, cur.copy(sql) as copy:
            while block := data.read(1 << 20):
                copy.write(block)
        baseline = time.perf_counter() - started

    url = fresh_database(DATABASE)
    setup_django(url)
    from django.core.management import call_command

    from scoring.calibration import services

    services._publish = lambda job_id: None  # time the import, not the calibration it queues
    started = time.perf_counter()
    call_command("import_scorecards", str(csv_path), stdout=io.StringIO(), stderr=io.StringIO())
    project = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    dumps = written_rows(url)
    floor = rows_floor(url, dumps)
    unchecked = rows_floor(url, dumps, setup="SET session_replication_role = replica")
    unindexed = rows_floor(url, dumps, schema=bare_tables(url))

    print(f"baseline (psycopg COPY of the rows):  {baseline:8.2f} s")
    for label, took in (
        ("floor (COPY of the rows it writes):  ", floor),
        ("  without foreign-key checks:        ", unchecked),
        ("  without indexes or foreign keys:   ", unindexed),
    ):
        print(f"{label} {took:8.2f} s   {took / baseline:6.1f}x the baseline")
    print(f"import_scorecards:                    {project:8.2f} s   peak memory {peak:.0f} MB")
    print(f"ratio import / COPY:                  {project / baseline:8.2f}")
    print(f"ratio import / floor:                 {project / floor:8.2f}")


# Every table the import writes a row per candidate, scorecard, question asked or rating to.
WRITTEN = ("interviews_candidate", "interviews_loop", "interviews_interview",
           "interviews_interviewquestion", "interviews_panelist", "scoring_scorecard",
           "scoring_questionrating")  # fmt: skip


def written_rows(url: str) -> dict[str, bytes]:
    """Return every row the import wrote, table by table, in COPY's binary format."""
    dumps = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for table in WRITTEN:
            out = io.BytesIO()
            with conn.cursor() as cur, cur.copy(f"COPY {table} TO STDOUT (FORMAT binary)") as copy:
                for block in copy:
                    out.write(block)
            dumps[table] = out.getvalue()
    return dumps


def bare_tables(url: str) -> str:
    """Create copies of the written tables with their columns only; return their schema."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA bare")
        for table in WRITTEN:
            conn.execute(f"CREATE TABLE bare.{table} (LIKE public.{table} INCLUDING DEFAULTS)")
    return "bare"


def rows_floor(
    url: str, dumps: dict[str, bytes], *, setup: str = "", schema: str = "public"
) -> float:
    """Time COPYing `dumps` back into the emptied tables of `schema`, committed.

    Into the product's tables this is what writing those rows costs with their
    indexes and foreign keys (checked at commit), whatever the import does before.
    """
    tables = ", ".join(f"{schema}.{table}" for table in WRITTEN)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {tables} CASCADE")
    with psycopg.connect(url) as conn:
        if setup:
            conn.execute(setup)
        started = time.perf_counter()
        for table, data in dumps.items():
            sql = f"COPY {schema}.{table} FROM STDIN (FORMAT binary)"
            with conn.cursor() as cur, cur.copy(sql) as copy:
                copy.write(data)
        conn.commit()  # the deferred foreign-key checks run here
        return time.perf_counter() - started


if __name__ == "__main__":
    main()
