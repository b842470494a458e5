"""Scenario b: the whole Celery worker SIGKILLed mid-calibration and restarted; the
unacknowledged task comes back and exactly one snapshot per scope results."""

import time
from typing import Any

from bench.fault_scenarios.harness import Outcome, fresh_database, sql
from bench.loadsite.stack import Stack, wait_until

# How often a worker scans Redis for unacknowledged tasks past their visibility timeout
# (CELERY_RESTORE_INTERVAL in config/settings.py; kombu's own default was 100 s).
RESTORE_SCAN_SECONDS = 10


def job_state(stack: Stack) -> dict[str, Any]:
    """Return the fault role's latest calibration job and its snapshot count per scope."""
    job = sql(
        stack,
        "SELECT j.status, j.progress, j.stage, j.attempts FROM scoring_calibrationjob j JOIN "
        "kit_role r ON r.id = j.role_id WHERE r.name = 'Fault role' ORDER BY j.id DESC LIMIT 1",
    )
    scopes = sql(
        stack,
        "SELECT l.name, count(*) FROM scoring_calibrationsnapshot s JOIN kit_role r ON r.id = "
        "s.role_id LEFT JOIN kit_level l ON l.id = s.level_id WHERE r.name = 'Fault role' "
        "GROUP BY l.name ORDER BY l.name NULLS FIRST",
    )
    status, progress, stage, attempts = job[0] if job else (None, 0, "", 0)
    return {
        "status": status,
        "progress": progress,
        "stage": stage,
        "attempts": attempts,
        "scopes": {name or "all levels": n for name, n in scopes},
    }


def scenario_worker(stack: Stack, *, candidates: int) -> Outcome:
    outcome = Outcome("celery worker killed mid-calibration")
    visibility = 10
    fresh_database(
        stack,
        "ik_fault_worker",
        CELERY_VISIBILITY_TIMEOUT=str(visibility),
        CALIBRATION_COLLAPSE_SECONDS="1",
    )
    ratings = stack.base / "ratings.csv"
    rows = int(
        stack.python(
            "from pathlib import Path\nfrom tests.integration.data import write_ratings_csv\n"
            f"print(write_ratings_csv(Path({str(ratings)!r}), candidates={candidates}, "
            "interviewers=200, questions=80))"
        )
    )
    started = time.monotonic()
    # The import requests a calibration of the role: its task waits in Redis for a worker.
    stack.manage("import_scorecards", str(ratings), "--role", "Fault role")
    outcome.fact(f"imported {rows:,} ratings in {time.monotonic() - started:.0f} s")

    worker = stack.worker()
    # Kill it while it computes statistics (after reading every rating, before storing).
    wait_until(
        lambda: job_state(stack)["progress"] >= 20,
        120,
        "the worker to be computing the calibration",
        step=0.05,
    )
    state = job_state(stack)
    outcome.check(
        state["status"] == "running",
        f"the run finished before the kill ({state}): use more --candidates",
    )
    killed = time.monotonic()
    children = worker.children()
    worker.kill()
    outcome.fact(
        f"SIGKILLed the worker (pid {worker.pid} and {len(children)} pool child) at "
        f"{state['progress']}% ({state['stage']})"
    )
    state = job_state(stack)
    outcome.fact(
        f"after the kill: job {state['status']}, attempts {state['attempts']}, "
        f"snapshots {state['scopes']}"
    )

    # A supervisor (systemd, Kubernetes) starts the worker again at once.
    worker.start()
    stack.wait_worker_ready(worker)
    outcome.fact(f"worker restarted and ready {time.monotonic() - killed:.1f} s after the kill")
    # Redelivery waits for the visibility timeout, then for the worker's next scan of
    # unacknowledged tasks (kombu: every unacked_restore_interval x unacked_restore_throttle).
    bound = visibility + RESTORE_SCAN_SECONDS + 60
    try:
        wait_until(
            lambda: job_state(stack)["attempts"] >= 2, bound, "the task to come back", step=0.2
        )
        outcome.fact(
            f"task redelivered, rerun started {time.monotonic() - killed:.1f} s after "
            f"the kill (bound {bound} s)"
        )
        wait_until(
            lambda: job_state(stack)["status"] in ("done", "failed"),
            300,
            "the rerun to finish",
            step=0.2,
        )
    except TimeoutError as exc:
        outcome.check(False, str(exc))
    state = job_state(stack)
    outcome.fact(
        f"job {state['status']} after {state['attempts']} attempts, "
        f"{time.monotonic() - killed:.1f} s after the kill; snapshots {state['scopes']}"
    )
    outcome.check(state["status"] == "done", f"job ended {state['status']}")
    outcome.check(state["attempts"] >= 2, "the task was not run again")
    role_wide = state["scopes"].get("all levels", 0)
    outcome.check(role_wide == 1, f"{role_wide} role-wide snapshots (want exactly 1)")
    outcome.check(all(n == 1 for n in state["scopes"].values()), "a scope has two snapshots")
    for proc in list(stack.procs):
        stack.discard(proc)
    return outcome
