"""Load: scorecard submissions and debrief reads against a bare DRF create endpoint.

Run from the repository root:  python bench/load.py [--duration 60] [--clients 16]

It starts a private production-shaped stack (bench/loadsite/stack.py): a throwaway
PostgreSQL cluster, a private Redis, gunicorn with DEBUG off and a real Celery
worker, seeds interviews whose panels are the load clients (bench/loadsite/seed.py),
then runs locust in-process, headless, with --clients concurrent clients (each a
distinct interviewer with an API token), --duration seconds for each workload,
the two taking turns in 10 s slices so that both meet the same machine load:

* baseline: POST /bench/candidates/, a bare DRF CreateAPIView over one model with
  the same authentication, throttling and middleware (bench-only URLconf);
* scorecards: per seat, start the draft, save its ratings, submit it, read the
  loop's debrief (four requests, each one real work: no 409s).

It prints requests/s, p50, p99 and errors for both, the ratio of the scorecard
requests/s to the baseline's, and exits non-zero on any error (or, with
--min-ratio, on a ratio below it).
"""

# locust patches the standard library for gevent: import it before anything else.
from locust import FastHttpUser, constant, task  # isort: skip
from locust.env import Environment  # isort: skip
from locust.exception import StopUser  # isort: skip

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import gevent
from locust.stats import RequestStats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.loadsite.stack import PROXY_HEADERS, Stack

PLAN: list[dict] = []
TARGET_RATIO = 0.5  # reported; enforced only with --min-ratio
RAN_OUT: list[str] = []  # clients that used up their seats: the phase lost load


def _headers(client: dict) -> dict[str, str]:
    return {**PROXY_HEADERS, "Authorization": f"Token {client['token']}"}


class Client(FastHttpUser):
    abstract = True
    wait_time = constant(0)
    network_timeout = 30.0
    connection_timeout = 10.0

    def on_start(self) -> None:
        if not PLAN:
            raise StopUser()
        self.me = PLAN.pop(0)
        self.headers = _headers(self.me)
        self.rng = random.Random(self.me["username"])


class Baseline(Client):
    @task
    def create(self) -> None:
        n = self.rng.randrange(10**9)
        self.client.post(
            "/bench/candidates/",
            json={"name": f"Bench {n}", "email": f"bench{n}@example.com"},
            headers=self.headers,
            name="baseline create",
        )


class Scorecards(Client):
    @task
    def submit_one(self) -> None:
        seats = self.me["seats"]
        if not seats:
            RAN_OUT.append(self.me["username"])
            raise StopUser()
        seat = seats.pop(0)
        started = self.client.post(
            "/api/v1/scorecards/",
            json={"interview": seat["interview"]},
            headers=self.headers,
            name="start",
        )
        if started.status_code != 201:
            return
        card = started.json()["id"]
        ratings = []
        for item in seat["items"]:
            value = self.rng.randint(1, item["scale"])
            ratings.append(
                {
                    "item": item["item"],
                    "rating": value,
                    "checked": [r for r in item["rubric"] if self.rng.random() < 0.5],
                    "follow_ups_asked": item["follow_ups"][:1],
                    "notes": "Walked through the trade-offs with numbers.",
                }
            )
        mean = sum(r["rating"] for r in ratings) / len(ratings)
        saved = self.client.put(
            f"/api/v1/scorecards/{card}/",
            json={
                "recommendation": "yes" if mean >= 2.5 else "no",
                "summary": "Solid on the core points; some gaps under follow-up.",
                "ratings": ratings,
            },
            headers=self.headers,
            name="save draft",
        )
        if saved.status_code != 200:
            return
        submitted = self.client.post(
            f"/api/v1/scorecards/{card}/submit/", headers=self.headers, name="submit"
        )
        if submitted.status_code != 200:
            return
        self.client.get(f"/api/v1/loops/{seat['loop']}/debrief/", headers=self.headers,
                        name="debrief")  # fmt: skip


@dataclass
class Phase:
    """One workload's measurements, added up over its slices."""

    stats: RequestStats = field(default_factory=RequestStats)
    elapsed: float = 0.0
    cpu: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)


def run_slice(user_class: type[Client], *, stack: Stack, plan: list[dict], seconds: float,
              phase: Phase) -> None:  # fmt: skip
    """Run `user_class`, one client per plan entry, for `seconds`; add the figures to `phase`.

    The plan's seat lists are shared across slices: a seat used in one is gone for the next.
    """
    PLAN[:] = list(plan)
    env = Environment(user_classes=[user_class], host=stack.base_url)
    runner = env.create_local_runner()
    runner.start(len(plan), spawn_rate=len(plan))
    # Bounded: a client that finds no seat left stops at once, so the count may never
    # reach the plan (the run then reports the clients that ran out and fails).
    deadline = time.monotonic() + 30
    while runner.user_count < len(plan) and not RAN_OUT and time.monotonic() < deadline:
        gevent.sleep(0.05)
    gevent.sleep(2.0)  # let every client get going (connections, first requests) before measuring
    env.stats.reset_all()
    cpu_before = stack.cpu_seconds()
    started = time.monotonic()
    gevent.sleep(seconds)
    phase.elapsed += time.monotonic() - started
    for name, used in stack.cpu_seconds().items():
        phase.cpu[name] += used - cpu_before.get(name, 0.0)
    phase.stats.total.extend(env.stats.total)
    for (name, method), entry in env.stats.entries.items():
        phase.stats.get(name, method).extend(entry)
    for e in env.stats.errors.values():
        phase.failures[f"{e.method} {e.name}: {e.error}"] += e.occurrences
    runner.quit()


def figures(phase: Phase) -> dict:
    total, elapsed = phase.stats.total, phase.elapsed
    return {
        "requests": total.num_requests,
        "errors": total.num_failures,
        "rps": total.num_requests / elapsed,
        "p50": total.get_response_time_percentile(0.5),
        "p99": total.get_response_time_percentile(0.99),
        "endpoints": {
            name: {
                "requests": entry.num_requests,
                "rps": entry.num_requests / elapsed,
                "p50": entry.get_response_time_percentile(0.5),
                "p99": entry.get_response_time_percentile(0.99),
                "errors": entry.num_failures,
            }
            for (name, _method), entry in sorted(phase.stats.entries.items())
        },
        # Share of one core each component used while measured.
        "cpu": {name: used / elapsed for name, used in sorted(phase.cpu.items())},
        "failures": [f"{what} x{n}" for what, n in phase.failures.items()],
    }


def row(label: str, f: dict) -> str:
    return (
        f"{label:<24} {f['requests']:>8} {f['rps']:>9.1f} {f['p50']:>8.0f} {f['p99']:>8.0f} "
        f"{f['errors']:>7}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds per workload (60)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument("--web-workers", type=int, default=4, help="gunicorn workers (4)")
    parser.add_argument("--seats", type=int, default=0, help="seats per client (default: enough)")
    parser.add_argument("--slices", type=int, default=0,
                        help="turns each workload takes (default: one per 10 s)")  # fmt: skip
    parser.add_argument("--min-ratio", type=float, default=0.0,
                        help="fail below this scorecard/baseline requests/s ratio")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    # Each seat is four requests. A quiet machine here has served 4 seats/s per client
    # (16 clients, 65 submissions/s), and the turns' warm-ups use seats too: at five a
    # second per client a 60 s run ran out. Eight a second per client leaves room
    # (seeding: ~40 ms a loop of six seats).
    seats = args.seats or max(30, 8 * int(args.duration))

    with Stack("load") as stack:
        t0 = time.monotonic()
        stack.up(database="ik_load", settings="bench.loadsite.settings")
        stack.manage("migrate", "--no-input")
        plan_path = stack.base / "plan.json"
        out = stack.python(
            "from bench.loadsite.seed import write_plan\n"
            f"write_plan({str(plan_path)!r}, clients={args.clients}, seats={seats})"
        )
        plan = json.loads(plan_path.read_text())["clients"]
        worker = stack.worker()
        stack.gunicorn(workers=args.web_workers)
        stack.wait_worker_ready(worker)
        print(f"stack up and {out.strip()} in {time.monotonic() - t0:.0f} s")
        print(
            f"{args.clients} clients, {args.duration:.0f} s per workload in "
            f"{args.slices or max(1, round(args.duration / 10))} turns, gunicorn "
            f"{args.web_workers} workers, PostgreSQL {stack.pg.port if stack.pg else '?'}, "
            "Redis broker, 1 Celery worker\n"
        )

        # The two workloads take turns, slice by slice, so that both meet the same
        # machine: on a shared host, other work comes and goes within a minute.
        base, cards = Phase(), Phase()
        slices = args.slices or max(1, round(args.duration / 10))
        for _ in range(slices):
            for user_class, phase in ((Baseline, base), (Scorecards, cards)):
                run_slice(user_class, stack=stack, plan=plan, seconds=args.duration / slices,
                          phase=phase)  # fmt: skip
        base, cards = figures(base), figures(cards)
        submitted = int(
            stack.python(
                "from scoring.models import Scorecard\n"
                "print(Scorecard.objects.filter(interviewer__username__startswith='load-',"
                " status='submitted').count())"
            )
        )
        jobs = stack.python(
            "from scoring.models import CalibrationJob\n"
            "from django.db.models import Count\n"
            "print(dict(CalibrationJob.objects.values_list('status').annotate(n=Count('id'))))"
        ).strip()
        worker_alive = worker.alive()

    print(f"{'':<24} {'requests':>8} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    print(row("baseline (bare create)", base))
    print(row("scorecards (all)", cards))
    for name, f in cards["endpoints"].items():
        print(row(f"  {name}", f))
    for label, f in (("baseline", base), ("scorecards", cards)):
        shares = ", ".join(f"{name} {share:.2f}" for name, share in f["cpu"].items())
        print(f"cores used, {label}: {shares}")
    ratio = cards["rps"] / base["rps"] if base["rps"] else 0.0
    verdict = "meets" if ratio >= TARGET_RATIO else "is below"
    print(
        f"\nratio scorecard req/s / baseline req/s: {ratio:.2f} "
        f"({verdict} the {TARGET_RATIO} target)"
    )
    submits = cards["endpoints"].get("submit", {}).get("rps", 0.0)
    print(f"submissions: {submits:.1f}/s measured, {submitted} scorecards submitted in all "
          f"(turn warm-ups included); calibration jobs by status: {jobs}")  # fmt: skip
    for failure in base["failures"] + cards["failures"]:
        print(f"  failure: {failure}")
    if args.json:
        args.json.write_text(json.dumps({"baseline": base, "scorecards": cards, "ratio": ratio}))

    errors = base["errors"] + cards["errors"]
    if RAN_OUT:
        print(f"{len(set(RAN_OUT))} clients ran out of seats: the load dropped; use --seats")
    ok = errors == 0 and ratio >= args.min_ratio and worker_alive and not RAN_OUT
    print(
        f"\n{'PASS' if ok else 'FAIL'}: {errors} errors, ratio {ratio:.2f}"
        + (f" (minimum {args.min_ratio})" if args.min_ratio else "")
        + ("" if worker_alive else ", the Celery worker died")
        + (", clients ran out of seats" if RAN_OUT else "")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
