"""Reminders of overdue scorecards: who is owed one, claimed once per interval, emailed
through the outbox (core.outbox: recorded, sent after commit, retried)."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.accounts.models import Notice
from core.outbox.services import email_queue
from interviews.models import Panelist
from scoring import visibility


def reminders_send(*, now: datetime | None = None) -> int:
    """Queue a reminder to each interviewer whose scorecard is overdue; return how many.

    1. A seat is overdue once its interview ended SCORECARD_REMINDER_AFTER ago
       and its scorecard is not submitted.
    2. Each seat is claimed with a conditional UPDATE on `reminded_at`, so two
       beat or worker processes running at once queue one email per interval.
    3. The claim and the outbox record commit together: a crash before the commit
       leaves the seat unclaimed for the next run, and after it the outbox sends the
       email (its task retries a failing mail server; its sweep picks up an email
       whose task never ran), so a reminder is neither lost nor sent twice.
    4. Someone who switched reminders off, or has no address, is claimed and sent
       nothing (email_queue decides).
    """
    now = now or timezone.now()
    after = timedelta(hours=settings.SCORECARD_REMINDER_AFTER_HOURS)
    every = timedelta(hours=settings.SCORECARD_REMINDER_EVERY_HOURS)
    due = Q(reminded_at__isnull=True) | Q(reminded_at__lte=now - every)
    seats = (
        visibility.seats_to_remind()
        .filter(due, interview__scheduled_end__lte=now - after)
        .select_related("user", "interview__loop__candidate")
    )
    queued = 0
    for seat in seats:
        with transaction.atomic():
            claimed = Panelist.objects.filter(pk=seat.pk).filter(due).update(reminded_at=now) == 1
            if claimed and _remind(seat):
                queued += 1
    return queued


def _remind(seat: Panelist) -> bool:
    email = email_queue(
        user=seat.user,
        kind=Notice.SCORECARD_REMINDER,
        template="scorecard_reminder",
        context={"seat": seat, "interview": seat.interview},
        loop_id=seat.interview.loop_id,
    )
    return email is not None
