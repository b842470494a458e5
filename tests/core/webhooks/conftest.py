"""A loopback receiver, subscriptions to it, and a loop to make events with."""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from core.webhooks import services
from core.webhooks.models import EventType, WebhookSubscription
from tests.core.webhooks.receiver import Receiver, receiving
from tests.support.loops import Built, Seat, build_loop


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as running:
        yield running


@pytest.fixture
def subscribe(recruiter: User, receiver: Receiver):  # type: ignore[no-untyped-def]
    """Subscribe the receiver (or `url`) to the given event types, owned by the recruiter
    (who reads everything the events carry) or `by`."""

    def make(
        *kinds: str,
        include_details: bool = False,
        url: str = "",
        active: bool = True,
        by: User | None = None,
    ) -> WebhookSubscription:
        return services.webhook_subscription_create(
            url=url or receiver.url,
            event_types=list(kinds) or EventType.values,
            include_details=include_details,
            active=active,
            by=by or recruiter,
        )

    return make


@pytest.fixture
def loop(recruiter: User, interviewer: User) -> Built:
    """A loop of one interview, Ines on its panel; the candidate has contact details."""
    return build_loop(seats=[Seat(interviewers=[interviewer])], recruiter=recruiter)
