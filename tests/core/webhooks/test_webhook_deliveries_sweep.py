"""The sweep: deliveries overdue or stranded by a dead worker are published again."""

from collections.abc import Callable
from datetime import timedelta

from django.utils import timezone

from core.webhooks import services
from core.webhooks.models import WebhookDelivery, WebhookSubscription
from core.webhooks.tasks import webhook_deliver_task, webhook_sweep_task
from tests.core.webhooks.receiver import Receiver


def emitted(n: int) -> list[WebhookDelivery]:
    deliveries = []
    for snapshot_id in range(n):
        event = services.webhook_event_emit(
            kind="calibration.completed",
            payload=lambda details, snapshot_id=snapshot_id: services.EventData(
                ids={"snapshot_id": snapshot_id}
            ),
        )
        assert event is not None
        deliveries.append(event.deliveries.get())
    return deliveries


def test_it_publishes_overdue_and_stranded_deliveries_only(
    subscribe: Callable[..., WebhookSubscription], receiver: Receiver
) -> None:
    subscribe("calibration.completed")
    overdue, on_time, in_flight, stranded, done = emitted(5)
    now = timezone.now()
    late = now - services.SWEEP_GRACE - timedelta(seconds=1)
    rows = WebhookDelivery.objects
    rows.filter(pk=overdue.pk).update(next_attempt_at=late)
    rows.filter(pk=on_time.pk).update(next_attempt_at=now - timedelta(seconds=10))
    rows.filter(pk=in_flight.pk).update(next_attempt_at=late, locked_until=now + services.LEASE)
    rows.filter(pk=stranded.pk).update(
        next_attempt_at=late, locked_until=now - timedelta(seconds=1)
    )
    rows.filter(pk=done.pk).update(next_attempt_at=None, status=WebhookDelivery.Status.SUCCEEDED)

    assert services.webhook_deliveries_sweep(now=now) == 2

    # Run in-process, the published tasks have sent them.
    assert sorted(r.json["data"]["snapshot_id"] for r in receiver.received) == [0, 3]
    statuses = dict(rows.values_list("pk", "status"))
    assert statuses[overdue.pk] == statuses[stranded.pk] == WebhookDelivery.Status.SUCCEEDED
    assert statuses[on_time.pk] == statuses[in_flight.pk] == WebhookDelivery.Status.PENDING


def test_the_sweep_task_finds_nothing_to_do_when_all_is_on_time(db: None) -> None:
    assert webhook_sweep_task.delay().get() == 0


def test_the_delivery_task_run_twice_sends_once(
    subscribe: Callable[..., WebhookSubscription], receiver: Receiver
) -> None:
    subscribe("calibration.completed")
    (delivery,) = emitted(1)

    assert webhook_deliver_task.delay(delivery.pk).get() == "succeeded"
    assert webhook_deliver_task.delay(delivery.pk).get() == "done"

    assert len(receiver.received) == 1
    assert WebhookDelivery.objects.get(pk=delivery.pk).attempts == 1
