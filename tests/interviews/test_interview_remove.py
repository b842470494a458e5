"""Taking an interview that has not started out of its loop (services.interview_remove)."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from core.models import AuditEvent
from interviews import services
from interviews.invites import seat_uid
from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from scoring.scorecards import services as scorecards

START = (timezone.now() + timedelta(days=3)).replace(microsecond=0)


@pytest.fixture
def seated(interviews, interviewer, other_interviewer, commit):  # type: ignore[no-untyped-def]
    """Both interviews staffed three days ahead: Ines on the first, Omar on the second."""
    for n, (interview, person) in enumerate(
        zip(interviews, [interviewer, other_interviewer], strict=True)
    ):
        begins = START + timedelta(hours=n)
        with commit(execute=True):
            services.interview_update(
                interview=interview, interviewers=[person],
                scheduled_start=begins, scheduled_end=begins + timedelta(minutes=45),
            )  # fmt: skip
    mail.outbox.clear()
    return interviews


def page(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def rows() -> tuple[list[int], int, int]:
    return (
        list(Interview.objects.order_by("pk").values_list("pk", flat=True)),
        Panelist.objects.count(),
        InterviewQuestion.objects.count(),
    )


def test_a_recruiter_removes_an_interview_and_its_panel_gets_a_cancellation(
    seated, recruiter, interviewer, commit
):
    first, second = seated
    with commit(execute=True):
        response = page(recruiter).post(f"/interviews/{first.pk}/remove/")
    assert response.status_code == 302
    assert list(Interview.objects.values_list("pk", flat=True)) == [second.pk]
    (email,) = mail.outbox
    assert email.to == [interviewer.email] and email.subject.startswith("Cancelled:")
    calendar = Calendar.from_ical(email.attachments[0][1])
    (event,) = calendar.walk("VEVENT")
    assert calendar["METHOD"] == "CANCEL"
    assert str(event["UID"]) == seat_uid(interview_id=first.pk, user_id=interviewer.pk)
    event = AuditEvent.objects.get(action="interview.removed")
    assert (event.actor, event.data) == (recruiter, {"title": first.title, "seats_cancelled": 1})
    assert Loop.objects.get(pk=first.loop_id).status == "scheduled"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("started", "has started: it stays in the loop."),
        ("carded", "has a scorecard started: it stays in the loop."),
        ("only", "A loop needs at least one interview: cancel the loop instead."),
        ("decided", "it can no longer change."),
    ],
)
def test_it_refuses_and_removes_nothing(seated, recruiter, interviewer, setup, message, commit):
    first, second = seated
    if setup == "started":
        Interview.objects.filter(pk=first.pk).update(
            scheduled_start=timezone.now() - timedelta(minutes=5)
        )
    elif setup == "carded":
        scorecards.scorecard_save_draft(
            scorecard=scorecards.scorecard_start(interview=first, by=interviewer),
            by=interviewer, recommendation="", summary="", ratings=[],
        )  # fmt: skip
    elif setup == "only":
        services.interview_remove(interview=second, by=recruiter)
    elif setup == "decided":
        Loop.objects.filter(pk=first.loop_id).update(status=Loop.Status.DECIDED)
    mail.outbox.clear()
    before, events = rows(), AuditEvent.objects.count()
    with commit(execute=True):
        response = page(recruiter).post(f"/interviews/{first.pk}/remove/", follow=True)
    assert message in response.content.decode()
    assert rows() == before and AuditEvent.objects.count() == events
    assert mail.outbox == []


def test_only_those_who_staff_the_loop_may(seated, interviewer, lead):
    first, _ = seated
    before = rows()
    assert page(interviewer).post(f"/interviews/{first.pk}/remove/").status_code == 404
    assert page(lead).post(f"/interviews/{first.pk}/remove/").status_code == 404
    assert Client().post(f"/interviews/{first.pk}/remove/").status_code == 302  # to sign in
    assert page(interviewer).get(f"/interviews/{first.pk}/remove/").status_code == 405
    assert rows() == before


def section(html: str, interview: Interview) -> str:
    """The loop page's section of one interview."""
    start = html.index(f'id="interview-{interview.pk}"')
    end = html.find('<section class="card" id="interview-', start + 1)
    return html[start : end if end > 0 else len(html)]


def test_the_loop_page_offers_removal_only_where_the_service_allows_it(
    seated, recruiter, interviewer
):
    first, second = seated
    url = reverse("interviews:loop-detail", args=[first.loop_id])
    html = page(recruiter).get(url).content.decode()
    assert "Remove this interview" in section(html, first)
    assert "Remove this interview" in section(html, second)

    scorecards.scorecard_start(interview=first, by=interviewer)
    Interview.objects.filter(pk=second.pk).update(
        scheduled_start=timezone.now() - timedelta(minutes=5)
    )
    html = page(recruiter).get(url).content.decode()

    assert "Remove this interview" not in section(html, first)
    assert "has a scorecard started: it stays in the loop." in section(html, first)
    assert "Remove this interview" not in section(html, second)
    assert "has started: it stays in the loop." in section(html, second)

    Interview.objects.filter(pk=second.pk).update(scheduled_end=timezone.now())
    html = page(recruiter).get(url).content.decode()
    assert "has taken place: it stays in the loop." in section(html, second)
