"""The shared cache (Redis behind CACHE_URL) that degrades instead of failing.

The cache holds nothing the service cannot lose: the API's rate-limit counts. So when
its Redis is unreachable, every cache call goes to this process's memory instead
(limits still apply, per process) and the outage is logged, not raised: a stopped
Redis had every API call, the token endpoint included, answer 500.

1. Short socket timeouts and a single retry (for a pooled connection Redis closed
   when it restarted), so a Redis that is down costs milliseconds, not seconds.
2. After a failure the process stops asking Redis for RETRY_SECONDS (shared by its
   threads), then tries again: service comes back without a restart.
3. A warning when the cache is lost (at most one a minute), a line when it is back.

`/readyz/` asks Redis itself (`ping`), so it names the cache while it is down.
"""

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger(__name__)

# Seconds. A Redis on the same network answers in well under a millisecond.
CONNECT_TIMEOUT = 0.25
READ_TIMEOUT = 0.5
RETRY_SECONDS = 5.0
WARN_EVERY_SECONDS = 60.0
UNREACHABLE = (RedisConnectionError, RedisTimeoutError)


class _Outage:
    """Whether a Redis is being skipped, shared by every thread of the process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.skip_until = 0.0
        self.down = False
        self.warned_at = -WARN_EVERY_SECONDS

    def skipping(self) -> bool:
        return time.monotonic() < self.skip_until

    def failed(self, location: str, error: Exception) -> None:
        with self.lock:
            now = time.monotonic()
            self.skip_until = now + RETRY_SECONDS
            self.down = True
            if now - self.warned_at < WARN_EVERY_SECONDS:
                return
            self.warned_at = now
        log.warning(
            "cache unreachable at %s (%s): rate limits and other cache uses fall back to "
            "this process's memory; trying again every %.0f s",
            location,
            error,
            RETRY_SECONDS,
        )

    def answered(self, location: str) -> None:
        if not self.down:
            return
        with self.lock:
            was_down, self.down = self.down, False
        if was_down:
            log.warning("cache reachable again at %s: using it", location)


_outages: dict[str, _Outage] = {}
_outages_lock = threading.Lock()


def _outage_of(location: str) -> _Outage:
    with _outages_lock:
        return _outages.setdefault(location, _Outage())


class FallbackRedisCache(RedisCache):
    """Django's Redis cache, falling back to process memory while Redis is unreachable."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = {
            "socket_connect_timeout": CONNECT_TIMEOUT,
            "socket_timeout": READ_TIMEOUT,
            "retry": Retry(NoBackoff(), 1),
            **params.get("OPTIONS", {}),
        }
        super().__init__(server, {**params, "OPTIONS": options})
        self._location = server
        self._outage = _outage_of(server)
        # LocMemCache instances with one name share their storage: Django makes a cache
        # object per thread, and the threads of a process must count together.
        self._local = LocMemCache(f"fallback:{server}", {"TIMEOUT": params.get("TIMEOUT", 300)})

    def ping(self) -> None:
        """Ask Redis itself, never the fallback; raise if it does not answer."""
        self._cache.get_client(write=True).ping()
        self._outage.answered(self._location)

    def _either(self, name: str, *args: Any, **kwargs: Any) -> Any:
        local: Callable[..., Any] = getattr(self._local, name)
        if self._outage.skipping():
            return local(*args, **kwargs)
        try:
            result = getattr(RedisCache, name)(self, *args, **kwargs)
        except UNREACHABLE as error:
            self._outage.failed(self._location, error)
            return local(*args, **kwargs)
        self._outage.answered(self._location)
        return result

    def add(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("add", *args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("get", *args, **kwargs)

    def set(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("set", *args, **kwargs)

    def touch(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("touch", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("delete", *args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("get_many", *args, **kwargs)

    def has_key(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("has_key", *args, **kwargs)

    def incr(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("incr", *args, **kwargs)

    def set_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("set_many", *args, **kwargs)

    def delete_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("delete_many", *args, **kwargs)

    def clear(self) -> Any:
        return self._either("clear")
