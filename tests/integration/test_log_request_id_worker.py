"""A real Celery worker logs a task's lines with the request id of the request that
queued it (the id travels in the message headers, core/logs.py)."""

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from config.celery import app
from core import logs
from tests.conftest import need, port_open
from tests.core.test_logs import log_a_line
from tests.integration.conftest import ROOT, _forget_connections, wait_for

BROKER = os.environ.get("REDIS_URL", "")

pytestmark = pytest.mark.redis


def lines_of(log: Path) -> list[dict[str, Any]]:
    found = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue
    return found


@pytest.fixture
def json_worker(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A worker logging JSON on a queue of its own, that knows this test's task."""
    need("Redis (REDIS_URL)", bool(BROKER) and port_open("127.0.0.1", 6379))
    queue = f"test-{uuid.uuid4().hex[:10]}"
    name = f"{queue}@localhost"
    log = tmp_path / "worker.log"
    env = {**os.environ, "CELERY_BROKER_URL": BROKER, "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker", "-Q", queue,
             "-n", name, "--pool", "solo", "--without-gossip", "--without-mingle",
             "--include", "tests.core.test_logs"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "task_default_queue")}
    app.conf.update(task_always_eager=False, broker_url=BROKER, task_default_queue=queue)
    _forget_connections()
    try:
        wait_for(
            lambda: process.poll() is None and app.control.ping(destination=[name], timeout=0.5),
            timeout=60,
            what="the Celery worker to answer a ping",
            interval=0.5,
        )
        yield queue, log
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 15)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        app.conf.update(saved)
        _forget_connections()


def test_a_worker_logs_a_queued_tasks_lines_with_the_requests_id(
    json_worker: tuple[str, Path],
) -> None:
    queue, log = json_worker

    with logs.bound(logs.LogContext(request_id="req-worker-0001", user_id=42)):
        sent = log_a_line.apply_async(queue=queue)

    [line] = wait_for(
        lambda: [x for x in lines_of(log) if x["logger"] == "tests.task"], 30, "the task's line"
    )
    assert {k: line[k] for k in ("message", "request_id", "user_id", "task", "task_id")} == {
        "message": "in the task",
        "request_id": "req-worker-0001",
        "user_id": 42,
        "task": "tests.core.test_logs.log_a_line",
        "task_id": sent.id,
    }
    # Every line the worker logged is one JSON object (its banner is left out: --quiet).
    text = [t for t in log.read_text().splitlines() if t.strip()]
    assert len(lines_of(log)) == len(text), text
