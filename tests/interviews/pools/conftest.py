"""A pool for the small world's "Serving" slot, people in it, and a scheduled loop."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User

from core.accounts.models import Profile
from core.permissions import INTERVIEWER
from interviews.models import Interview, Loop
from interviews.pools import services
from interviews.pools.models import InterviewerLimits, Pool
from tests.conftest import make_user

# A Tuesday three weeks ahead, 12:00-12:45 UTC (14:00 in Berlin), whenever the suite runs.
_today = datetime.now(UTC).date()
TUESDAY = _today + timedelta(days=21 + (1 - _today.weekday()) % 7)
START = datetime(TUESDAY.year, TUESDAY.month, TUESDAY.day, 12, 0, tzinfo=UTC)
END = START + timedelta(minutes=45)


def interviewer_in(username: str, zone: str = "Europe/Berlin", **limits: int) -> User:
    user = make_user(username, INTERVIEWER, first_name=username.title())
    Profile.objects.create(user=user, time_zone=zone)
    if limits:
        InterviewerLimits.objects.create(user=user, **limits)
    return user


@pytest.fixture
def scheduled(interviews: list[Interview]) -> list[Interview]:
    """Both interviews of the loop booked: Serving 12:00-12:45, Training 13:00-13:45 UTC."""
    for n, interview in enumerate(interviews):
        interview.scheduled_start = START + timedelta(hours=n)
        interview.scheduled_end = END + timedelta(hours=n)
        interview.save()
    return interviews


@pytest.fixture
def pool(loop: Loop, recruiter: User) -> Pool:
    serving = loop.interviews.get(order=1).slot
    assert serving is not None
    return services.pool_create(name="Serving", slot=serving, by=recruiter)
