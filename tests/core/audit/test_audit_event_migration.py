"""AuditEvent moved from scoring to kit (kit 0005, scoring 0003), then to core (core 0001,
kit 0006), without touching its table: events recorded before the moves are read after
them, and the moves undo cleanly."""

import pytest
from django.contrib.contenttypes.models import ContentType

from core.models import AuditEvent
from tests.conftest import migrate

BEFORE = [("kit", "0004_question_current_set_null"), ("scoring", "0002_calibration_exercises")]


@pytest.mark.slow  # migrates back and forward
@pytest.mark.django_db(transaction=True)
def test_events_recorded_before_the_move_are_kept() -> None:
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state(BEFORE).apps
        user = old.get_model("auth", "User").objects.create(username="rita")
        old.get_model("scoring", "AuditEvent").objects.create(
            actor_id=user.pk, action="loop.decided", target="Ada · L5", data={"decision": "hire"}
        )
        types = old.get_model("contenttypes", "ContentType").objects
        assert types.filter(app_label="scoring", model="auditevent").exists()
    finally:
        migrate()
    ContentType.objects.clear_cache()

    assert list(AuditEvent.objects.values_list("actor__username", "action", "target", "data")) == [
        ("rita", "loop.decided", "Ada · L5", {"decision": "hire"})
    ]
    # Admin history and permissions granted on audit events follow the model.
    assert ContentType.objects.get_for_model(AuditEvent).app_label == "core"
    assert not ContentType.objects.filter(app_label__in=["scoring", "kit"], model="auditevent")
