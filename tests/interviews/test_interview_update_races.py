"""PUT /api/v1/interviews/{id}/ under concurrency: two bookings of the same time at once
(transactional, on PostgreSQL; kept apart from test_interview_update.py's rolled-back tests)."""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from core.api.exceptions import ApplicationError
from interviews import services
from interviews.models import Panelist
from tests.conftest import at_once, need
from tests.support.loops import World

START = (timezone.now() + timedelta(days=7)).replace(microsecond=0)
END = START + timedelta(minutes=45)


@pytest.fixture
def world(world_per_test: World) -> World:
    """Built for each test: these tests commit (tests/interviews/conftest.py)."""
    return world_per_test


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["interviewer", "candidate"])
def test_two_bookings_at_once_cannot_both_take_the_same_time(
    who, recruiter, interviewer, other_interviewer, interviews, elsewhere, world, monkeypatch
):
    # Each booking checks for clashes, then (slowly) writes: without a lock both would
    # pass the check before either wrote. The second must wait for the first and be refused.
    need("PostgreSQL", connection.vendor == "postgresql")
    if who == "candidate":  # the same candidate in two open loops, different interviewers
        second = services.loop_create(
            candidate=world.candidate,
            role=world.role,
            level=world.level,
            by=recruiter,
            allow_duplicate=True,
        )
        targets = [
            (interviews[0], interviewer),
            (second.interviews.order_by("order")[0], other_interviewer),
        ]
    else:  # two candidates, the same interviewer
        targets = [(interviews[0], interviewer), (elsewhere, interviewer)]
    checked = services._check_clashes

    def slow_check(*args, **kwargs):  # type: ignore[no-untyped-def]
        checked(*args, **kwargs)
        time.sleep(0.3)

    monkeypatch.setattr(services, "_check_clashes", slow_check)

    def book(interview, person):  # type: ignore[no-untyped-def]
        def call() -> str:
            try:
                services.interview_update(
                    interview=interview, interviewers=[person], scheduled_start=START,
                    scheduled_end=END,
                )  # fmt: skip
            except ApplicationError as exc:
                return exc.message
            return "booked"

        return call

    outcomes = at_once([book(*target) for target in targets])

    assert outcomes.count("booked") == 1
    (refusal,) = [outcome for outcome in outcomes if outcome != "booked"]
    expected = "the candidate cannot be in two interviews" if who == "candidate" else "already on"
    assert expected in refusal
    booked = Panelist.objects.filter(
        interview__scheduled_start__lt=END, interview__scheduled_end__gt=START
    )
    assert booked.count() == 1
