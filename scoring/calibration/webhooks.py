"""What webhooks say about a calibration (core.webhooks delivers it).

calibration.completed carries the stored snapshot's ids and scope, never its rows:
a receiver reads those through the API (/api/v1/calibration/latest/).
"""

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
