"""Scenario c: Redis stopped; publishing gives up quickly, submissions still succeed, and
the sweeper publishes the queued calibration job once Redis is back."""

import json
import subprocess
import time

from bench.fault_scenarios.harness import (
    Call,
    Outcome,
    call,
    fresh_database,
    ratings_for,
    seed,
    sql,
)
from bench.loadsite.stack import PYTHON, ROOT, Stack, wait_until


def jobs(stack: Stack) -> list[tuple[int, str, float]]:
    """Return every calibration job as (id, status, seconds since it was requested)."""
    return sql(
        stack,
        "SELECT id, status, extract(epoch FROM now() - requested_at)::float "
        "FROM scoring_calibrationjob ORDER BY id",
    )


def latest_inputs(stack: Stack) -> int | None:
    """Return how many scorecards the latest role-wide snapshot was computed from."""
    rows = sql(
        stack,
        "SELECT (result->'inputs'->>'scorecards')::int FROM scoring_calibrationsnapshot "
        "WHERE level_id IS NULL ORDER BY id DESC LIMIT 1",
    )
    return rows[0][0] if rows else None


PUBLISHER = """
import json, sys, time
import django
django.setup()
from scoring.calibration import services
services._publish(0)  # job 0 does not exist: the worker's run of it claims nothing
print("published", flush=True)
sys.stdin.readline()  # Redis is stopped now
took = []
for _ in range(3):
    started = time.monotonic()
    services._publish(0)  # logs a warning and returns; the job would stay queued
    took.append(time.monotonic() - started)
print(json.dumps(took), flush=True)
"""


def scenario_redis(stack: Stack) -> Outcome:
    outcome = Outcome("redis stopped")
    assert stack.redis
    fresh_database(stack, "ik_fault_redis", CALIBRATION_COLLAPSE_SECONDS="1")
    plan = seed(stack, clients=4, seats=4)
    stack.gunicorn(workers=2)
    worker = stack.worker()
    stack.wait_worker_ready(worker)
    me = plan[0]
    # A process that has published before the outage, as a long-running web worker has,
    # then publishes again while Redis is down (the path every on_commit publish takes).
    publisher = subprocess.Popen(
        [PYTHON, "-c", PUBLISHER], cwd=ROOT, env=stack.env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert publisher.stdin and publisher.stdout
    ready = publisher.stdout.readline().strip()
    outcome.check(ready == "published", f"could not publish with Redis up: {ready!r}")

    stack.redis.stop()
    outcome.fact("Redis stopped")
    publisher.stdin.write("go\n")
    publisher.stdin.flush()
    try:
        took = json.loads(publisher.communicate(timeout=120)[0].strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        publisher.kill()
        took = [float("inf")]
        outcome.check(False, f"publishing with Redis down: {exc!r}")
    outcome.fact(
        f"publishing with Redis down gave up after {', '.join(f'{t:.2f}' for t in took)} s"
    )
    outcome.check(max(took) < 3.0, f"a publish with Redis down took {max(took):.1f} s (bound 3 s)")
    submits: list[Call] = []
    for seat in me["seats"][:3]:
        started = call(
            stack.base_url,
            me["token"],
            "start",
            "POST",
            "/api/v1/scorecards/",
            {"interview": seat["interview"]},
        )
        outcome.check(started.ok, f"start answered {started.status} {started.error or ''}")
        if not started.ok:
            continue
        card = started.body["id"]
        saved = call(
            stack.base_url,
            me["token"],
            "save",
            "PUT",
            f"/api/v1/scorecards/{card}/",
            ratings_for(seat),
        )
        outcome.check(saved.ok, f"save answered {saved.status}")
        submit = call(
            stack.base_url, me["token"], "submit", "POST", f"/api/v1/scorecards/{card}/submit/"
        )
        submits.append(submit)
    slowest = max((c.seconds for c in submits), default=0.0)
    outcome.fact(
        f"{sum(c.ok for c in submits)}/{len(submits)} submissions answered 2xx "
        f"with Redis down, slowest {slowest:.2f} s"
    )
    outcome.check(len(submits) == 3 and all(c.ok for c in submits), "a submission failed")
    outcome.check(slowest < 3.0, f"a submission took {slowest:.1f} s (bound 3 s)")
    time.sleep(2)
    queued = [job for job in jobs(stack) if job[1] == "queued"]
    outcome.fact(f"calibration jobs while Redis is down: {[job[1] for job in jobs(stack)]}")
    outcome.check(len(queued) == 1, "the submissions' calibration job is not queued")

    stack.redis.start()
    back = time.monotonic()
    outcome.fact("Redis started again")
    if not worker.alive():
        # Celery 5.7 / kombu 5.7: a worker holding unacknowledged tasks (a countdown
        # task waiting, a task running) when the broker goes away dies with
        # "Unrecoverable error: AttributeError ... 'hostname'" while restoring them.
        # In production a supervisor (systemd, Kubernetes) starts it again; so do we.
        crashed = "Unrecoverable error" in worker.output()
        outcome.fact(
            "the worker had exited on the broker loss"
            + (" (kombu: Unrecoverable error while restoring its unacked task)" if crashed else "")
            + "; restarted as its supervisor would"
        )
        worker.start()
        stack.wait_worker_ready(worker)
    if queued:
        # The sweeper republishes jobs queued for over 60 s; beat sends it every minute.
        # Send it once the job is old enough instead of waiting for beat's next tick.
        job_id, _, age = queued[0]
        time.sleep(max(0.0, 61 - age))
        swept = time.monotonic()
        stack.python(
            "from scoring.tasks import sweep_calibration_jobs_task\n"
            "sweep_calibration_jobs_task.delay()"
        )
        try:
            wait_until(
                lambda: dict((j[0], j[1]) for j in jobs(stack))[job_id] == "done",
                120,
                "the swept calibration job to run",
                step=0.2,
            )
            outcome.fact(
                f"sweeper sent {swept - back:.0f} s after Redis was back (once the job was "
                f"60 s old); the job ran and was done {time.monotonic() - swept:.1f} s later"
            )
        except TimeoutError as exc:
            outcome.check(False, str(exc))
    covered = latest_inputs(stack)
    outcome.fact(f"jobs {[job[1] for job in jobs(stack)]}; latest snapshot covers {covered} cards")
    outcome.check(covered == 3, "the recalculation does not include the 3 submissions")
    for proc in list(stack.procs):
        stack.discard(proc)
    return outcome
