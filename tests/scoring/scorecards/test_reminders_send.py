"""reminders.reminders_send: email interviewers whose scorecard is overdue, once per interval,
through the outbox (core.outbox): each reminder is recorded, sent after its claim commits
and retried when the mail server fails."""

from datetime import datetime, timedelta
from smtplib import SMTPServerDisconnected
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends import locmem
from django.test import TestCase

from config.celery import app as celery_app
from core.accounts.models import Notice
from core.outbox.models import OutgoingEmail
from interviews.models import Candidate, Panelist
from scoring.scorecards import reminders, services
from scoring.tasks import reminders_task
from tests.scoring.helpers import draft, ended, submitted
from tests.support.loops import Built, Seat, build_loop

REMINDER = Notice.SCORECARD_REMINDER.value


@pytest.fixture(autouse=True)
def reminder_settings(settings):  # type: ignore[no-untyped-def]
    settings.SCORECARD_REMINDER_AFTER_HOURS = 24
    settings.SCORECARD_REMINDER_EVERY_HOURS = 24
    settings.SITE_URL = "https://kit.example.com"


def overdue_loop(recruiter: User, interviewer: User, pia: User, other_interviewer: User) -> Built:
    """Interview 1: Ines and Pia; interview 2 (an hour later): Omar. No shadow."""
    return build_loop(
        seats=[Seat(interviewers=[interviewer, pia]), Seat(interviewers=[other_interviewer])],
        recruiter=recruiter,
    )


@pytest.fixture
def overdue(recruiter: User, interviewer: User, pia: User, other_interviewer: User) -> Built:
    return overdue_loop(recruiter, interviewer, pia, other_interviewer)


def remind(now: datetime) -> int:
    """Run reminders_send, then the on-commit hand-off to the outbox's send task."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return reminders.reminders_send(now=now)


def sent() -> list[tuple[str, str]]:
    return sorted((m.to[0], m.subject) for m in mail.outbox)


def due_at(built: Built) -> datetime:
    """The moment every seat of the loop becomes overdue (24h after the last interview ended)."""
    return max(ended(i) for i in built.interviews) + timedelta(hours=24)


def test_it_sends_nothing_before_24_hours_have_passed(overdue: Built) -> None:
    first_due = ended(overdue.interviews[0]) + timedelta(hours=24)

    count = remind(first_due - timedelta(seconds=1))

    assert (count, mail.outbox) == (0, [])
    assert not Panelist.objects.filter(reminded_at__isnull=False).exists()


def test_it_emails_each_interviewer_whose_card_is_overdue(overdue: Built) -> None:
    first = overdue.interviews[0]
    now = ended(first) + timedelta(hours=24)

    count = remind(now)

    # Interview 2 ended an hour later: its seat is not overdue yet.
    assert count == 2
    assert sent() == [
        ("ines@example.com", "Scorecard overdue: Interview 1 with Casey Quinn"),
        ("pia@example.com", "Scorecard overdue: Interview 1 with Casey Quinn"),
    ]
    link = f"https://kit.example.com/interviews/{first.pk}/scorecard/"
    for message in mail.outbox:
        assert link in message.body
        assert 'Your scorecard for "Interview 1" with Casey Quinn' in message.body
        html, kind = message.alternatives[0]
        assert kind == "text/html"
        assert f'<a href="{link}">Write the scorecard</a>' in html
    assert set(
        Panelist.objects.filter(reminded_at=now).values_list("user__username", flat=True)
    ) == {
        "ines",
        "pia",
    }


def test_it_names_the_candidate_and_interview_as_written(
    recruiter: User, interviewer: User
) -> None:
    built = build_loop(
        seats=[Seat(interviewers=[interviewer])],
        recruiter=recruiter,
        candidate_name="Dana O'Reilly & Sons",
    )

    remind(due_at(built))

    (message,) = mail.outbox
    # Plain-text mail: no HTML entities in the subject or the text body.
    assert message.subject == "Scorecard overdue: Interview 1 with Dana O'Reilly & Sons"
    assert 'Your scorecard for "Interview 1" with Dana O\'Reilly & Sons (' in message.body


def test_it_sends_again_after_the_interval_and_not_within_it(overdue: Built) -> None:
    now = due_at(overdue)
    assert remind(now) == 3
    mail.outbox.clear()

    within = remind(now + timedelta(hours=23, minutes=59))
    assert (within, mail.outbox) == (0, [])

    again = remind(now + timedelta(hours=24))
    assert again == 3
    assert [to for to, _ in sent()] == [
        "ines@example.com",
        "omar@example.com",
        "pia@example.com",
    ]


def test_it_honours_the_configured_hours(overdue: Built, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SCORECARD_REMINDER_AFTER_HOURS = 2
    settings.SCORECARD_REMINDER_EVERY_HOURS = 6
    last_end = max(ended(i) for i in overdue.interviews)

    assert remind(last_end + timedelta(hours=1, minutes=59)) == 2
    assert remind(last_end + timedelta(hours=2)) == 1
    # Six hours after each seat's last reminder, not a minute earlier.
    assert remind(last_end + timedelta(hours=7, minutes=58)) == 0
    assert remind(last_end + timedelta(hours=7, minutes=59)) == 2
    assert remind(last_end + timedelta(hours=8)) == 1
    assert len(mail.outbox) == 6


def test_it_sends_one_email_per_seat_when_run_twice_in_a_row(overdue: Built) -> None:
    now = due_at(overdue)

    assert remind(now) == 3
    assert remind(now) == 0
    assert remind(now + timedelta(minutes=5)) == 0

    assert len(mail.outbox) == 3


def test_it_sends_nothing_for_a_submitted_card(
    overdue: Built, interviewer: User, pia: User
) -> None:
    submitted(pia, overdue.interviews[0])
    now = due_at(overdue)

    remind(now)
    remind(now + timedelta(hours=24))

    assert [to for to, _ in sent()] == [
        "ines@example.com",
        "ines@example.com",
        "omar@example.com",
        "omar@example.com",
    ]


def test_it_stops_once_the_card_is_submitted(overdue: Built, interviewer: User) -> None:
    now = due_at(overdue)
    remind(now)
    submitted(interviewer, overdue.interviews[0])
    mail.outbox.clear()

    remind(now + timedelta(hours=24))

    assert [to for to, _ in sent()] == ["omar@example.com", "pia@example.com"]


def test_a_draft_does_not_stop_the_reminders(overdue: Built, interviewer: User) -> None:
    draft(interviewer, overdue.interviews[0])

    remind(due_at(overdue))

    assert "ines@example.com" in [to for to, _ in sent()]


def test_it_sends_nothing_for_a_decided_loop(overdue: Built, recruiter: User) -> None:
    services.loop_decide(loop=overdue.loop, by=recruiter, decision="no_hire", rationale="Withdrew")

    assert remind(due_at(overdue)) == 0
    assert mail.outbox == []


def test_it_skips_an_interviewer_without_an_email_address(overdue: Built, pia: User) -> None:
    User.objects.filter(pk=pia.pk).update(email="")

    assert remind(due_at(overdue)) == 2
    assert [to for to, _ in sent()] == ["ines@example.com", "omar@example.com"]


def test_a_seat_whose_email_fails_is_logged_and_left_in_the_outbox_and_the_run_goes_on(
    overdue: Built, pia: User, caplog: pytest.LogCaptureFixture
) -> None:
    # An address with a line break: the mail library refuses the header outright.
    User.objects.filter(pk=pia.pk).update(email="pia@example.com\nBcc: everyone@example.com")

    with caplog.at_level("ERROR"):
        count = remind(due_at(overdue))

    assert count == 3
    assert [to for to, _ in sent()] == ["ines@example.com", "omar@example.com"]
    (unsent,) = OutgoingEmail.objects.filter(kind=REMINDER, sent_at=None)
    assert unsent.user == pia and unsent.subject.startswith("Scorecard overdue: Interview 1")
    (record,) = [r for r in caplog.records if "in on_commit()" in r.getMessage()]
    assert "Header values can't contain newlines" in record.getMessage()


def test_a_candidate_name_with_a_line_break_still_gets_a_one_line_subject(
    overdue: Built,
) -> None:
    # Names written before names were one line (core.validators) may hold a break.
    Candidate.objects.filter(pk=overdue.loop.candidate_id).update(name="Casey\nQuinn")

    assert remind(due_at(overdue)) == 3
    assert {subject for _, subject in sent()} == {
        f"Scorecard overdue: {i.title} with Casey Quinn" for i in overdue.interviews
    }


def test_the_beat_task_sends_the_overdue_reminders_once(overdue: Built) -> None:
    # The interviews ended about three days ago, so every seat is overdue now.
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert reminders_task.apply().get() == 3
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert reminders_task.apply().get() == 0
    assert len(mail.outbox) == 3
    assert OutgoingEmail.objects.filter(kind=REMINDER).count() == 3


def test_a_reminder_is_recorded_in_the_outbox_and_sent_from_it(overdue: Built) -> None:
    now = due_at(overdue)

    with TestCase.captureOnCommitCallbacks(execute=False) as handed_off:
        assert reminders.reminders_send(now=now) == 3

    # Recorded, nothing sent until the claim commits and the outbox's task runs.
    emails = list(OutgoingEmail.objects.filter(kind=REMINDER).order_by("user__username"))
    assert [(e.user.username, e.kind, e.loop_id, e.sent_at) for e in emails] == [
        (name, REMINDER, overdue.loop.pk, None) for name in ("ines", "omar", "pia")
    ]
    assert emails[0].subject == "Scorecard overdue: Interview 1 with Casey Quinn"
    mail.outbox.clear()  # the panel's invites, queued when the loop was built
    assert len(handed_off) == 3

    for callback in handed_off:
        callback()

    assert len(mail.outbox) == 3
    # Sent: the outbox blanks what it held, so it keeps no names past delivery.
    reminders_kept = OutgoingEmail.objects.filter(kind=REMINDER)
    assert not reminders_kept.filter(sent_at=None).exists()
    assert not reminders_kept.exclude(subject="").exists()


def test_a_reminder_the_mail_server_refuses_is_retried_by_the_outbox(
    overdue: Built, interviewer: User, pia: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    User.objects.filter(pk__in=[pia.pk, overdue.interviews[1].panel.get().user_id]).update(
        is_active=False
    )  # one reminder only: Ines's
    send = locmem.EmailBackend.send_messages
    tries: list[int] = []

    def flaky(backend: locmem.EmailBackend, messages: Any) -> int:
        tries.append(len(messages))
        if len(tries) == 1:
            raise SMTPServerDisconnected("Connection unexpectedly closed")
        return send(backend, messages)

    monkeypatch.setattr(locmem.EmailBackend, "send_messages", flaky)
    # Eager tasks retry in-process, as a worker would later, once failures are not
    # propagated to the caller (settings propagate them, so tests see other errors).
    monkeypatch.setitem(celery_app.conf, "task_eager_propagates", False)

    assert remind(due_at(overdue)) == 1

    # The first try failed, the outbox's task retried it, and the second went out.
    assert tries == [1, 1]
    assert sent() == [("ines@example.com", "Scorecard overdue: Interview 1 with Casey Quinn")]
    (email,) = OutgoingEmail.objects.filter(kind=REMINDER)
    assert email.sent_at is not None


def test_running_the_task_twice_sends_one_email_per_seat(overdue: Built) -> None:
    now = due_at(overdue)

    assert remind(now) == 3
    assert remind(now) == 0

    assert len(mail.outbox) == 3
    assert OutgoingEmail.objects.filter(kind=REMINDER).count() == 3
