"""A real Celery worker over Redis, sharing the test's PostgreSQL database.

The worker runs as a subprocess on a queue of its own, so parallel runs and
stray workers cannot take its tasks. Tests here commit their data
(transactional_db) so the worker sees it.
"""

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.db import connection

from config.celery import app
from kit.ladder import ensure_ladder
from kit.models import Level
from tests.conftest import need, port_open

ROOT = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")


@dataclass
class Worker:
    process: subprocess.Popen
    name: str
    queue: str
    log: Path

    def children(self) -> list[int]:
        """Return the pids of the worker's pool processes."""
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.process.pid)], capture_output=True, text=True
        )
        return [int(pid) for pid in out.stdout.split()]

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _forget_connections() -> None:
    # Earlier tests may have made Celery open and cache connections for the settings
    # they ran under; drop them so publishing and pings use the broker set here.
    app._pool = None
    app.amqp._producer_pool = None


def _database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def worker(transactional_db, settings, tmp_path) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    need("PostgreSQL (the worker must share the test database)", connection.vendor == "postgresql")
    need("Redis on 127.0.0.1:6379", port_open("127.0.0.1", 6379))
    # Earlier transactional tests flushed the tables (and a running Playwright loop
    # can hide the serialized copy from Django): put the ladder and groups back.
    ensure_ladder(Level, Group)
    queue = f"test-{uuid.uuid4().hex[:10]}"
    name = f"{queue}@localhost"
    log = tmp_path / "worker.log"
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": BROKER,
        "CELERY_RESULT_BACKEND": BROKER,
        "CALIBRATION_COLLAPSE_SECONDS": "2",
        "CONN_MAX_AGE": "0",
    }
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-n", name,
             "--pool", "prefork", "--concurrency", "1", "--without-gossip", "--without-mingle",
             "--loglevel", "INFO"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "result_backend")}
    saved_queue = app.conf.task_default_queue
    app.conf.update(
        task_always_eager=False, broker_url=BROKER, result_backend=BROKER, task_default_queue=queue
    )
    _forget_connections()
    settings.CALIBRATION_COLLAPSE_SECONDS = 2
    try:
        wait_for(
            lambda: process.poll() is None and app.control.ping(destination=[name], timeout=0.5),
            timeout=60,
            what="the Celery worker to answer a ping",
            interval=0.5,
        )
        yield Worker(process=process, name=name, queue=queue, log=log)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 15)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        app.conf.update(saved, task_default_queue=saved_queue)
        _forget_connections()
