"""Scenario a: PostgreSQL restarts (fast shutdown, 2 s down) while 8 clients submit
scorecards and read debriefs (bench/faults.py says what must hold)."""

import threading
import time
from typing import Any

from bench.fault_scenarios.harness import (
    HANG_SECONDS,
    Call,
    Outcome,
    call,
    fresh_database,
    query,
    ratings_for,
    seed,
)
from bench.loadsite.stack import Stack, wait_until

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
