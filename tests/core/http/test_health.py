"""/healthz/ and /readyz/: what an orchestrator's probes get."""

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connections
from django.db.utils import OperationalError

from core.http import health
from tests.smtp_relay import free_port


def test_liveness_answers_ok_without_touching_the_database(client):  # type: ignore[no-untyped-def]
    # No django_db mark: any query would raise "Database access not allowed".
    response = client.get("/healthz/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {}}
    assert "no-cache" in response["Cache-Control"]
    assert "max-age=0" in response["Cache-Control"]


@pytest.mark.django_db
def test_readiness_answers_ok_with_the_database_migrated_and_the_cache_working(client):  # type: ignore[no-untyped-def]
    response = client.get("/readyz/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    # Eager Celery (no broker configured): there is no broker to check.
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "migrations": "ok", "cache": "ok"},
    }
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_readiness_answers_503_while_the_database_is_unreachable(client, monkeypatch):  # type: ignore[no-untyped-def]
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("connection refused")

    def refuse_probe(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(health, "_migrated", False)
    # SQLite is asked through Django's connection, PostgreSQL on the probe's own.
    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)
    monkeypatch.setattr(psycopg, "connect", refuse_probe)
    response = client.get("/readyz/")
    assert response.status_code == 503
    assert response.json() == {
        "status": "fail",
        "checks": {
            "database": "Unavailable: database unreachable (OperationalError)",
            "migrations": "Unavailable: database unreachable",
            "cache": "ok",
        },
    }


@pytest.mark.django_db
def test_readiness_answers_503_with_a_migration_not_applied(client, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(health, "_migrated", False)
    monkeypatch.setattr(
        health.MigrationExecutor, "migration_plan", lambda self, targets: [("a migration", False)]
    )
    response = client.get("/readyz/")
    assert response.status_code == 503
    assert response.json()["checks"]["migrations"] == "Unavailable: 1 migration(s) not applied"


def test_readiness_checks_the_broker_when_one_is_configured(settings):  # type: ignore[no-untyped-def]
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert [names for names, _ in health.readiness_checks()] == [
        ("database", "migrations"),
        ("cache",),
        ("broker",),
    ]
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert ("broker",) not in [names for names, _ in health.readiness_checks()]


def test_the_broker_check_fails_when_the_broker_refuses(monkeypatch):  # type: ignore[no-untyped-def]
    from config.celery import app

    # A port nothing listens on: the connection is refused at once.
    monkeypatch.setattr(app.conf, "broker_url", f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(health.ServiceUnavailable, match="broker unreachable"):
        health.check_broker()


@pytest.mark.django_db
def test_readiness_names_the_broker_while_it_is_unreachable(client, settings, monkeypatch):  # type: ignore[no-untyped-def]
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(app.conf, "broker_url", f"redis://127.0.0.1:{free_port()}/0")
    response = client.get("/readyz/")
    assert response.status_code == 503
    assert response.json()["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "cache": "ok",
        "broker": "Unavailable: broker unreachable",
    }


@pytest.mark.django_db
def test_readiness_answers_by_its_deadline_with_a_check_that_hangs(client, monkeypatch):  # type: ignore[no-untyped-def]
    # A check that never returns by itself: the probe must answer anyway, naming it.
    release = threading.Event()

    def hang() -> None:
        release.wait(timeout=30)

    monkeypatch.setattr(health, "check_cache", hang)
    try:
        response = client.get("/readyz/")
    finally:
        release.set()
    assert response.status_code == 503
    assert response.json()["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "cache": f"Unavailable: no answer within {health.DEADLINE_SECONDS:g} s",
    }


@contextmanager
def silent_server() -> Iterator[int]:
    """Listen on a loopback port and never answer: connections are made (the kernel's
    backlog accepts them) and then wait, as with a dependency that hangs."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])


def test_the_database_probe_connection_has_connect_and_statement_timeouts(settings):  # type: ignore[no-untyped-def]
    params = health.probe_connection_params()
    assert params["connect_timeout"] == health.DATABASE_CONNECT_TIMEOUT
    assert f"-c statement_timeout={health.STATEMENT_TIMEOUT_MS}" in params["options"]


def test_the_database_probe_gives_up_on_a_server_that_never_answers(monkeypatch):  # type: ignore[no-untyped-def]
    import psycopg

    with silent_server() as port:
        params = {"host": "127.0.0.1", "port": port, "dbname": "x", "user": "x"}
        monkeypatch.setattr(health, "probe_connection_params", lambda alias: {
            **params, "connect_timeout": health.DATABASE_CONNECT_TIMEOUT})  # fmt: skip
        monkeypatch.setattr(type(connections["default"]), "vendor", "postgresql")
        # Without the connect timeout this would wait for ever.
        with pytest.raises(health.ServiceUnavailable, match="database unreachable") as failed:
            health.check_database()
    assert isinstance(failed.value.__cause__, psycopg.OperationalError)
    assert "timeout" in str(failed.value.__cause__)


def test_the_cache_probe_gives_up_on_a_redis_that_never_answers(settings):  # type: ignore[no-untyped-def]
    from redis.exceptions import TimeoutError as RedisTimeoutError

    with silent_server() as port:
        settings.CACHES = {
            "default": {
                "BACKEND": "core.cache.FallbackRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
            }
        }
        with pytest.raises(health.ServiceUnavailable, match="cache unreachable") as failed:
            health.check_cache()
    assert isinstance(failed.value.__cause__, RedisTimeoutError)


def test_the_broker_probe_gives_up_on_a_broker_that_never_answers(monkeypatch):  # type: ignore[no-untyped-def]
    from config.celery import app

    with silent_server() as port:
        monkeypatch.setattr(app.conf, "broker_url", f"redis://127.0.0.1:{port}/0")
        with pytest.raises(health.ServiceUnavailable, match="broker unreachable") as failed:
            health.check_broker()
    assert "timeout" in repr(failed.value.__cause__).lower()


def test_probes_are_exempt_from_the_https_redirect_and_throttling(client, settings):  # type: ignore[no-untyped-def]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz/").status_code == 200
    assert client.get("/login/").status_code == 301
    for _ in range(70):  # over the anonymous API rate
        assert client.get("/healthz/").status_code == 200
