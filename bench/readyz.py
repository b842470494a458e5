"""How long `/readyz/` takes with each dependency unreachable, cold and warm.

Run from the repository root:  python bench/readyz.py
(DATABASE_URL and REDIS_URL, if set, are the dependencies when they are "up"; else
SQLite, local memory and eager Celery. The "up" database is migrated first.)

Each scenario runs in a fresh process that loads config.wsgi as gunicorn does (so
the first call is cold: no connection open, no check run yet) and times, through
Django's test client, the first `/readyz/` and then the median of five more,
against `/healthz/` in the same process (the baseline: a request that touches
nothing). A dependency is made unreachable two ways, both on loopback: "refused"
(a port nothing listens on) and "silent" (a port that accepts connections and never
answers, as a hung server or a dropped route). Kubernetes gives a probe 1 s by
default: the "under 1 s" column says whether it was kept.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, os, statistics, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import config.wsgi  # what gunicorn loads before the first request
from django.test import Client
client = Client()
def timed(path):
    start = time.perf_counter()
    response = client.get(path)
    return time.perf_counter() - start, response
cold, first = timed("/readyz/")
warm = statistics.median(timed("/readyz/")[0] for _ in range(5))
base = statistics.median(timed("/healthz/")[0] for _ in range(5))
print(json.dumps({"cold": cold, "warm": warm, "base": base, "status": first.status_code,
                  "checks": first.json()["checks"]}))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(env: dict[str, str]) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CACHE_URL")}
    clean.pop("CELERY_BROKER_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=ROOT,
        env={**clean, "DEBUG": "True", "LOG_LEVEL": "ERROR", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def migrate(env: dict[str, str]) -> None:
    """Apply the migrations to the "up" database, so its checks can pass."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "--verbosity", "0"],
        cwd=ROOT, env={**os.environ, **env}, check=True, timeout=600,
    )  # fmt: skip


def main() -> None:
    redis_url = os.environ.get("REDIS_URL", "")
    up: dict[str, str] = {}
    if os.environ.get("DATABASE_URL"):
        up["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if redis_url:
        up["CACHE_URL"] = redis_url
        up["CELERY_BROKER_URL"] = redis_url
    migrate(up)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        hung = silent.getsockname()[1]
        refused = free_port()
        scenarios = {"all up": up}
        for how, port in (("refused", refused), ("silent", hung)):
            scenarios[f"database {how}"] = {
                **up,
                "DATABASE_URL": f"postgres://x@127.0.0.1:{port}/x",
            }
            scenarios[f"cache {how}"] = {**up, "CACHE_URL": f"redis://127.0.0.1:{port}/0"}
            scenarios[f"broker {how}"] = {**up, "CELERY_BROKER_URL": f"redis://127.0.0.1:{port}/0"}
        print(f"{'scenario':<18} {'status':>6} {'cold s':>7} {'warm s':>7} {'base s':>7} "
              f"{'cold/base':>9} {'warm/base':>9}  under 1 s  failed checks")  # fmt: skip
        for name, env in scenarios.items():
            r = run(env)
            failed = ", ".join(k for k, v in r["checks"].items() if v != "ok") or "-"
            kept = "yes" if max(r["cold"], r["warm"]) < 1 else "NO"
            print(
                f"{name:<18} {r['status']:>6} {r['cold']:>7.3f} {r['warm']:>7.3f} "
                f"{r['base']:>7.4f} {r['cold'] / r['base']:>9.0f} {r['warm'] / r['base']:>9.0f}"
                f"  {kept:<9}  {failed}"
            )
            time.sleep(0.1)


if __name__ == "__main__":
    main()
