"""The calibrate command on a million ratings in PostgreSQL, against COPY plus one numpy pass.

Run from the repository root:  python bench/calibrate.py [CANDIDATES] [--keep] [--sections]

It simulates 50,000 candidates, 400 interviewers and 200 questions (panels of
4 asking 5 questions each: about a million ratings), imports them with
import_scorecards into a fresh database, then in one run times

* baseline: COPY the ratings out of PostgreSQL (scorecard, question asked,
  version, rating) and one numpy pass over them (mean rating per scorecard);
* calibrate: the command, in a child process (reading the ratings with their
  candidate, interviewer, question and loop, computing every statistic and
  storing a snapshot for the role and for each level with ratings).

each the best of three runs, and prints both times, their ratio, the child's
peak memory and the load average. With --sections the child also times the
job's sections (bench/_sections.py) and the best run's are printed.
No assertions.
Needs PostgreSQL (BENCH_PG, default postgres://postgres@127.0.0.1:5432); the
database is BENCH_DB (default ik_bench_calibrate), dropped and created afresh
unless --keep finds it already holding the same ratings (to time calibrate
without the import; each run starts with no snapshots either way).
"""

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pg import ROOT, SERVER, fresh_database, ratings_file, setup_django

DATABASE = os.environ.get("BENCH_DB", "ik_bench_calibrate")
CHILD = """
import json, os, sys, time
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from io import StringIO
from django.core.management import call_command
imported = 0.0
if SECTIONS:
    sys.path.insert(0, "bench")
    import _sections
    _sections.install()
    imported = _sections._spent[_sections.IMPORTS]
started = time.perf_counter()
call_command("calibrate", stdout=StringIO())
seconds = time.perf_counter() - started + imported
print(json.dumps({"seconds": seconds, "sections": _sections.report() if SECTIONS else None}))
"""


def baseline(url: str) -> float:
    import psycopg

    started = time.perf_counter()
    buffer = io.BytesIO()
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        sql = (
            "COPY (SELECT scorecard_id, item_id, version_id, rating "
            "FROM scoring_questionrating) TO STDOUT"
        )
        with cur.copy(sql) as copy:
            for block in copy:
                buffer.write(block)
    table = np.fromstring(buffer.getvalue().decode(), dtype=np.float64, sep=" ").reshape(-1, 4)
    cards = table[:, 0].astype(np.int64)
    np.bincount(cards, table[:, 3]) / np.maximum(np.bincount(cards), 1)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("candidates", nargs="?", type=int, default=50_000)
    parser.add_argument("--keep", action="store_true", help="reuse an imported database")
    parser.add_argument(
        "--sections", action="store_true", help="time the job's sections too (bench/_sections.py)"
    )
    args = parser.parse_args()
    csv_path = Path(tempfile.gettempdir()) / f"bench-ratings-{args.candidates}.csv"
    rows = ratings_file(csv_path, candidates=args.candidates, interviewers=400, questions=200)
    url = existing_database(DATABASE, rows) if args.keep else None
    setup_django(url or fresh_database(DATABASE))
    from django.core.management import call_command

    from scoring.calibration import services
    from scoring.models import CalibrationJob, CalibrationSnapshot

    services._publish = lambda job_id: None  # the bench runs calibrate itself
    if url is None:
        started = time.perf_counter()
        call_command("import_scorecards", str(csv_path), stdout=io.StringIO(), stderr=io.StringIO())
        print(f"imported {rows:,} ratings in {time.perf_counter() - started:.1f} s")
        url = os.environ["DATABASE_URL"]
    else:
        print(f"kept {DATABASE} with its {rows:,} ratings")

    # Both sides take the best of three runs: a run's first touch of its memory
    # costs most on a busy or virtual machine, and neither side should pay it alone.
    base = min(baseline(url) for _ in range(3))
    runs, sections = [], []
    for _ in range(3):
        CalibrationJob.objects.update(snapshot=None)
        CalibrationSnapshot.objects.all().delete()
        child = subprocess.run(
            [sys.executable, "-c", f"SECTIONS = {args.sections}\n{CHILD}"], cwd=ROOT,
            env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        found = json.loads(child.stdout.strip().splitlines()[-1])
        runs.append(found["seconds"])
        sections.append(found["sections"])
    project = min(runs)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    print(f"baseline (COPY out + one numpy pass): {base:8.2f} s")
    print(
        f"calibrate:                            {project:8.2f} s   peak memory {peak:.0f} MB"
        f"   (runs: {', '.join(f'{r:.2f}' for r in runs)})"
    )
    print(f"ratio calibrate / baseline:           {project / base:8.2f}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.sections:
        print_sections(json.loads(sections[runs.index(project)]), project)


def print_sections(rows: list[list[Any]], total: float) -> None:
    """Print the best run's sections: seconds, share of the job and calls."""
    print(f"\nsections of the best run ({total:.2f} s; nested rows are part of the row above):")
    for label, seconds, calls in rows:
        print(f"  {label:<40} {seconds:6.2f} s {seconds / total:6.1%}  x{calls}")


def existing_database(name: str, rows: int) -> str | None:
    """Return the URL of database `name` if it holds `rows` ratings, else None."""
    import psycopg

    url = f"{SERVER}/{name}"
    try:
        with psycopg.connect(url) as conn:
            count = conn.execute("SELECT count(*) FROM scoring_questionrating").fetchone()
    except psycopg.Error:
        return None
    return url if count and count[0] == rows else None


if __name__ == "__main__":
    main()
