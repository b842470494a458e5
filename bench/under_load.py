"""Run a test command several times in a row while a bounded CPU hog keeps the machine busy.

Run from the repository root, for example (docs/development.md):

    python bench/under_load.py --runs 5 -- -m "browser or postgres" tests/

Everything after ``--`` goes to pytest. The hog is N plain Python busy loops (N =
cores x 2 unless --hogs says otherwise), started before the first run and stopped
after the last, or when this script is interrupted: a loaded machine, the way CI
shares one, without installing anything. Each run's outcome and wall time are
printed, with the load average; it exits non-zero unless every run passed.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    code = "while True: pass"
    return [
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(count)
    ]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            os.killpg(hog.pid, signal.SIGKILL)
        hog.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hogs", type=int, default=(os.cpu_count() or 1) * 2)
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    pytest_args = [a for a in args.pytest_args if a != "--"] or ["-m", "browser or postgres"]
    hogs = start_hogs(args.hogs)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results: list[tuple[int, float]] = []
    try:
        print(f"{args.hogs} busy loops on {os.cpu_count()} cores; pytest {' '.join(pytest_args)}")
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT)
            seconds = time.monotonic() - started
            results.append((done.returncode, seconds))
            load = os.getloadavg()[0]
            verdict = "passed" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
            print(f"run {run}/{args.runs}: {verdict} in {seconds:.0f} s, load average {load:.1f}")
    finally:
        stop_hogs(hogs)
    passed = sum(code == 0 for code, _ in results)
    print(f"{passed} of {len(results)} runs passed under {args.hogs} busy loops")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
