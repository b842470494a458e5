"""Standard Webhooks signing (https://www.standardwebhooks.com): secrets, event ids and
the three headers of a delivery.

The signature is `v1,` + base64(HMAC-SHA256(secret bytes, "{id}.{timestamp}.{body}")),
computed by the specification's own Python library, so any of its libraries verifies it.
"""

import base64
import secrets
from datetime import UTC, datetime

from standardwebhooks import Webhook

SECRET_PREFIX = "whsec_"


def secret_new() -> str:
    """Return a new signing secret: "whsec_" + base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def event_id_new() -> str:
    """Return a new event id, "evt_" + 24 hex digits (96 random bits)."""
    return f"evt_{secrets.token_hex(12)}"


def signature(*, secret: str, event_id: str, timestamp: int, body: str) -> str:
    """Return the `webhook-signature` value of `body` sent as `event_id` at `timestamp`."""
    # The library reads the datetime as UTC whatever its zone: give it one in UTC.
    return Webhook(secret).sign(event_id, datetime.fromtimestamp(timestamp, tz=UTC), body)


def headers(*, secret: str, event_id: str, timestamp: int, body: str) -> dict[str, str]:
    """Return the Standard Webhooks headers of a delivery of `body`."""
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(
            secret=secret, event_id=event_id, timestamp=timestamp, body=body
        ),
    }
