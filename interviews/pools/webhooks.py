"""What webhooks say about a graduation: ids only, to owners who may see its pool."""

from typing import Any

from django.contrib.auth.models import User

from interviews.pools.selectors import pools_visible_to


def read_graduation(
    owner: User, ids: dict[str, Any], details: dict[str, Any]
) -> dict[str, Any] | None:
    """interviewer.graduated as the owner may read it now: its ids if they see the pool
    in the API (keepers, and the pool's members), else nothing."""
    if not pools_visible_to(owner).filter(pk=ids.get("pool_id") or 0).exists():
        return None
    return dict(ids)
