"""A cache outage degrades the API instead of taking it down (core/cache.py).

With the Redis behind CACHE_URL unreachable every call still answers, rate limits
still apply (in each process's memory) and the log says so; `/readyz/` names the
cache; and once Redis is back the cache is used again, without a restart.
"""

import logging
import shutil
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib import error, request

import pytest
import redis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from core import cache as fallback
from tests.conftest import client_for, make_user, need, port_open
from tests.smtp_relay import free_port


def use_cache_at(settings, port: int) -> None:  # type: ignore[no-untyped-def]
    # Changing CACHES makes Django build new cache objects for every thread.
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.FallbackRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
        }
    }


@pytest.fixture
def fresh_outage_state(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(fallback, "_outages", {})


@pytest.mark.django_db
def test_rate_limits_still_apply_with_the_cache_unreachable(  # type: ignore[no-untyped-def]
    settings, monkeypatch, caplog, recruiter: User, fresh_outage_state
):
    use_cache_at(settings, free_port())  # nothing listens there: refused at once
    rates = {"anon": "2/minute", "user": "3/minute"}
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    api = client_for(recruiter)
    with caplog.at_level(logging.WARNING, logger="core.cache"):
        answers = [api.get("/api/v1/roles/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "core.cache"]
    assert "cache unreachable at redis://127.0.0.1:" in warning
    assert "rate limits and other cache uses fall back to this process's memory" in warning


@pytest.mark.django_db
def test_readiness_names_the_cache_while_it_is_unreachable(  # type: ignore[no-untyped-def]
    client, settings, fresh_outage_state
):
    use_cache_at(settings, free_port())
    response = client.get("/readyz/")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["cache"].startswith("Unavailable: cache unreachable")
    assert body["checks"]["database"] == "ok"


class PrivateRedis:
    """A redis-server of the test's own on a free loopback port, stopped and started at will."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while not port_open("127.0.0.1", self.port):
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def keys(self) -> list[bytes]:
        client = redis.Redis(port=self.port, socket_timeout=1)
        try:
            return list(client.keys("*"))
        finally:
            client.close()


@pytest.fixture
def private_redis(tmp_path) -> Iterator[PrivateRedis]:  # type: ignore[no-untyped-def]
    need("redis-server", shutil.which("redis-server") is not None)
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def call(url: str, body: bytes | None = None, token: str = "") -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        with request.urlopen(request.Request(url, data=body, headers=headers), timeout=10) as r:
            return r.status, r.read()
    except error.HTTPError as refused:
        return refused.code, refused.read()


@pytest.mark.redis
@pytest.mark.postgres
def test_the_api_answers_through_a_cache_outage_and_uses_the_cache_again_after_it(  # type: ignore[no-untyped-def]
    live_server, settings, monkeypatch, caplog, private_redis, fresh_outage_state
):
    """Threads call the token endpoint and a list while Redis is killed and started again.

    1. Calls with Redis up; 2. Redis killed, calls go on; 3. Redis started again on the
       same port, empty: the calls' rate-limit counts appear in it again.
    """
    # The live server's threads share SQLite's one in-memory connection: concurrent
    # calls would fail on that, not on the cache.
    need("PostgreSQL (concurrent requests)", connection.vendor == "postgresql")
    use_cache_at(settings, private_redis.port)
    rates = {"anon": "100000/minute", "user": "100000/minute"}
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", rates)
    for n in range(3):
        make_user(f"caller-{n}")
    statuses: Counter[tuple[str, int]] = Counter()
    phase = ["up"]
    stop = threading.Event()
    lock = threading.Lock()

    def caller(n: int) -> None:
        login = f'{{"username": "caller-{n}", "password": "pw"}}'.encode()
        for _ in range(400):  # bounded, whatever happens
            if stop.is_set():
                return
            status, body = call(f"{live_server.url}/api/v1/auth/token/", login)
            token = body.decode().split('"token":"')[-1].split('"')[0] if status == 200 else ""
            listed, _ = call(f"{live_server.url}/api/v1/roles/", token=token)
            with lock:
                statuses[(phase[0], status)] += 1
                statuses[(phase[0], listed)] += 1

    def seen(what: str) -> int:
        with lock:
            return sum(count for (p, _), count in statuses.items() if p == what)

    def wait_until(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + 30
        while not predicate():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.05)

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(3)]
    with caplog.at_level(logging.WARNING, logger="core.cache"):
        for thread in threads:
            thread.start()
        try:
            wait_until(lambda: seen("up") >= 20, "calls with Redis up")
            assert private_redis.keys(), "the rate-limit counts are not in Redis"
            private_redis.stop()
            phase[0] = "down"
            wait_until(lambda: seen("down") >= 40, "calls with Redis down")
            ready, body = call(f"{live_server.url}/readyz/")
            assert ready == 503 and b'"cache": "Unavailable: cache unreachable' in body
            private_redis.start()
            phase[0] = "back"
            wait_until(lambda: bool(private_redis.keys()), "the cache to be used again")
            wait_until(lambda: seen("back") >= 20, "calls with Redis back")
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    assert {status for _, status in statuses} == {200}, statuses
    ready, _ = call(f"{live_server.url}/readyz/")
    assert ready == 200
    messages = [r.getMessage() for r in caplog.records if r.name == "core.cache"]
    assert any("cache unreachable" in m for m in messages)
    assert any("cache reachable again" in m for m in messages)
