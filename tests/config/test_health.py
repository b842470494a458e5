"""/healthz/ and /readyz/: what an orchestrator's probes get."""

import pytest
from django.db import connections
from django.db.utils import OperationalError

from config import health


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

    monkeypatch.setattr(health, "_migrated", False)
    monkeypatch.setattr(type(connections["default"]), "temporary_connection", refuse)
    monkeypatch.setattr(health.MigrationExecutor, "__init__", refuse)
    response = client.get("/readyz/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"]["database"].startswith("Unavailable")
    assert body["checks"]["migrations"] == "Unavailable: database unreachable"
    assert body["checks"]["cache"] == "ok"


@pytest.mark.django_db
def test_readiness_answers_503_with_a_migration_not_applied(client, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(health, "_migrated", False)
    monkeypatch.setattr(
        health.MigrationExecutor, "migration_plan", lambda self, targets: [("a migration", False)]
    )
    response = client.get("/readyz/")
    assert response.status_code == 503
    assert response.json()["checks"]["migrations"] == "Unavailable: 1 migration(s) not applied"


def test_readiness_checks_the_broker_when_one_is_configured(settings, monkeypatch):  # type: ignore[no-untyped-def]
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert health.Broker in health._readiness_checks()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert health.Broker not in health._readiness_checks()


def test_the_broker_check_fails_when_the_broker_refuses(monkeypatch):  # type: ignore[no-untyped-def]
    from config.celery import app

    # A port nothing listens on: the connection is refused at once.
    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:9/0")
    with pytest.raises(health.ServiceUnavailable, match="broker unreachable"):
        health.Broker().run()


def test_probes_are_exempt_from_the_https_redirect_and_throttling(client, settings):  # type: ignore[no-untyped-def]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz/").status_code == 200
    assert client.get("/login/").status_code == 301
    for _ in range(70):  # over the anonymous API rate
        assert client.get("/healthz/").status_code == 200
