"""Fault scenarios against the production-shaped stack; each prints PASS or FAIL with numbers.

Run from the repository root:  python bench/faults.py [postgres] [worker] [redis]
(no argument runs all three). Exits non-zero if any scenario fails.

Everything runs on a private stack (bench/loadsite/stack.py): a throwaway
PostgreSQL cluster and a private Redis on free ports, gunicorn with DEBUG off and
a real Celery worker, all stopped on exit. Nothing touches a shared server.

postgres  PostgreSQL restarts (fast shutdown, 2 s down) while 8 clients submit
          scorecards and read debriefs. Requests in flight must fail cleanly with
          503 + Retry-After (no 500, no hang over 10 s), no scorecard may be half
          written (each is submitted with every rating, or a draft with all or none
          of them), and the service must answer 2xx again within 10 s of the restart
          without being restarted itself.
worker    The whole Celery worker (main process and pool children) is SIGKILLed in
          the middle of a calibration run and restarted. With a 10 s Redis
          visibility timeout the unacknowledged task comes back by itself, the run
          is redone, and exactly one snapshot per scope results.
redis     Redis is stopped. A process that published before the outage publishes
          again within 3 s each time (it gives up; the job stays queued), scorecard
          submissions still succeed quickly and the calibration job they request
          stays queued; once Redis is back the sweeper task (beat runs it every
          minute; here it is sent once the job is old enough for it) publishes the
          job again and the recalculation runs. The worker is supervised: if the
          broker loss made it exit, it is started again, as systemd would.
"""

import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.loadsite.stack import PROXY_HEADERS, PYTHON, ROOT, Stack, wait_until

TEMPLATE = "ik_faults_template"
BASE_ENV: dict[str, str] = {}  # the stack's environment before a scenario adds to it
HANG_SECONDS = 10.0  # a request that takes longer than this counts as a hang
# How often a worker scans Redis for unacknowledged tasks past their visibility timeout
# (CELERY_RESTORE_INTERVAL in config/settings.py; kombu's own default was 100 s).
RESTORE_SCAN_SECONDS = 10


# --- HTTP -----------------------------------------------------------------------------------------


@dataclass
class Call:
    name: str
    started: float  # time.monotonic()
    seconds: float
    status: int | None  # None: no HTTP answer (timeout, connection refused or reset)
    retry_after: str | None = None
    error: str | None = None
    body: Any = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def call(base: str, token: str, name: str, method: str, path: str, body: Any = None) -> Call:
    data = json.dumps(body).encode() if body is not None else None
    headers = {**PROXY_HEADERS, "Authorization": f"Token {token}", "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=HANG_SECONDS) as response:
            status, retry, raw = (
                response.status,
                response.headers.get("Retry-After"),
                response.read(),
            )
    except urllib.error.HTTPError as exc:
        status, retry, raw = exc.code, exc.headers.get("Retry-After"), exc.read()
    except OSError as exc:  # URLError, timeouts, resets
        return Call(name, started, time.monotonic() - started, None, error=repr(exc))
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw[:200].decode(errors="replace")
    return Call(name, started, time.monotonic() - started, status, retry, body=parsed)


def ratings_for(seat: dict) -> dict:
    return {
        "recommendation": "yes",
        "summary": "Clear on the trade-offs.",
        "ratings": [
            {
                "item": i["item"],
                "rating": 1 + n % i["scale"],
                "checked": i["rubric"][:2],
                "follow_ups_asked": i["follow_ups"][:1],
            }
            for n, i in enumerate(seat["items"])
        ],
    }


# --- helpers --------------------------------------------------------------------------------------


class Outcome:
    def __init__(self, name: str) -> None:
        self.name = name
        self.problems: list[str] = []
        self.facts: list[str] = []

    def fact(self, text: str) -> None:
        self.facts.append(text)
        print(f"  {text}", flush=True)

    def check(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)
            print(f"  problem: {problem}", flush=True)

    @property
    def passed(self) -> bool:
        return not self.problems

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        return f"{verdict} {self.name}: " + "; ".join(self.problems or self.facts[-3:])


def fresh_database(stack: Stack, name: str, **env: str) -> None:
    """Point the stack at a new database cloned from the migrated template; empty Redis."""
    assert stack.pg and stack.redis
    stack.env = {**BASE_ENV, "DATABASE_URL": stack.pg.create_database(name, template=TEMPLATE)}
    stack.env.update(env)
    import redis

    redis.Redis.from_url(stack.redis.url()).flushall()


def query(stack: Stack, code: str) -> Any:
    """Run `code` (which must set `out`) in a Django child process; return `out`."""
    return json.loads(stack.python(code + "\nimport json; print(json.dumps(out, default=str))"))


def seed(stack: Stack, *, clients: int, seats: int) -> list[dict]:
    path = stack.base / "plan.json"
    stack.python(
        "from bench.loadsite.seed import write_plan\n"
        f"write_plan({str(path)!r}, clients={clients}, seats={seats})"
    )
    return json.loads(path.read_text())["clients"]


CARD_STATE = """
from django.db.models import Count, Q
from interviews.models import InterviewQuestion
from scoring.models import Scorecard
asked = dict(InterviewQuestion.objects.values("interview").annotate(n=Count("id"))
             .values_list("interview", "n"))
cards = Scorecard.objects.filter(interviewer__username__startswith="load-").annotate(
    n=Count("ratings"),
    rated=Count("ratings", filter=Q(ratings__rating__isnull=False) | Q(ratings__not_asked=True)),
)
half = [
    c.pk for c in cards
    if (c.status == "submitted"
        and (c.rated != asked[c.interview_id] or c.submitted_at is None or not c.recommendation))
    or (c.status == "draft" and c.n not in (0, asked[c.interview_id]))
]
out = {"submitted": sum(c.status == "submitted" for c in cards),
       "drafts": sum(c.status == "draft" for c in cards), "half_written": half}
"""


# --- a. PostgreSQL restart under load -------------------------------------------------------------


def scenario_postgres(stack: Stack) -> Outcome:
    outcome = Outcome("postgres restart under load")
    assert stack.pg
    fresh_database(stack, "ik_fault_postgres")
    plan = seed(stack, clients=8, seats=40)
    web = stack.gunicorn(workers=4)
    worker = stack.worker()
    stack.wait_worker_ready(worker)

    calls: list[Call] = []
    lock = threading.Lock()
    stop = threading.Event()
    redone_submits = 0

    def attempt(me: dict, name: str, method: str, path: str, body: Any = None) -> Call | None:
        """Call until it succeeds, retrying 503s and lost connections as a client would."""
        nonlocal redone_submits
        retried = False
        while not stop.is_set():
            result = call(stack.base_url, me["token"], name, method, path, body)
            with lock:
                calls.append(result)
            if result.ok:
                return result
            if name == "submit" and retried and result.status == 409:
                # The first try committed but its response (re-reading the card) met the
                # restart: the retry finds the card submitted, as it should.
                with lock:
                    redone_submits += 1
                return result
            if result.status == 503 or result.status is None:
                retried = True
                time.sleep(0.2)
                continue
            return None  # anything else is recorded and checked below
        return None

    def client(me: dict) -> None:
        for seat in me["seats"]:
            if stop.is_set():
                return
            started = attempt(
                me, "start", "POST", "/api/v1/scorecards/", {"interview": seat["interview"]}
            )
            if not started:
                continue
            card = started.body["id"]
            if not attempt(me, "save", "PUT", f"/api/v1/scorecards/{card}/", ratings_for(seat)):
                continue
            if not attempt(me, "submit", "POST", f"/api/v1/scorecards/{card}/submit/"):
                continue
            attempt(me, "debrief", "GET", f"/api/v1/loops/{seat['loop']}/debrief/")
        # Out of seats before the restart (a fast machine gets through 320 in under the
        # 6 s before the stop): go on reading debriefs, so requests still meet the
        # restart and the recovery, as a site's traffic would.
        while me["seats"] and not stop.is_set():
            attempt(me, "debrief", "GET", f"/api/v1/loops/{me['seats'][-1]['loop']}/debrief/")
            time.sleep(0.05)

    threads = [threading.Thread(target=client, args=(me,), daemon=True) for me in plan]
    for thread in threads:
        thread.start()
    time.sleep(6)
    booted = web.output().count("Booting worker")  # to see whether any is replaced
    down = time.monotonic()
    stack.pg.stop("fast")
    stopped = time.monotonic()
    # The readiness probe, as an orchestrator would send it while PostgreSQL is down.
    asked = time.monotonic()
    probed = stack.ready(timeout=5)
    probe_seconds = time.monotonic() - asked
    outcome.fact(f"/readyz/ with PostgreSQL stopped: {probed} in {probe_seconds:.2f} s")
    outcome.check(probed == 503, f"/readyz/ answered {probed} with PostgreSQL stopped")
    outcome.check(probe_seconds <= 2, f"/readyz/ took {probe_seconds:.1f} s (bound 2 s)")
    time.sleep(max(0.0, 2 - (time.monotonic() - stopped)))
    stack.pg.start()
    up = time.monotonic()
    outcome.fact(
        f"PostgreSQL stopped in {stopped - down:.1f} s, down 2 s, accepting again "
        f"{up - down:.1f} s after the stop began"
    )
    try:
        wait_until(lambda: stack.ready() == 200, 10, "/readyz/ to answer 200 again")
        outcome.fact(f"/readyz/ answered 200 again {time.monotonic() - up:.2f} s later")
    except TimeoutError as exc:
        outcome.check(False, str(exc))
    time.sleep(max(0.0, 12 - (time.monotonic() - up)))  # the clients go on under load
    stop.set()
    for thread in threads:
        thread.join(timeout=HANG_SECONDS + 5)

    answered = [c for c in calls if c.status is not None]
    unavailable = [c for c in answered if c.status == 503]
    bad = [c for c in answered if c.status >= 500 and c.status != 503]
    other = [
        c
        for c in answered
        if 300 <= c.status < 500 and not (c.name == "submit" and c.status == 409)
    ]
    lost = [c for c in calls if c.status is None]
    slowest = max((c.seconds for c in calls), default=0.0)
    after = [c for c in calls if c.ok and c.started >= up]
    recovered = min((c.started + c.seconds for c in after), default=None)
    outcome.fact(
        f"{len(calls)} requests: {sum(c.ok for c in calls)} 2xx, {len(unavailable)} 503, "
        f"{len(bad)} other 5xx, {len(other)} unexpected 3xx/4xx, {len(lost)} without "
        f"an answer; slowest {slowest:.2f} s"
    )
    if unavailable:
        outcome.fact(
            f"503s from {min(c.started for c in unavailable) - down:+.1f} s to "
            f"{max(c.started + c.seconds for c in unavailable) - down:+.1f} s around the stop, "
            f"Retry-After {sorted({c.retry_after for c in unavailable}, key=str)}"
        )
    outcome.check(bool(unavailable), "no request met the restart (no 503 seen)")
    outcome.check(
        not bad, f"{len(bad)} 5xx other than 503: {[(c.name, c.status) for c in bad][:5]}"
    )
    outcome.check(all(c.retry_after for c in unavailable), "a 503 without Retry-After")
    outcome.check(
        not lost, f"{len(lost)} requests without an answer: {[c.error for c in lost][:3]}"
    )
    outcome.check(slowest < HANG_SECONDS, f"a request took {slowest:.1f} s")
    outcome.check(
        not other, f"unexpected answers: {[(c.name, c.status, c.body) for c in other][:3]}"
    )
    if recovered is None:
        outcome.check(False, "no 2xx after PostgreSQL came back")
    else:
        seconds = recovered - up
        outcome.fact(f"first 2xx {seconds:.2f} s after PostgreSQL accepted connections again")
        outcome.check(seconds <= 10, f"recovery took {seconds:.1f} s (bound 10 s)")
    if redone_submits:
        outcome.fact(
            f"{redone_submits} submit retried after a 503 found its card already "
            "submitted (409): the first try had committed"
        )
    reboots = web.output().count("Booting worker") - booted
    outcome.check(web.alive() and not reboots, f"gunicorn alive {web.alive()}, {reboots} reboots")
    outcome.check(worker.alive(), "the Celery worker died with PostgreSQL")
    state = query(stack, CARD_STATE)
    outcome.fact(
        f"scorecards: {state['submitted']} submitted with every rating, "
        f"{state['drafts']} drafts, {len(state['half_written'])} half-written"
    )
    outcome.check(not state["half_written"], f"half-written scorecards {state['half_written'][:5]}")
    for proc in list(stack.procs):
        stack.discard(proc)
    return outcome


# --- b. the whole worker killed mid-calibration ---------------------------------------------------


def sql(stack: Stack, statement: str) -> list[tuple]:
    """Run one read in the scenario's database (quick enough to poll with)."""
    import psycopg

    with psycopg.connect(stack.env["DATABASE_URL"]) as conn:
        return conn.execute(statement).fetchall()


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


# --- c. Redis stopped -----------------------------------------------------------------------------


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


SCENARIOS: dict[str, Callable[..., Outcome]] = {
    "postgres": scenario_postgres,
    "worker": scenario_worker,
    "redis": scenario_redis,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scenarios", nargs="*", help=f"any of {', '.join(SCENARIOS)} (all)")
    parser.add_argument(
        "--candidates",
        type=int,
        default=12_000,
        help="simulated candidates for the worker scenario's calibration",
    )
    args = parser.parse_args()
    chosen = args.scenarios or list(SCENARIOS)
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario {', '.join(sorted(unknown))}")
    outcomes: list[Outcome] = []
    with Stack("faults") as stack:
        stack.up(database=TEMPLATE)
        stack.manage("migrate", "--no-input")
        BASE_ENV.update(stack.env)
        for name in chosen:
            print(f"\n== {name} ==", flush=True)
            started = time.monotonic()
            try:
                if name == "worker":
                    outcome = scenario_worker(stack, candidates=args.candidates)
                else:
                    outcome = SCENARIOS[name](stack)
            except Exception as exc:  # a scenario that breaks is a failure, not a crash
                outcome = Outcome(name)
                outcome.check(False, f"{type(exc).__name__}: {exc}")
                for proc in list(stack.procs):
                    print(f"--- {proc.name} log ---\n{proc.tail(40)}")
                    stack.discard(proc)
            print(f"  ({time.monotonic() - started:.0f} s)")
            outcomes.append(outcome)
    print()
    for outcome in outcomes:
        print(outcome.line())
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
