"""Closing a loop cleanly: cancel it, decide it, reopen it (scorecards/closing.py).

POST /api/v1/loops/{id}/cancel/ and /reopen/, the debrief page's forms, and what a
close does to seats, drafts, invites, My interviews and reminders.
"""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from core.models import AuditEvent
from core.outbox.models import OutgoingEmail
from interviews import selectors as interview_selectors
from interviews.invites import seat_uid
from interviews.models import Interview, Loop, Panelist
from scoring.scorecards import reminders
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors
from tests.scoring.helpers import draft, state, submitted
from tests.support.loops import Built

REASON = "The candidate withdrew."


@pytest.fixture
def ahead(second: Interview) -> Interview:
    """Interview 2 moved to tomorrow: its seats still have an invite to cancel."""
    start = timezone.now().replace(microsecond=0) + timedelta(days=1)
    Interview.objects.filter(pk=second.pk).update(
        scheduled_start=start, scheduled_end=start + timedelta(hours=1)
    )
    second.refresh_from_db()
    return second


def post(user: User, loop: Loop, verb: str, body: dict[str, str], capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        return client_for(user).post(f"/api/v1/loops/{loop.pk}/{verb}/", body, format="json")


def page_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def cancels_to(user: User) -> list[Calendar]:
    found = []
    for message in mail.outbox:
        if message.to == [user.email] and message.attachments:
            calendar = Calendar.from_ical(message.attachments[0][1])
            found.append(calendar)
    return found


def test_cancelling_a_loop_cancels_every_seat_without_a_card_and_keeps_drafts(
    panel: Built, first: Interview, ahead: Interview, interviewer: User, pia: User,
    sam: User, other_interviewer: User, recruiter: User, commit,
) -> None:  # fmt: skip
    submitted(interviewer, first)
    pia_draft = draft(pia, first)
    mail.outbox.clear()

    response = post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)

    assert response.status_code == 200
    assert response.json()["loop"]["status"] == "cancelled"
    loop = Loop.objects.get(pk=panel.loop.pk)
    assert (loop.status, loop.cancel_reason, loop.decision) == ("cancelled", REASON, "")
    cancelled = set(
        Panelist.objects.exclude(cancelled_at=None).values_list("interview_id", "user__username")
    )
    # Ines's card on interview 1 is in: her seat there stands; every other seat is cancelled.
    assert cancelled == {
        (first.pk, "pia"), (first.pk, "sam"), (ahead.pk, "omar"), (ahead.pk, "ines"),
    }  # fmt: skip
    pia_draft.refresh_from_db()
    assert pia_draft.status == "draft"
    # Only interview 2 lies ahead: its panel gets cancellations, interview 1's nobody.
    for person in (other_interviewer, interviewer):
        (calendar,) = cancels_to(person)
        (event,) = calendar.walk("VEVENT")
        assert calendar["METHOD"] == "CANCEL"
        assert str(event["UID"]) == seat_uid(interview_id=ahead.pk, user_id=person.pk)
        assert event["SEQUENCE"] > 1  # above the first invite's
    assert cancels_to(pia) == [] and cancels_to(sam) == []
    event = AuditEvent.objects.get(action="loop.cancelled")
    assert (event.actor, event.data) == (
        recruiter,
        {"reason": REASON, "seats_cancelled": 4, "drafts_kept_read_only": 1},
    )


def test_a_cancelled_loops_debrief_waits_for_nobody_until_it_is_reopened(
    panel: Built, first: Interview, interviewer: User, recruiter: User, commit
) -> None:
    """Page and API alike: a cancelled seat owes nothing, so it is not "Waiting for"."""
    submitted(interviewer, first)
    reading = page_for(recruiter)
    assert "Waiting for:" in reading.get(f"/loops/{panel.loop.pk}/debrief/").content.decode()

    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)

    html = reading.get(f"/loops/{panel.loop.pk}/debrief/").content.decode()
    assert "Waiting for:" not in html
    api = client_for(recruiter).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert api["pending"] == []

    post(recruiter, panel.loop, "reopen", {"reason": "She is back in."}, commit)
    api = client_for(recruiter).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert {(p["username"], p["interview"]) for p in api["pending"]} == set(
        Panelist.objects.exclude(interview=first, user=interviewer)
        .filter(interview__loop=panel.loop)
        .values_list("user__username", "interview_id")
    )
    assert "Waiting for:" in reading.get(f"/loops/{panel.loop.pk}/debrief/").content.decode()


def test_a_closed_loops_draft_cannot_be_saved(
    panel: Built, first: Interview, pia: User, recruiter: User, commit
) -> None:
    card = draft(pia, first)
    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    before = state()
    response = client_for(pia).post(f"/api/v1/scorecards/{card.pk}/submit/", {}, format="json")
    assert "can no longer change" in detail(response, 400, "loop_decided")
    assert state() == before


def test_a_cancelled_loops_interviews_leave_upcoming(
    panel: Built, ahead: Interview, other_interviewer: User, recruiter: User,
    commit,
) -> None:  # fmt: skip
    owed, upcoming, past = interview_selectors.my_interviews(user=other_interviewer)
    assert [i.pk for i in upcoming] == [ahead.pk]
    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    owed, upcoming, past = interview_selectors.my_interviews(user=other_interviewer)
    assert (owed, upcoming, [i.pk for i in past]) == ([], [], [ahead.pk])
    html = page_for(other_interviewer).get("/interviews/").content.decode()
    assert "Loop cancelled" in html and "Start scorecard" not in html


def test_a_cancelled_loop_sends_no_reminders(
    panel: Built, first: Interview, recruiter: User, commit
) -> None:
    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    mail.outbox.clear()
    assert reminders.reminders_send(now=timezone.now() + timedelta(days=3)) == 0
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("who", "status"), [("interviewer", 403), ("pia", 403), ("lead", 404), ("olga", 404)]
)
def test_only_a_recruiter_cancels_or_reopens(
    panel: Built,
    who: str,
    status: int,
    request,
    commit,  # type: ignore[no-untyped-def]
) -> None:
    user = request.getfixturevalue(who)
    before, emails = state(), OutgoingEmail.objects.count()
    for verb in ("cancel", "reopen"):
        response = post(user, panel.loop, verb, {"reason": REASON}, commit)
        if status == 404:
            assert detail(response, 404, "not_found") == NOT_FOUND
        else:
            assert "Only recruiters" in detail(response, 403, "permission_denied")
    assert state() == before
    assert OutgoingEmail.objects.count() == emails and mail.outbox == []


def test_it_refuses_a_cancel_without_a_reason_and_a_second_cancel(
    panel: Built, recruiter: User, commit
) -> None:
    before = state()
    response = post(recruiter, panel.loop, "cancel", {"reason": "  "}, commit)
    assert field_errors(response) == {"reason": ["This field may not be blank."]}
    response = post(recruiter, panel.loop, "cancel", {}, commit)
    assert field_errors(response) == {"reason": ["This field is required."]}
    # The page posts what was typed: the service says what is missing.
    page = page_for(recruiter)
    html = page.post(f"/loops/{panel.loop.pk}/debrief/", {"action": "cancel", "reason": " "})
    assert "Say why the loop is cancelled." in html.content.decode()
    assert state() == before
    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    before = state()
    response = post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    assert detail(response, 409, "loop_closed") == "This loop is already cancelled."
    # A cancelled loop takes no decision until it is reopened.
    response = client_for(recruiter).post(
        f"/api/v1/loops/{panel.loop.pk}/decision/",
        {"decision": "no_hire", "rationale": "x"},
        format="json",
    )
    assert "reopen it" in detail(response, 409, "loop_closed")
    assert state() == before


def test_reopening_restores_the_seats_and_invites_them_again(
    panel: Built, first: Interview, ahead: Interview, interviewer: User, other_interviewer: User,
    recruiter: User, commit,
) -> None:  # fmt: skip
    submitted(interviewer, first)
    post(recruiter, panel.loop, "cancel", {"reason": REASON}, commit)
    ahead.refresh_from_db()
    cancelled_at = ahead.invite_sequence
    mail.outbox.clear()

    response = post(recruiter, panel.loop, "reopen", {"reason": "She is back in."}, commit)

    assert response.status_code == 200
    loop = Loop.objects.get(pk=panel.loop.pk)
    assert (loop.status, loop.cancel_reason, loop.cancelled_at) == ("in_progress", "", None)
    assert not Panelist.objects.exclude(cancelled_at=None).exists()
    (calendar,) = cancels_to(other_interviewer)
    (event,) = calendar.walk("VEVENT")
    assert calendar["METHOD"] == "REQUEST" and event["SEQUENCE"] == cancelled_at + 1
    event = AuditEvent.objects.get(action="loop.reopened")
    assert event.data == {
        "reason": "She is back in.", "seats_restored": 4,
        "was_status": "cancelled", "was_decision": "",
    }  # fmt: skip
    before = state()
    response = post(recruiter, panel.loop, "reopen", {"reason": "again"}, commit)
    assert detail(response, 409, "loop_open") == "This loop is open; there is nothing to reopen."
    assert state() == before


def test_a_no_hire_cancels_the_open_seats_and_tells_the_panel(
    panel: Built, first: Interview, ahead: Interview, interviewer: User, pia: User,
    other_interviewer: User, recruiter: User, commit,
) -> None:  # fmt: skip
    submitted(interviewer, first)
    mail.outbox.clear()
    response = client_for(recruiter)
    with commit(execute=True):
        response = client_for(recruiter).post(
            f"/api/v1/loops/{panel.loop.pk}/decision/",
            {"decision": "no_hire", "rationale": "Withdrew."},
            format="json",
        )
    assert response.status_code == 200
    assert Panelist.objects.exclude(cancelled_at=None).count() == 4
    (calendar,) = cancels_to(other_interviewer)
    assert calendar["METHOD"] == "CANCEL"
    decided = [m for m in mail.outbox if m.subject.startswith("Decided:")]
    assert sorted(m.to[0] for m in decided) == sorted(
        u.email for u in (interviewer, pia, other_interviewer, User.objects.get(username="sam"))
    )
    assert all("no hire" in m.body.lower() for m in decided)


def test_a_hire_waits_for_every_interview_to_have_happened(
    panel: Built, first: Interview, second: Interview, interviewer: User, pia: User,
    other_interviewer: User, recruiter: User,
) -> None:  # fmt: skip
    for person, interview in ((interviewer, first), (pia, first), (other_interviewer, second),
                              (interviewer, second)):  # fmt: skip
        submitted(person, interview)
    end = timezone.now() + timedelta(hours=2)
    Interview.objects.filter(pk=second.pk).update(scheduled_end=end)
    before = state()
    response = client_for(recruiter).post(
        f"/api/v1/loops/{panel.loop.pk}/decision/",
        {"decision": "hire", "rationale": "Strong."},
        format="json",
    )
    assert "until every interview has happened; Interview 2 ends" in detail(
        response, 400, "hire_waits_for_interview_end"
    )
    assert state() == before
    html = page_for(recruiter).get(f"/loops/{panel.loop.pk}/debrief/").content.decode()
    assert "Interview 2 ends only" in html


def test_the_debrief_page_cancels_and_reopens(
    panel: Built, recruiter: User, interviewer: User, commit
) -> None:
    url = f"/loops/{panel.loop.pk}/debrief/"
    page = page_for(recruiter)
    assert ">Cancel loop</button>" in page.get(url).content.decode()
    with commit(execute=True):
        response = page.post(url, {"action": "cancel", "reason": REASON})
    assert response.status_code == 302
    html = page.get(url).content.decode()
    assert "Loop cancelled" in html and REASON in html and ">Reopen loop</button>" in html
    # An interviewer may not: the page refuses and nothing changes.
    other = page_for(interviewer)
    before = state()
    assert other.post(url, {"action": "reopen", "reason": "x"}).status_code == 403
    assert page.post(url, {"action": "bogus"}).status_code == 400
    assert state() == before
