"""What webhooks say about a calibration (core.webhooks delivers it).

calibration.completed carries the stored snapshot's ids and scope, never its rows:
a receiver reads those through the API (/api/v1/calibration/latest/).
"""

from typing import Any

from django.contrib.auth.models import User

from core.permissions import is_lead
from core.webhooks.services import EventData, Payload
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
) -> dict[str, Any]:
    """calibration.completed as the owner may read it: leads the exact time it was
    computed, others (who read their own row only) the day, as the API shows them."""
    if is_lead(owner) or not ids.get("computed_at"):
        return {**ids, **details}
    return {**ids, **details, "computed_at": str(ids["computed_at"])[:10]}
