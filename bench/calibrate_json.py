"""`manage.py calibrate --json` as a whole process, against COPY plus one numpy pass.

Run from the repository root:  python bench/calibrate_json.py [CANDIDATES]

Uses the database bench/calibrate.py leaves (BENCH_DB, default
ik_bench_calibrate, holding the ratings of the same CANDIDATES; it imports
them afresh when it does not), then in one run times

* baseline: bench/calibrate.py's, COPY the ratings out and one numpy pass;
* start-up: `manage.py calibrate --help`, a process that loads Django and the
  command and does nothing (informative: part of the next line);
* calibrate --json: `manage.py calibrate --json > file`, the whole process
  (start-up, reading, statistics, storing, printing), starting with no snapshots.

each the best of three runs, and prints the times, the ratio, the size of the
JSON printed and the load average. No assertions.
"""

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pg import ROOT, fresh_database, ratings_file, setup_django
from calibrate import DATABASE, baseline, existing_database


def timed_process(args: list[str], url: str, out: Path) -> float:
    started = time.perf_counter()
    with out.open("wb") as stdout:
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, stdout=stdout, check=True,
            env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("candidates", nargs="?", type=int, default=50_000)
    args = parser.parse_args()
    csv_path = Path(tempfile.gettempdir()) / f"bench-ratings-{args.candidates}.csv"
    rows = ratings_file(csv_path, candidates=args.candidates, interviewers=400, questions=200)
    url = existing_database(DATABASE, rows)
    setup_django(url or fresh_database(DATABASE))
    from django.core.management import call_command

    from scoring.calibration import services
    from scoring.models import CalibrationJob, CalibrationSnapshot

    services._publish = lambda job_id: None  # the bench runs calibrate itself
    if url is None:
        call_command("import_scorecards", str(csv_path), stdout=io.StringIO(), stderr=io.StringIO())
        url = os.environ["DATABASE_URL"]
    print(f"{DATABASE}: {rows:,} ratings")

    base = min(baseline(url) for _ in range(3))
    out = Path(tempfile.gettempdir()) / f"bench-calibrate-{os.getpid()}.json"
    start_up = min(timed_process(["calibrate", "--help"], url, out) for _ in range(3))
    runs = []
    for _ in range(3):
        CalibrationJob.objects.update(snapshot=None)
        CalibrationSnapshot.objects.all().delete()
        runs.append(timed_process(["calibrate", "--json"], url, out))
    size = out.stat().st_size
    out.unlink()
    whole = min(runs)

    print(f"baseline (COPY out + one numpy pass): {base:8.2f} s")
    print(f"start-up (calibrate --help):          {start_up:8.2f} s")
    print(
        f"calibrate --json > file:              {whole:8.2f} s   {size / 1e6:.1f} MB printed"
        f"   (runs: {', '.join(f'{r:.2f}' for r in runs)})"
    )
    print(f"ratio calibrate --json / baseline:    {whole / base:8.2f}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
