"""Liveness and readiness probes for orchestrators, on django-health-check.

* ``/healthz/`` (liveness): the process answers. It touches no database, cache
  or broker, so an outage elsewhere never gets healthy web processes restarted.
* ``/readyz/`` (readiness): the database answers a query and has every migration
  applied, the cache stores and returns a value, and the Celery broker accepts a
  connection when one is configured (eager mode has none).

Both answer a small JSON body, 200 when every check passes and 503 otherwise,
never cached. They sit outside the API (no throttling, no authentication) and are
exempt from the HTTPS redirect, since probes speak plain HTTP inside the cluster;
the ``Host`` header a probe sends must still be one of ``ALLOWED_HOSTS``.
"""

import asyncio
import dataclasses
import datetime
from typing import Any, ClassVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db import Error as DatabaseError
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from health_check.base import HealthCheck
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

# A probe that hangs is as bad as one that fails: the checks written here give up
# within this (the library's database and cache checks within its own 5 s).
PROBE_SECONDS = 1.5
_migrated = False


@dataclasses.dataclass
class Migrations(HealthCheck):
    """Check that the database has every migration the code knows of applied."""

    alias: str = DEFAULT_DB_ALIAS
    timeout: datetime.timedelta = dataclasses.field(
        default=datetime.timedelta(seconds=PROBE_SECONDS), repr=False
    )

    def run(self) -> None:
        global _migrated
        if _migrated:  # migrations are never unapplied under a running process
            return
        connection = connections[self.alias]
        try:
            executor = MigrationExecutor(connection)
            pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as exc:
            raise ServiceUnavailable("database unreachable") from exc
        finally:
            # The check runs in a worker thread: do not leave its connection open.
            connection.close()
        if pending:
            raise ServiceUnavailable(f"{len(pending)} migration(s) not applied")
        _migrated = True


@dataclasses.dataclass
class Broker(HealthCheck):
    """Check that the Celery broker accepts a connection (Redis or AMQP, through kombu)."""

    timeout: datetime.timedelta = dataclasses.field(
        default=datetime.timedelta(seconds=PROBE_SECONDS), repr=False
    )

    def run(self) -> None:
        from config.celery import app

        try:
            with app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, interval_start=0, timeout=PROBE_SECONDS)
        except Exception as exc:  # kombu raises the transport's own errors
            raise ServiceUnavailable("broker unreachable") from exc


class Probe(HealthCheckView):
    """Run the checks; answer JSON, 200 when all pass and 503 (not the library's 500) if not."""

    checks: ClassVar[tuple[Any, ...]] = ()

    async def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        with self.get_executor() as executor:
            self.results = await asyncio.gather(
                *(check.get_result(executor) for check in self.get_checks())
            )
        checks = {
            type(r.check).__name__.lower(): str(r.error) if r.error else "ok" for r in self.results
        }
        failed = any(r.error for r in self.results)
        return JsonResponse(
            {"status": "fail" if failed else "ok", "checks": checks}, status=503 if failed else 200
        )


def _readiness_checks() -> tuple[Any, ...]:
    checks: list[Any] = ["health_check.checks.Database", Migrations, "health_check.checks.Cache"]
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        checks.append(Broker)
    return tuple(checks)


liveness = Probe.as_view(checks=())
readiness = Probe.as_view(checks=_readiness_checks())
