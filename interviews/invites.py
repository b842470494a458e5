"""Calendar invites (RFC 5545) for interview seats, and each person's calendar feed.

One event per seat: its UID names the interview and the person, so every invite for
that seat (the first, each change, the cancellation) updates one calendar entry, and
its SEQUENCE is the interview's `invite_sequence`, raised with every change. Times are
written in the recipient's zone (TZID, with its VTIMEZONE), so the invite says what
the email says.
"""

import zoneinfo
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar, Event, vCalAddress, vText

from interviews.models import Interview

PRODID = "-//Interview Kit//interviews//EN"
REQUEST, CANCEL = "REQUEST", "CANCEL"


def seat_uid(*, interview_id: int, user_id: int) -> str:
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"interview-{interview_id}-person-{user_id}@{host}"


def _name(user: User) -> str:
    return user.get_full_name() or user.get_username()


def _address(user: User) -> vCalAddress:
    address = vCalAddress(f"mailto:{user.email or user.get_username() + '@invalid'}")
    address.params["cn"] = vText(_name(user))
    return address


def _event(interview: Interview, user: User, zone: zoneinfo.ZoneInfo, *, cancelled: bool) -> Event:
    """Return the seat's VEVENT; `interview` has its loop's candidate and its panel's
    users loaded."""
    assert interview.scheduled_start and interview.scheduled_end  # only timed seats get one
    event = Event()
    event.add("uid", seat_uid(interview_id=interview.pk, user_id=user.pk))
    event.add("sequence", interview.invite_sequence)
    event.add("dtstamp", timezone.now())
    event.add("dtstart", interview.scheduled_start.astimezone(zone))
    event.add("dtend", interview.scheduled_end.astimezone(zone))
    event.add("summary", f"Interview: {interview.title} with {interview.loop.candidate.name}")
    kit = settings.SITE_URL + reverse("interviews:kit", args=[interview.pk])
    event.add("description", f"Your kit and scorecard: {kit}")
    event.add("url", kit)
    event.add("status", "CANCELLED" if cancelled else "CONFIRMED")
    event.add("transp", "OPAQUE")
    organizer = vCalAddress(f"mailto:{settings.DEFAULT_FROM_EMAIL}")
    organizer.params["cn"] = vText("Interview Kit")
    event.add("organizer", organizer)
    seats = [seat for seat in interview.panel.all() if seat.cancelled_at is None]
    people = [(seat.user, seat.is_shadow) for seat in seats]
    if user.pk not in {seat.user_id for seat in seats}:  # their cancellation: off the panel
        people.insert(0, (user, False))
    for person, shadow in people:
        attendee = _address(person)
        attendee.params["role"] = vText("OPT-PARTICIPANT" if shadow else "REQ-PARTICIPANT")
        attendee.params["partstat"] = vText("NEEDS-ACTION")
        attendee.params["rsvp"] = vText("FALSE")
        event.add("attendee", attendee, encode=False)
    return event


def _calendar(method: str | None) -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    if method:
        calendar.add("method", method)
    return calendar


def seat_invite(*, interview: Interview, user: User, method: str, zone: zoneinfo.ZoneInfo) -> str:
    """Return the invite (METHOD REQUEST) or cancellation (METHOD CANCEL) for `user`'s
    seat on `interview`, as iCalendar text."""
    calendar = _calendar(method)
    calendar.add_component(_event(interview, user, zone, cancelled=method == CANCEL))
    calendar.add_missing_timezones()
    return calendar.to_ical().decode()


def feed(*, user: User, interviews: Iterable[Interview], zone: zoneinfo.ZoneInfo) -> str:
    """Return `user`'s calendar feed: one event per timed seat they hold."""
    calendar = _calendar(None)
    calendar.add("x-wr-calname", "Interviews")
    calendar.add("x-wr-timezone", str(zone))
    for interview in interviews:
        calendar.add_component(_event(interview, user, zone, cancelled=False))
    calendar.add_missing_timezones()
    return calendar.to_ical().decode()
