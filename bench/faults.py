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

Each scenario is a module of bench/fault_scenarios/, beside what they share (harness.py).
"""

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.fault_scenarios.harness import BASE_ENV, TEMPLATE, Outcome
from bench.fault_scenarios.postgres_restart import scenario_postgres
from bench.fault_scenarios.redis_stop import scenario_redis
from bench.fault_scenarios.worker_kill import scenario_worker
from bench.loadsite.stack import Stack

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
