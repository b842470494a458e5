"""Reminders of overdue scorecards: who is owed one, claimed once per interval, emailed."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from core.accounts import services as accounts
from core.accounts.models import Notice
from core.accounts.zones import zone_of
from interviews.models import Panelist
from scoring import visibility

log = logging.getLogger(__name__)


def reminders_send(*, now: datetime | None = None) -> int:
    """Email interviewers whose scorecard is overdue; return how many emails went out.

    1. A seat is overdue once its interview ended SCORECARD_REMINDER_AFTER ago
       and its scorecard is not submitted.
    2. Each seat is claimed with a conditional UPDATE on `reminded_at`, so two
       beat or worker processes running at once send one email per interval.
    3. The claim commits before the email goes out: a crash after it skips one
       reminder rather than sending duplicates.
    4. A seat whose email cannot be sent (a header the mail library refuses, the
       mail server refusing it) is logged and skipped; the run goes on.
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
    sent = 0
    for seat in seats:
        claimed = Panelist.objects.filter(pk=seat.pk).filter(due).update(reminded_at=now) == 1
        if not claimed or not accounts.wants(user=seat.user, kind=Notice.SCORECARD_REMINDER):
            continue
        try:
            _remind(seat)
        except (ValueError, OSError) as exc:  # BadHeaderError is a ValueError; SMTP, OSError
            log.warning("Reminder for seat %s (interview %s) not sent: %s",
                        seat.pk, seat.interview_id, exc)  # fmt: skip
            continue
        sent += 1
    return sent


def _remind(seat: Panelist) -> None:
    context = {"seat": seat, "interview": seat.interview, "site_url": settings.SITE_URL}
    with timezone.override(zone_of(seat.user)):  # the times in the recipient's zone
        subject = render_to_string("emails/scorecard_reminder_subject.txt", context)
        send_mail(
            subject=" ".join(subject.split()),  # one line, whatever the names in it hold
            message=render_to_string("emails/scorecard_reminder_body.txt", context),
            html_message=render_to_string("emails/scorecard_reminder_body.html", context),
            from_email=None,
            recipient_list=[seat.user.email],
        )
