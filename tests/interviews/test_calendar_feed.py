"""GET /calendar/<token>.ics: a person's private feed, made and revoked on /account/.

Parsed back with `icalendar`: one VEVENT per timed seat in an open loop, with the UID
of that seat's invites, in the holder's zone; any other address answers 404.
"""

import hashlib
import re
import zoneinfo
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from core.accounts.models import Profile
from core.models import AuditEvent
from interviews import services
from interviews.invites import seat_uid
from interviews.models import Interview, Loop, Panelist
from scoring.scorecards.closing import loop_cancel

ACCOUNT = reverse("core:account")
LONDON = zoneinfo.ZoneInfo("Europe/London")


@pytest.fixture
def ines(client, interviewer):  # type: ignore[no-untyped-def]
    Profile.objects.create(user=interviewer, time_zone="Europe/London")
    client.force_login(interviewer)
    return client


@pytest.fixture
def seats(world, recruiter, interviews, interviewer, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Ines on both interviews of the loop (timed) and on one of a cancelled loop; an
    untimed interview of a third loop too. Return her invites' UIDs and the timed ones."""
    start = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    cancelled = services.loop_create(
        candidate=services.candidate_create(name="Robin Other"), role=world.role, level=world.level
    )
    untimed = services.loop_create(
        candidate=services.candidate_create(name="Sam Third"), role=world.role, level=world.level
    )
    timed = [*interviews, cancelled.interviews.order_by("order")[0]]
    with django_capture_on_commit_callbacks(execute=True):
        for n, interview in enumerate(timed):
            begins = start + timedelta(hours=2 * n)
            services.interview_update(
                interview=interview,
                interviewers=[interviewer],
                scheduled_start=begins,
                scheduled_end=begins + timedelta(minutes=45),
            )
        services.interview_update(
            interview=untimed.interviews.order_by("order")[0],
            interviewers=[interviewer],
            scheduled_start=None,
            scheduled_end=None,
        )
        loop_cancel(loop=cancelled, by=recruiter, reason="The candidate withdrew.")
    uids = {
        str(event["UID"])
        for message in mail.outbox
        for _, content, _ in message.attachments
        for event in Calendar.from_ical(content).walk("VEVENT")
        if Calendar.from_ical(content)["METHOD"] == "REQUEST"
    }
    return uids, [Interview.objects.get(pk=i.pk) for i in interviews]


def feed_url(response) -> str:  # type: ignore[no-untyped-def]
    found = re.search(r'<code id="calendar-feed-url">([^<]+)</code>', response.content.decode())
    assert found, "the new feed address is shown"
    return found.group(1)


def fetch(url: str):  # type: ignore[no-untyped-def]
    assert url.startswith("http://testserver/calendar/") and url.endswith(".ics")
    return Client().get(url.removeprefix("http://testserver"))


def test_the_feed_lists_each_timed_seat_in_open_loops_with_the_invites_uids(
    ines, interviewer, seats
):
    uids, timed = seats
    response = ines.post(ACCOUNT, {"action": "feed"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]  # the address is shown on it
    got = fetch(feed_url(response))
    assert got.status_code == 200
    assert got["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = Calendar.from_ical(got.content)
    assert "METHOD" not in calendar
    events = calendar.walk("VEVENT")
    expected = [seat_uid(interview_id=i.pk, user_id=interviewer.pk) for i in timed]
    assert [str(e["UID"]) for e in events] == expected
    # The same calendar entries as the emailed invites (not the cancelled loop's).
    assert set(expected) < uids
    for event, interview in zip(events, timed, strict=True):
        assert event.decoded("DTSTART") == interview.scheduled_start
        assert event.decoded("DTEND") == interview.scheduled_end
        assert event.decoded("DTSTART").tzinfo.key == "Europe/London"
        assert event["SEQUENCE"] == interview.invite_sequence
        assert event["STATUS"] == "CONFIRMED"
    event = AuditEvent.objects.get(action="calendar_feed.created")
    assert event.actor == interviewer and event.target == "user ines"
    assert event.data == {"replaced": False}


def test_the_database_keeps_only_a_hash_of_the_feed_secret(ines, interviewer, seats):
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    secret = url.removeprefix("http://testserver/calendar/").removesuffix(".ics")

    stored = Profile.objects.get(user=interviewer).calendar_token_hash
    assert stored == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(list(Profile.objects.values()))
    assert secret not in str(list(AuditEvent.objects.values()))
    # Shown once: the account page does not show it again.
    assert secret not in ines.get(ACCOUNT).content.decode()
    assert fetch(url).status_code == 200


def test_a_revoked_feed_answers_404(ines, interviewer, seats):
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    response = ines.post(ACCOUNT, {"action": "feed-revoke"})
    assert response.status_code == 302 and response.url == ACCOUNT
    assert fetch(url).status_code == 404
    assert Profile.objects.get(user=interviewer).calendar_token_hash == ""
    (event,) = AuditEvent.objects.filter(action="calendar_feed.revoked")
    assert event.actor == interviewer and event.target == "user ines"
    # Revoking again changes nothing and records nothing.
    ines.post(ACCOUNT, {"action": "feed-revoke"})
    assert AuditEvent.objects.filter(action="calendar_feed.revoked").count() == 1


def test_a_wrong_token_answers_404(ines, seats):
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    token = url.rsplit("/", 1)[1].removesuffix(".ics")
    assert (
        Client().get(reverse("interviews:calendar-feed", args=[token[:-1] + "x"])).status_code
        == 404
    )
    assert Client().get(reverse("interviews:calendar-feed", args=["x" * 200])).status_code == 404
    assert Client().get("/calendar/.ics").status_code == 404


def test_a_deactivated_persons_feed_answers_404(ines, interviewer, seats):
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    interviewer.is_active = False
    interviewer.save(update_fields=["is_active"])
    assert fetch(url).status_code == 404


def test_a_new_address_replaces_the_old(ines, seats):
    old = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    page = ines.get(ACCOUNT).content.decode()
    assert 'id="calendar-feed-url"' not in page  # shown once
    assert "You have a feed address." in page
    new = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    assert new != old
    assert fetch(old).status_code == 404
    assert fetch(new).status_code == 200
    created = AuditEvent.objects.filter(action="calendar_feed.created").order_by("id")
    assert [e.data["replaced"] for e in created] == [False, True]


def test_a_seat_taken_away_or_a_loop_closed_leaves_the_feed(
    ines, interviewer, other_interviewer, recruiter, seats
):
    _, (first, second) = seats
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    services.interview_update(
        interview=first,
        interviewers=[other_interviewer],
        scheduled_start=first.scheduled_start,
        scheduled_end=first.scheduled_end,
    )
    events = Calendar.from_ical(fetch(url).content).walk("VEVENT")
    assert [str(e["UID"]) for e in events] == [
        seat_uid(interview_id=second.pk, user_id=interviewer.pk)
    ]
    loop_cancel(loop=Loop.objects.get(pk=second.loop_id), by=recruiter, reason="Withdrew.")
    assert Calendar.from_ical(fetch(url).content).walk("VEVENT") == []


def test_the_feed_takes_no_post(ines, interviewer, seats):
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"}))
    assert Client().post(url.removeprefix("http://testserver")).status_code == 405


def test_the_feed_costs_a_fixed_number_of_queries_however_many_seats(
    ines, world, interviewer, other_interviewer, django_assert_max_num_queries
):
    start = (timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    seats = []
    for n in range(15):  # two interviews a loop: 30 seats, each on a panel of two
        loop = services.loop_create(
            candidate=services.candidate_create(name=f"Candidate {n}"),
            role=world.role,
            level=world.level,
        )
        for interview in loop.interviews.all():
            begins = start + timedelta(hours=len(seats))
            Interview.objects.filter(pk=interview.pk).update(
                scheduled_start=begins, scheduled_end=begins + timedelta(minutes=45)
            )
            seats.append(Panelist(interview=interview, user=interviewer))
            seats.append(Panelist(interview=interview, user=other_interviewer))
    Panelist.objects.bulk_create(seats)
    url = feed_url(ines.post(ACCOUNT, {"action": "feed"})).removeprefix("http://testserver")
    anonymous = Client()
    # 1 the profile the token opens, with its user; 2 the interviews, with loop and
    # candidate; 3 their panels; 4 the panels' users; 5 the holder's time zone.
    with django_assert_max_num_queries(5):
        response = anonymous.get(url)
    assert response.status_code == 200
    assert len(Calendar.from_ical(response.content).walk("VEVENT")) == 30
