"""Liveness and readiness probes for orchestrators.

* ``/healthz/`` (liveness): the process answers. It touches no database, cache
  or broker, so an outage elsewhere never gets healthy web processes restarted.
* ``/readyz/`` (readiness): the database answers a query and has every migration
  applied, the cache's Redis answers (or the local cache stores and returns a
  value), and the Celery broker accepts a connection when one is configured (eager
  mode has none).

Both answer a small JSON body, 200 when every check passes and 503 otherwise,
never cached. They sit outside the API (no throttling, no authentication) and are
exempt from the HTTPS redirect, since probes speak plain HTTP inside the cluster;
the ``Host`` header a probe sends must still be one of ``ALLOWED_HOSTS``.

An orchestrator gives a probe 1 s (Kubernetes' default), whatever is down, so:

1. The checks run at once, each in a thread of a pool kept for them.
2. Each check has its own timeouts: the database a connection of its own with a
   connect timeout and a statement timeout, the cache and the broker socket timeouts.
3. The answer goes out after DEADLINE_SECONDS whatever happens, a check still running
   then named as failed ("no answer within ..."): libpq cannot give up on a
   connection sooner than 2 s, and a check that hangs must not hang the probe.
"""

import concurrent.futures
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.db import Error as DatabaseError
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from health_check.exceptions import ServiceUnavailable

# The whole probe answers within this; every check's own timeouts are below it.
DEADLINE_SECONDS = 0.8
# Seconds. libpq's connect timeout is whole seconds, and 1 is taken as 2.
DATABASE_CONNECT_TIMEOUT = 2
STATEMENT_TIMEOUT_MS = 500
SOCKET_TIMEOUT = 0.5
_migrated = False
# Threads kept for the checks: a check still running after the deadline finishes here
# (each within its own timeouts) without holding up the answer.
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="probe")

Results = dict[str, str]
LIBPQ_PARAMETERS = frozenset(
    [
        "dbname",
        "user",
        "password",
        "host",
        "port",
        "sslmode",
        "sslrootcert",
        "sslcert",
        "sslkey",
        "passfile",
        "service",
        "application_name",
        "target_session_attrs",
    ]
)


def probe_connection_params(alias: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """Return psycopg's parameters for a PostgreSQL probe connection with short timeouts."""
    params = dict(connections[alias].get_connection_params())
    options = " ".join(
        filter(None, [params.get("options", ""), f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"])
    )
    # Django's own options (a cursor factory, a server-side binding flag) are not libpq's.
    return {
        **{k: v for k, v in params.items() if k in LIBPQ_PARAMETERS},
        "connect_timeout": DATABASE_CONNECT_TIMEOUT,
        "options": options,
    }


def check_database(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Run SELECT 1 on a connection of the probe's own (never a request's, never pooled)."""
    connection = connections[alias]
    if connection.vendor == "postgresql":
        import psycopg

        try:
            with psycopg.connect(**probe_connection_params(alias)) as probe:
                probe.execute("SELECT 1").fetchone()
        except psycopg.Error as exc:
            raise ServiceUnavailable(f"database unreachable ({type(exc).__name__})") from exc
        return
    try:
        with connection.cursor() as cursor:  # SQLite: a local file, nothing to wait for
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        raise ServiceUnavailable(f"database unreachable ({type(exc).__name__})") from exc
    finally:
        connection.close()


def check_migrations(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Check that the database has every migration the code knows of applied."""
    global _migrated
    if _migrated:  # migrations are never unapplied under a running process
        return
    connection = connections[alias]
    try:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        raise ServiceUnavailable("database unreachable") from exc
    finally:
        # The check runs in a pool thread: do not leave its connection open.
        connection.close()
    if pending:
        raise ServiceUnavailable(f"{len(pending)} migration(s) not applied")
    _migrated = True


def check_cache(alias: str = "default") -> None:
    """Ask the cache's Redis itself (core.cache falls back to memory, which always works)."""
    cache = caches[alias]
    ping = getattr(cache, "ping", None)
    try:
        if ping is not None:
            ping()
            return
        key = f"readyz:{uuid.uuid4().hex}"
        cache.set(key, "ok", timeout=5)
        if cache.get(key) != "ok":
            raise ServiceUnavailable("cache did not return what was stored")
    except ServiceUnavailable:
        raise
    except Exception as exc:  # each backend raises its client's own errors
        raise ServiceUnavailable(f"cache unreachable ({type(exc).__name__})") from exc


def check_broker() -> None:
    """Check that the Celery broker accepts a connection (Redis or AMQP, through kombu)."""
    # The project's app (config/celery.py), current since the settings' package loaded it:
    # core imports nothing from config.
    from celery import current_app as app

    options = {"socket_connect_timeout": SOCKET_TIMEOUT, "socket_timeout": SOCKET_TIMEOUT}
    try:
        with app.connection_for_write(
            transport_options=options, connect_timeout=SOCKET_TIMEOUT
        ) as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, timeout=SOCKET_TIMEOUT)
    except Exception as exc:  # kombu raises the transport's own errors
        raise ServiceUnavailable("broker unreachable") from exc


def _database_and_migrations() -> Results:
    # The migrations are read only from a database that answered the probe's own query,
    # whose timeouts bound how long an unreachable one can take.
    try:
        check_database()
    except ServiceUnavailable as exc:
        return {"database": str(exc), "migrations": str(ServiceUnavailable("database unreachable"))}
    try:
        check_migrations()
    except ServiceUnavailable as exc:
        return {"database": "ok", "migrations": str(exc)}
    return {"database": "ok", "migrations": "ok"}


def _one(name: str, check: Callable[[], None]) -> Callable[[], Results]:
    def run() -> Results:
        try:
            check()
        except ServiceUnavailable as exc:
            return {name: str(exc)}
        return {name: "ok"}

    return run


def readiness_checks() -> list[tuple[tuple[str, ...], Callable[[], Results]]]:
    """Return each job of the readiness probe with the checks it answers for."""
    jobs: list[tuple[tuple[str, ...], Callable[[], Results]]] = [
        (("database", "migrations"), _database_and_migrations),
        (("cache",), _one("cache", check_cache)),
    ]
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        jobs.append((("broker",), _one("broker", check_broker)))
    return jobs


def run_checks(jobs: list[tuple[tuple[str, ...], Callable[[], Results]]]) -> Results:
    """Run the jobs at once; return each check's "ok" or why not, by DEADLINE_SECONDS."""
    futures = {_pool.submit(job): names for names, job in jobs}
    done, _ = concurrent.futures.wait(futures, timeout=DEADLINE_SECONDS)
    results: Results = {}
    for future, names in futures.items():
        if future in done:
            try:
                results.update(future.result())
            except Exception as exc:  # a check's own bug still names the check
                results.update({name: f"Unavailable: {type(exc).__name__}" for name in names})
        else:
            late = str(ServiceUnavailable(f"no answer within {DEADLINE_SECONDS:g} s"))
            results.update({name: late for name in names})
    # In the order the checks are listed, whatever order they finished in.
    return {name: results[name] for names, _ in jobs for name in names}


@method_decorator(never_cache, name="dispatch")
class Probe(View):
    """Run the checks; answer JSON, 200 when all pass and 503 if not."""

    liveness = False

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        checks = {} if self.liveness else run_checks(readiness_checks())
        failed = any(result != "ok" for result in checks.values())
        return JsonResponse(
            {"status": "fail" if failed else "ok", "checks": checks}, status=503 if failed else 200
        )


liveness = Probe.as_view(liveness=True)
readiness = Probe.as_view()
