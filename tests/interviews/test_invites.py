"""Calendar invites and panel emails: put on, moved, taken off, the loop closed.

Each email's invite is parsed back with `icalendar`: UID per seat, SEQUENCE rising,
METHOD, times in the recipient's zone, attendees.
"""

import zoneinfo
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from icalendar import Calendar

from core.accounts.models import Notice, Profile
from core.api.exceptions import ApplicationError
from core.outbox.models import OutgoingEmail
from interviews import notices, services
from interviews.invites import seat_uid
from interviews.models import Interview, Panelist
from tests.conftest import INTERVIEWER, make_user

LONDON, KOLKATA = zoneinfo.ZoneInfo("Europe/London"), zoneinfo.ZoneInfo("Asia/Kolkata")
START = (timezone.now() + timedelta(days=7)).replace(minute=0, second=0, microsecond=0)
END = START + timedelta(minutes=45)


def invite(message) -> tuple[Calendar, object]:  # type: ignore[no-untyped-def]
    ((name, content, mime),) = message.attachments
    assert name == "invite.ics" and mime == "application/ics"
    # The same calendar is the message's third alternative, with its METHOD (iMIP).
    (_html, (inline, inline_mime)) = message.alternatives
    assert inline == content.decode()
    calendar = Calendar.from_ical(content)
    assert inline_mime == f"text/calendar; method={calendar['METHOD']}; charset=utf-8"
    (event,) = calendar.walk("VEVENT")
    return calendar, event


def to(user):  # type: ignore[no-untyped-def]
    return [m for m in mail.outbox if m.to == [user.email]]


@pytest.fixture
def zones(interviewer, other_interviewer):  # type: ignore[no-untyped-def]
    Profile.objects.create(user=interviewer, time_zone="Europe/London")
    Profile.objects.create(user=other_interviewer, time_zone="Asia/Kolkata")


def schedule(interview: Interview, people, start=START, end=END, capture=None):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        services.interview_update(
            interview=interview, interviewers=people, scheduled_start=start, scheduled_end=end
        )


def test_a_panelist_put_on_an_interview_gets_a_request_in_their_own_zone(
    interviews, interviewer, other_interviewer, zones, commit
):
    first = interviews[0]
    schedule(first, [interviewer, other_interviewer], capture=commit)
    (london,) = to(interviewer)
    (kolkata,) = to(other_interviewer)
    calendar, event = invite(london)
    assert calendar["METHOD"] == "REQUEST"
    assert str(event["UID"]) == seat_uid(interview_id=first.pk, user_id=interviewer.pk)
    assert event["SEQUENCE"] == 1
    assert event.decoded("DTSTART") == START.astimezone(LONDON)
    assert str(event.decoded("DTSTART").tzinfo) == "Europe/London"
    assert event.decoded("DTEND") == END
    attendees = sorted(str(a) for a in event.get("ATTENDEE"))
    assert attendees == sorted(f"mailto:{u.email}" for u in (interviewer, other_interviewer))
    local = START.astimezone(KOLKATA)
    _, theirs = invite(kolkata)
    assert theirs.decoded("DTSTART").tzinfo.key == "Asia/Kolkata"
    # The email says the same local time as the invite, with the zone's abbreviation.
    assert f"{local:%H:%M}" in kolkata.body and "IST" in kolkata.body
    assert f"{local:%H:%M}" in kolkata.subject
    html = kolkata.alternatives[0]
    assert html[1] == "text/html" and first.title in html[0]
    # Sent emails keep no text in the outbox.
    assert not OutgoingEmail.objects.exclude(text="").exists()
    assert OutgoingEmail.objects.filter(sent_at=None).count() == 0


def test_a_move_updates_everyone_with_a_higher_sequence_and_one_uid_per_seat(
    interviews, interviewer, other_interviewer, zones, commit
):
    first = interviews[0]
    capture = commit
    schedule(first, [interviewer], capture=capture)
    mail.outbox.clear()
    later = START + timedelta(hours=2)
    schedule(first, [interviewer], start=later, end=later + timedelta(minutes=45), capture=capture)
    (moved,) = to(interviewer)
    calendar, event = invite(moved)
    assert calendar["METHOD"] == "REQUEST" and event["SEQUENCE"] == 2
    assert str(event["UID"]) == seat_uid(interview_id=first.pk, user_id=interviewer.pk)
    assert event.decoded("DTSTART") == later
    assert moved.subject.startswith("Moved:")


def test_the_same_panel_and_time_saved_again_sends_nothing(interviews, interviewer, zones, commit):
    first = interviews[0]
    schedule(first, [interviewer], capture=commit)
    mail.outbox.clear()
    schedule(first, [interviewer], capture=commit)
    assert mail.outbox == []
    first.refresh_from_db()
    assert first.invite_sequence == 1


def test_someone_taken_off_gets_a_cancel_and_the_one_put_on_a_request(
    interviews, interviewer, other_interviewer, zones, commit
):
    first = interviews[0]
    capture = commit
    schedule(first, [interviewer], capture=capture)
    mail.outbox.clear()
    schedule(first, [other_interviewer], capture=capture)
    (off,) = to(interviewer)
    calendar, event = invite(off)
    assert calendar["METHOD"] == "CANCEL" and event["STATUS"] == "CANCELLED"
    assert event["SEQUENCE"] == 2
    assert str(event["UID"]) == seat_uid(interview_id=first.pk, user_id=interviewer.pk)
    (on,) = to(other_interviewer)
    assert Calendar.from_ical(on.attachments[0][1])["METHOD"] == "REQUEST"


def test_an_email_kind_switched_off_is_not_sent(interviews, interviewer, zones, commit):
    Profile.objects.filter(user=interviewer).update(emails_off=[Notice.PANEL_ADDED.value])
    schedule(interviews[0], [interviewer], capture=commit)
    assert to(interviewer) == []
    assert not OutgoingEmail.objects.exists()


def test_a_change_that_rolls_back_sends_nothing(interviews, interviewer, other_interviewer, zones):
    # Refused (the interview must end after it starts): nothing queued, nothing sent.
    with pytest.raises(ApplicationError):
        services.interview_update(
            interview=interviews[0],
            interviewers=[interviewer],
            scheduled_start=END,
            scheduled_end=START,
        )
    assert mail.outbox == [] and not OutgoingEmail.objects.exists()


def test_an_untimed_panel_gets_an_email_without_an_invite(interviews, interviewer, zones, commit):
    schedule(interviews[0], [interviewer], start=None, end=None, capture=commit)
    (email,) = to(interviewer)
    assert email.attachments == [] and "time not set yet" in email.body


def moved_panel_queries(interview: Interview, size: int) -> list[str]:
    """Seat `size` people (half with a profile), move the interview and return the SQL
    telling them costs."""
    people = [make_user(f"panelist{interview.pk}x{n}", INTERVIEWER) for n in range(size)]
    Profile.objects.bulk_create(
        Profile(user=person, time_zone="Asia/Kolkata") for person in people[::2]
    )
    Panelist.objects.bulk_create(Panelist(interview=interview, user=p) for p in people)
    Interview.objects.filter(pk=interview.pk).update(scheduled_start=START, scheduled_end=END)
    interview.refresh_from_db()
    before = notices.PanelBefore.of(interview)
    later = START + timedelta(hours=1)
    Interview.objects.filter(pk=interview.pk).update(
        scheduled_start=later, scheduled_end=later + timedelta(minutes=45)
    )
    interview.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        notices.panel_changed(interview=interview, before=before)
    assert OutgoingEmail.objects.filter(kind=Notice.PANEL_CHANGED.value).count() >= size
    return [q["sql"] for q in queries.captured_queries]


def test_telling_a_panel_reads_their_settings_once_whatever_its_size(interviews):
    small = moved_panel_queries(interviews[0], 2)
    large = moved_panel_queries(interviews[1], 6)
    # The panel, the SEQUENCE, the interview reloaded with its panel and their users,
    # the users, their profiles (one query): then one INSERT per email queued.
    assert len(large) - len(small) == 4
    inserts = [sql for sql in large if sql.startswith("INSERT")]
    assert len(inserts) == 6
    assert len(large) - len(inserts) == len(small) - 2
