"""What webhooks say about a calibration (core.webhooks delivers it).

calibration.completed carries the stored snapshot's ids and scope, never its rows:
a receiver reads those through the API (/api/v1/calibration/latest/).
"""

from typing import Any

from django.contrib.auth.models import User

from core.permissions import is_lead
from core.webhooks.services import EventData, Payload
from scoring import visibility
from scoring.models import CalibrationSnapshot


def snapshot(stored: CalibrationSnapshot) -> Payload:
    def build(details: bool) -> EventData:
        # Nothing personal to add: the same data with details or without.
        return EventData(
            ids={
                "snapshot_id": stored.pk,
                "role_id": stored.role_id,
                "level_id": stored.level_id,
                "computed_at": stored.result.get("computed_at"),
            }
        )

    return build


def read_snapshot(
    owner: User, ids: dict[str, Any], details: dict[str, Any]
) -> dict[str, Any] | None:
    """calibration.completed as the owner may read it now: nothing while they are blind
    in a loop of the snapshot's scope (a new snapshot there says a co-panelist's card
    landed); leads the exact time it was computed, others the day, as the API shows."""
    scope: dict[str, Any] = {"role": ids.get("role_id")}
    if ids.get("level_id") is not None:
        scope["level"] = ids["level_id"]
    if visibility.open_seat_loops(scope, user=owner).get(owner.pk):
        return None
    if is_lead(owner) or not ids.get("computed_at"):
        return {**ids, **details}
    return {**ids, **details, "computed_at": str(ids["computed_at"])[:10]}
