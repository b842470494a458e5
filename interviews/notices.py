"""Who is told what when a panel, a time or a loop changes: emails with calendar invites.

Called by the services that make the change, inside their transaction; the emails go
out after it commits (core.outbox). Every seat's invite is one calendar entry
(interviews.invites): put on a panel, REQUEST; the time or the panel changes, REQUEST
again with a higher SEQUENCE; taken off, or the loop closes, CANCEL.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import F
from django.utils import timezone

from core.accounts.models import Notice, Profile
from core.accounts.services import profiles_of
from core.accounts.zones import zone_of
from core.outbox.services import email_queue
from interviews import invites
from interviews.models import Interview, Loop, Panelist


@dataclass(frozen=True)
class PanelBefore:
    """An interview's panel and time before a change, read before it is made."""

    seats: dict[int, bool]  # user id -> shadow
    start: datetime | None
    end: datetime | None

    @classmethod
    def of(cls, interview: Interview) -> "PanelBefore":
        seats = dict(
            Panelist.objects.filter(interview=interview, cancelled_at=None).values_list(
                "user_id", "is_shadow"
            )
        )
        return cls(seats=seats, start=interview.scheduled_start, end=interview.scheduled_end)


def _reloaded(interview: Interview) -> Interview:
    return (
        Interview.objects.select_related("loop__candidate")
        .prefetch_related("panel__user")
        .get(pk=interview.pk)
    )


def _tell(
    interview: Interview,
    user: User,
    profile: Profile,
    kind: Notice,
    method: str,
    **context: object,
) -> None:
    timed = interview.scheduled_start is not None and interview.scheduled_end is not None
    ics = ""
    if timed and method:
        zone = zone_of(user, profile)
        ics = invites.seat_invite(interview=interview, user=user, method=method, zone=zone)
    email_queue(
        user=user,
        profile=profile,
        kind=kind,
        template=kind.value,
        context={"interview": interview, "loop": interview.loop, "timed": timed, **context},
        ics=ics,
        ics_method=method if ics else "",
        loop_id=interview.loop_id,
    )


def panel_changed(*, interview: Interview, before: PanelBefore) -> None:
    """Tell everyone concerned about a change of `interview`'s panel or time.

    1. Nothing changed: nobody is told and the SEQUENCE stays.
    2. Otherwise the SEQUENCE goes up once; people taken off get a CANCEL, people put
       on a REQUEST, and people who stay a REQUEST (or a CANCEL if the time was removed).
    """
    after = dict(
        Panelist.objects.filter(interview=interview, cancelled_at=None).values_list(
            "user_id", "is_shadow"
        )
    )
    moved = (before.start, before.end) != (interview.scheduled_start, interview.scheduled_end)
    if after == before.seats and not moved:
        return
    Interview.objects.filter(pk=interview.pk).update(invite_sequence=F("invite_sequence") + 1)
    interview = _reloaded(interview)
    people = User.objects.in_bulk([*before.seats, *after])
    profiles = profiles_of(people.values())  # one query for the whole panel
    had_time = before.start is not None
    timed = interview.scheduled_start is not None
    for user_id in before.seats.keys() - after.keys():
        method = invites.CANCEL if had_time else ""
        _tell(interview, people[user_id], profiles[user_id], Notice.PANEL_REMOVED, method)
    for user_id in after.keys() - before.seats.keys():
        _tell(
            interview,
            people[user_id],
            profiles[user_id],
            Notice.PANEL_ADDED,
            invites.REQUEST,
            shadow=after[user_id],
        )
    for user_id in after.keys() & before.seats.keys():
        method = invites.REQUEST if timed else (invites.CANCEL if had_time else "")
        _tell(
            interview, people[user_id], profiles[user_id], Notice.PANEL_CHANGED, method, moved=moved
        )


def seats_cancelled(*, seats: Iterable[Panelist], reason: str) -> None:
    """Send a CANCEL for each seat just cancelled (its loop closed) whose interview had not
    ended; raise the SEQUENCE of each interview concerned first."""
    by_interview: dict[int, list[Panelist]] = {}
    for seat in seats:
        by_interview.setdefault(seat.interview_id, []).append(seat)
    profiles = profiles_of(seat.user for held in by_interview.values() for seat in held)
    now = timezone.now()
    for interview_id, held in by_interview.items():
        Interview.objects.filter(pk=interview_id).update(invite_sequence=F("invite_sequence") + 1)
        interview = _reloaded(Interview(pk=interview_id))
        if interview.scheduled_end is not None and interview.scheduled_end <= now:
            continue  # it happened; a cancellation would only confuse calendars
        for seat in held:
            _tell(
                interview,
                seat.user,
                profiles[seat.user_id],
                Notice.PANEL_REMOVED,
                invites.CANCEL,
                reason=reason,
            )


def loop_decided(*, loop: Loop) -> None:
    """Tell the loop's panel (shadows too, once each) the decision."""
    users = {
        seat.user_id: seat.user
        for seat in Panelist.objects.filter(interview__loop=loop).select_related("user")
    }
    profiles = profiles_of(users.values())
    for user in users.values():
        email_queue(
            user=user,
            profile=profiles[user.pk],
            kind=Notice.LOOP_DECIDED,
            template=Notice.LOOP_DECIDED.value,
            context={"loop": loop},
            loop_id=loop.pk,
        )
