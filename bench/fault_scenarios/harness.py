"""What the fault scenarios share: HTTP calls with their timings, the outcome a scenario
reports, a fresh database cloned from the migrated template, reads of its rows."""

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from bench.loadsite.stack import PROXY_HEADERS, Stack

TEMPLATE = "ik_faults_template"
BASE_ENV: dict[str, str] = {}  # the stack's environment before a scenario adds to it
HANG_SECONDS = 10.0  # a request that takes longer than this counts as a hang


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


def sql(stack: Stack, statement: str) -> list[tuple]:
    """Run one read in the scenario's database (quick enough to poll with)."""
    import psycopg

    with psycopg.connect(stack.env["DATABASE_URL"]) as conn:
        return conn.execute(statement).fetchall()
