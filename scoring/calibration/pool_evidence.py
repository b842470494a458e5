"""What a training path may ask of calibration (interviews.pools.evidence), read here
because interviews may not import scoring. Registered from ScoringConfig.ready; the
exercise a path asks for is read by scoring/exercises/pool_evidence.py.

* severity: their row in the newest role-wide snapshot of the pool's role: how many
  ratings it rests on, its flag, and the period it describes.
"""

from typing import Any

from django.contrib.auth.models import User

from interviews.pools.models import Pool
from scoring.models import CalibrationSnapshot


def severity(user_id: int, pool: Pool, min_ratings: int) -> dict[str, Any] | None:
    """Return the user's ratings count, flag and period in the newest snapshot of the
    pool's role, or None when there is none (or the pool has no role)."""
    if pool.role_id is None:
        return None
    snapshot = (
        CalibrationSnapshot.objects.filter(role_id=pool.role_id, level=None)
        .order_by("-computed_at", "-id")
        .first()
    )
    if snapshot is None:
        return None
    username = User.objects.filter(pk=user_id).values_list("username", flat=True).first()
    row = next(
        (r for r in snapshot.result.get("interviewers", []) if r.get("interviewer") == username),
        None,
    )
    return {
        "snapshot_id": snapshot.pk,
        "ratings": (row or {}).get("ratings", 0),
        "flag": (row or {}).get("flag"),
        "period": snapshot.result.get("period") or snapshot.result.get("scope"),
    }


def register() -> None:
    from interviews.pools.evidence import provider_register

    provider_register("severity", severity)
