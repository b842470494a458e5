"""Who is busy when: the one clash rule that booking a time (interviews.services) and
proposing a panel (interviews.pools) both ask.

=========================================  =====================================
two times                                  clash?
=========================================  =====================================
overlapping (each starts before the        yes
other ends)
back to back (one ends as the other        no
starts)
either one unscheduled                     no: an unscheduled interview is nowhere
=========================================  =====================================

Only seats of open loops hold anyone: a decided or cancelled loop's interviews (and
its cancelled seats) keep nobody busy and the candidate free.
"""

from collections.abc import Collection, Iterable
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import QuerySet

from interviews.models import Interview, Loop, Panelist


def overlaps(start: datetime, end: datetime, other_start: datetime, other_end: datetime) -> bool:
    """Whether two times clash (the table above): each starts before the other ends."""
    return start < other_end and other_start < end


def busy_in(seats: Iterable[tuple[datetime, datetime]], start: datetime, end: datetime) -> bool:
    """Whether any of these (start, end) seats clashes with the time."""
    return any(overlaps(start, end, s, e) for s, e in seats)


def seats_holding(
    *, user_ids: Collection[int], start: datetime, end: datetime
) -> QuerySet[Panelist]:
    """The people's seats that keep them busy at some moment between start and end."""
    return Panelist.objects.filter(
        user_id__in=user_ids,
        cancelled_at=None,
        interview__scheduled_start__lt=end,
        interview__scheduled_end__gt=start,
    ).exclude(interview__loop__status__in=Loop.CLOSED)


def candidate_clash(interview: Interview, start: datetime, end: datetime) -> Interview | None:
    """The candidate's first other interview (in any open loop) clashing with the time."""
    return (
        Interview.objects.filter(
            scheduled_start__lt=end,
            scheduled_end__gt=start,
            loop__candidate_id=interview.loop.candidate_id,
        )
        .exclude(loop__status__in=Loop.CLOSED)
        .exclude(pk=interview.pk)
        .order_by("scheduled_start")
        .first()
    )


def busy_seat(
    interview: Interview, people: Iterable[User], start: datetime, end: datetime
) -> Panelist | None:
    """The first seat elsewhere that keeps one of the people busy at the time."""
    return (
        seats_holding(user_ids=[u.pk for u in people], start=start, end=end)
        .exclude(interview=interview)
        .select_related("user", "interview__loop__candidate")
        .order_by("interview__scheduled_start")
        .first()
    )
