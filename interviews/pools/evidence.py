"""Evidence a training path may ask for beyond its seats, supplied by the scoring app.

interviews may not import scoring (kit <- interviews <- scoring), so scoring registers
a provider per requirement from its AppConfig.ready, as it registers webhook readers:

* ``calibration``: (user id, pool) -> the best closed calibration exercise on the
  pool's questions as {"exercise_id", "gap"} (mean distance from the key), or None;
* ``severity``: (user id, pool, min ratings) -> {"ratings", "flag", "period"} for the
  current period, or None when there is no snapshot to read.

A requirement whose provider is missing is unmet, and says so.
"""

from collections.abc import Callable
from typing import Any

from interviews.pools.models import Pool

Provider = Callable[..., dict[str, Any] | None]

_providers: dict[str, Provider] = {}


def provider_register(name: str, provider: Provider) -> None:
    _providers[name] = provider


def calibration(user_id: int, pool: Pool) -> dict[str, Any] | None:
    provider = _providers.get("calibration")
    return provider(user_id, pool) if provider else None


def severity(user_id: int, pool: Pool, min_ratings: int) -> dict[str, Any] | None:
    provider = _providers.get("severity")
    return provider(user_id, pool, min_ratings) if provider else None
