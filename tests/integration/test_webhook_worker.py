"""Webhook deliveries on a real Celery worker over Redis (PostgreSQL shared with the test).

The worker is killed outright (SIGKILL, the whole process group) while its delivery
is in flight, then started again: the broker hands the unacknowledged task back
after its visibility timeout, the attempt's lease has run out by then, and the
second attempt reaches the receiver, which acknowledges the event once.
"""

import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection
from standardwebhooks import Webhook

from config.celery import app
from core.permissions import RECRUITER
from core.webhooks import services
from core.webhooks.models import WebhookDelivery
from tests.conftest import make_user, need, port_open
from tests.core.webhooks.receiver import receiving
from tests.integration.conftest import BROKER, ROOT, _database_url, _forget_connections, wait_for

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    # Committed data for the worker.
    pytest.mark.django_db(transaction=True),
]

# Longer than an attempt's lease (services.LEASE), so the task comes back to a
# delivery that another attempt may claim; short, so the test takes a minute, not 15.
VISIBILITY_TIMEOUT = 40


@dataclass
class Workers:
    """Start and kill workers on a queue of their own, one at a time."""

    queue: str
    log: Path
    process: subprocess.Popen | None = None

    @property
    def name(self) -> str:
        return f"{self.queue}@localhost"

    def start(self) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "CELERY_BROKER_URL": BROKER,
            "CELERY_RESULT_BACKEND": BROKER,
            "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "CELERY_RESTORE_INTERVAL": "1",
            "CONN_MAX_AGE": "0",
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "True",  # the receiver listens on loopback
        }
        with self.log.open("a") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", self.queue,
                 "-n", self.name, "--pool", "prefork", "--concurrency", "1",
                 "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        process = self.process
        wait_for(
            lambda: (
                process.poll() is None and app.control.ping(destination=[self.name], timeout=0.5)
            ),
            timeout=60,
            what="the Celery worker to answer a ping",
            interval=0.5,
        )

    def kill(self) -> None:
        """SIGKILL the worker and its pool: nothing is acknowledged, nothing cleaned up."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def workers(transactional_db: None, tmp_path: Path) -> Iterator[Workers]:  # type: ignore[misc]
    need("PostgreSQL (the worker must share the test database)", connection.vendor == "postgresql")
    need("Redis on 127.0.0.1:6379", port_open("127.0.0.1", 6379))
    running = Workers(queue=f"test-{uuid.uuid4().hex[:10]}", log=tmp_path / "worker.log")
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "result_backend")}
    saved_queue = app.conf.task_default_queue
    app.conf.update(
        task_always_eager=False,
        broker_url=BROKER,
        result_backend=BROKER,
        task_default_queue=running.queue,
    )
    _forget_connections()
    try:
        running.start()
        yield running
    finally:
        running.stop()
        app.conf.update(saved, task_default_queue=saved_queue)
        _forget_connections()


@pytest.mark.slow  # kills and restarts a worker
def test_a_worker_killed_mid_delivery_delivers_the_event_once_after_a_restart(
    workers: Workers,
) -> None:
    released = threading.Event()
    with receiving(hold=released) as receiver:
        # A recruiter's: a delivery carries what its owner may read (an owner-less
        # subscription reads nothing).
        subscription = services.webhook_subscription_create(
            url=receiver.url,
            event_types=["calibration.completed"],
            by=make_user("rita", RECRUITER),
        )
        # Outside a transaction: written and published at once.
        event = services.webhook_event_emit(
            kind="calibration.completed",
            payload=lambda details: services.EventData(ids={"snapshot_id": 42}),
        )
        assert event is not None
        delivery = event.deliveries.get()
        assert receiver.arrived.wait(timeout=60), workers.output()

        # Mid-delivery: the receiver holds the request; the worker dies under it.
        workers.kill()
        released.set()
        in_flight = WebhookDelivery.objects.get(pk=delivery.pk)
        assert (in_flight.status, in_flight.attempts) == ("pending", 1)
        assert in_flight.locked_until is not None
        assert receiver.acknowledged == []

        workers.start()
        wait_for(
            lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == "succeeded",
            timeout=VISIBILITY_TIMEOUT + 90,
            what="the redelivered task to deliver the event",
            interval=0.5,
        )

    done = WebhookDelivery.objects.get(pk=delivery.pk)
    assert done.attempts == 2, workers.output()
    assert done.last_status_code == 200
    assert receiver.acknowledged == [event.event_id]
    assert len(receiver.received) == 2
    for request in receiver.received:
        assert request.headers["webhook-id"] == event.event_id
        body = Webhook(subscription.secret).verify(request.body, request.headers)
        assert body["data"] == {"snapshot_id": 42}
