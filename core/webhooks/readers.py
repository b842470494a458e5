"""What a subscription's owner may read of an event, decided at each delivery.

A subscription reads only what its owner may read in the API, with their rights at
the moment of the delivery (not when they subscribed):

===================================== ================================================
the owner                             a delivery carries
===================================== ================================================
gone, or deactivated                  nothing: the delivery is withheld
may not read the event's subject      nothing: the delivery is withheld
(a card they may not read, blind
included; a loop they may not see)
may read it                           the event's ids
... and is a recruiter or holds       ... and, for a subscription that includes
``core.webhook_details``              details, the details they may read there
                                      (contact details; a card's free text only if
                                      they may read the card, blind rule included)
===================================== ================================================

The domain apps know who may read their objects, and core may not import them: each
registers a reader per event kind (reader_register, from its AppConfig.ready). A kind
without a reader carries its ids and never its details.
"""

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User

from core.permissions import is_recruiter
from core.webhooks.models import WebhookEvent

DETAILS_PERMISSION = "core.webhook_details"

# (owner, the event's ids, the details the owner may be given) -> the event's data as
# the owner may read it, or None when they may not read the event at all.
Reader = Callable[[User, dict[str, Any], dict[str, Any]], dict[str, Any] | None]

_readers: dict[str, Reader] = {}


def reader_register(kind: str, reader: Reader) -> None:
    _readers[kind] = reader


def may_receive_details(user: User | None) -> bool:
    """Whether a user may have contact details and free text in webhooks: those who
    read them in the API (recruiters), or staff given the explicit permission."""
    if user is None or not user.is_active:
        return False
    return is_recruiter(user) or user.has_perm(DETAILS_PERMISSION)


def data_for(
    *, event: WebhookEvent, owner: User | None, include_details: bool
) -> dict[str, Any] | None:
    """Return the event's `data` as the owner may read it now, or None to withhold it."""
    if owner is None or not owner.is_active:
        return None
    wanted = include_details and may_receive_details(owner)
    details = dict(event.details) if wanted else {}
    reader = _readers.get(event.kind)
    if reader is None:
        return dict(event.payload)
    return reader(owner, dict(event.payload), details)
