"""When an interview may be given a time: the rule the loop page and the API share.

A recruiter may not book an interview in the past. The rule looks at the start only,
and at whether it changes:

=========================================  ====================================
start asked for                            outcome
=========================================  ====================================
none (the interview stays unscheduled)     allowed
the interview's start as it is now         allowed, even if past (already held)
a new or changed start, now or later       allowed
a new or changed start before now          refused, ``time_in_past``
=========================================  ====================================

interviews.services.interview_update itself accepts any time: fixtures, imports and the
scoring tests record interviews already held through it. Every write a person makes
(the loop page, ``PUT /api/v1/interviews/{id}/``) comes through here.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.api.exceptions import ApplicationError
from interviews import services
from interviews.models import Interview, Loop


def same_time(a: datetime | None, b: datetime | None) -> bool:
    """Whether two times are one to the second: a form shows and sends back whole
    seconds, and an unchanged time must read as unchanged."""
    if a is None or b is None:
        return a is b
    return a.replace(microsecond=0) == b.replace(microsecond=0)


def time_check(
    *, interview: Interview, scheduled_start: datetime | None, now: datetime | None = None
) -> None:
    """Refuse a new or changed start before now (the table above)."""
    if scheduled_start is None or same_time(scheduled_start, interview.scheduled_start):
        return
    now = now or timezone.now()
    if scheduled_start < now:
        shown = timezone.localtime(scheduled_start)
        raise ApplicationError(
            f"{shown:%a %d %b %H:%M %Z} is in the past: pick a start from now on.",
            code="time_in_past",
        )


@transaction.atomic
def interview_schedule(
    *,
    interview: Interview,
    interviewers: Sequence[User],
    shadow: User | None = None,
    scheduled_start: datetime | None = None,
    scheduled_end: datetime | None = None,
) -> Interview:
    """Set an interview's panel and time as a person asks: interview_update, past times refused."""
    time_check(interview=interview, scheduled_start=scheduled_start)
    return services.interview_update(
        interview=interview,
        interviewers=interviewers,
        shadow=shadow,
        scheduled_start=scheduled_start,
        scheduled_end=scheduled_end,
    )


@dataclass(frozen=True)
class Plan:
    """One interview's panel and time as the loop page's form asks for them."""

    interview: Interview
    interviewers: Sequence[User]
    shadow: User | None = None
    scheduled_start: datetime | None = None
    scheduled_end: datetime | None = None

    @property
    def changed(self) -> bool:
        """Whether this asks for anything the interview does not have (reads the
        prefetched panel)."""
        seats = [seat for seat in self.interview.panel.all() if seat.cancelled_at is None]
        return (
            {u.pk for u in self.interviewers} != {s.user_id for s in seats if not s.is_shadow}
            or len({u.pk for u in self.interviewers}) != len(self.interviewers)
            or (self.shadow.pk if self.shadow else None)
            != next((s.user_id for s in seats if s.is_shadow), None)
            or self.moves
        )

    @property
    def moves(self) -> bool:
        """Whether this asks for another start or end than the interview has."""
        return not same_time(self.scheduled_start, self.interview.scheduled_start) or not (
            same_time(self.scheduled_end, self.interview.scheduled_end)
        )


class Refused(Exception):
    """One interview of a loop_schedule was refused; nothing of the batch was saved."""

    def __init__(self, interview: Interview, error: ApplicationError | ValidationError) -> None:
        super().__init__(str(error))
        self.interview = interview
        self.error = error


@transaction.atomic
def loop_schedule(*, loop: Loop, plans: Sequence[Plan]) -> list[Interview]:
    """Set the panels and times of a loop's interviews, all or nothing; return those changed.

    1. Skip each plan that asks for what its interview has already: an interview the
       recruiter did not touch is neither re-saved (no invites go out again) nor
       refused for what it lacks (an empty panel in a draft).
    2. Lift the times of the interviews being moved off the calendar first, so the
       batch is checked as a whole: two interviews trading times is no clash, since
       neither keeps its old time. The interviews in hand keep their old times, so
       the past-time rule and the notices still see what changed.
    3. Save the changed plans in order through interview_schedule, so each is checked
       against the ones saved before it (the candidate is not in two of them at once)
       and against everything not moving.
    4. The first refusal raises Refused naming its interview; the transaction rolls
       back the interviews saved before it, the lifted times and the notices.
    """
    for plan in plans:
        if plan.interview.loop_id != loop.pk:
            raise ValueError(f"interview {plan.interview.pk} is not in loop {loop.pk}")
    changed = [plan for plan in plans if plan.changed]
    moving = [plan.interview.pk for plan in changed if plan.moves]
    if len(moving) > 1:
        Interview.objects.filter(pk__in=moving).update(scheduled_start=None, scheduled_end=None)
    done: list[Interview] = []
    for plan in changed:
        try:
            done.append(
                interview_schedule(
                    interview=plan.interview,
                    interviewers=plan.interviewers,
                    shadow=plan.shadow,
                    scheduled_start=plan.scheduled_start,
                    scheduled_end=plan.scheduled_end,
                )
            )
        except (ApplicationError, ValidationError) as exc:
            raise Refused(plan.interview, exc) from exc
    if done:
        # Each save judged the loop's status while later ones were still lifted.
        loop.refresh_from_db(fields=["status"])
        services.loop_refresh_status(loop=loop)
    return done
