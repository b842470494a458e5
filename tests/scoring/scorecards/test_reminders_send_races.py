"""reminders.reminders_send under concurrency: workers running it at once send one email per
seat per interval (transactional, on PostgreSQL; kept apart from test_reminders_send.py's
rolled-back tests, whose loop, settings and helpers it uses)."""

import threading
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection

from core.outbox.models import OutgoingEmail
from scoring.scorecards import reminders
from tests.conftest import need
from tests.scoring.scorecards.test_reminders_send import REMINDER, due_at, overdue_loop, sent
from tests.support.loops import Built


@pytest.fixture(autouse=True)
def reminder_settings(settings):  # type: ignore[no-untyped-def]
    settings.SCORECARD_REMINDER_AFTER_HOURS = 24
    settings.SCORECARD_REMINDER_EVERY_HOURS = 24
    settings.SITE_URL = "https://kit.example.com"


@pytest.fixture
def overdue(recruiter: User, interviewer: User, pia: User, other_interviewer: User) -> Built:
    return overdue_loop(recruiter, interviewer, pia, other_interviewer)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_send_one_email_per_seat_per_interval(
    overdue: Built,
) -> None:
    need("PostgreSQL", connection.vendor == "postgresql")
    lock = threading.Lock()
    now = due_at(overdue)

    def run_workers(at: datetime, workers: int = 4) -> list[int]:
        barrier = threading.Barrier(workers)
        counts: list[int] = []
        failed: list[BaseException] = []

        def work() -> None:
            try:
                barrier.wait(timeout=10)
                count = reminders.reminders_send(now=at)
                with lock:
                    counts.append(count)
            except BaseException as exc:  # reported below, so a thread cannot fail silently
                with lock:
                    failed.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=work) for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert failed == []
        return counts

    mail.outbox.clear()  # the panel's invites, sent as the loop was built
    counts = run_workers(now)
    assert sum(counts) == 3
    assert sorted(to for to, _ in sent()) == [
        "ines@example.com",
        "omar@example.com",
        "pia@example.com",
    ]

    # Twice more in a row, and again concurrently, within the interval: nothing more.
    assert reminders.reminders_send(now=now) == 0
    assert reminders.reminders_send(now=now + timedelta(hours=1)) == 0
    assert sum(run_workers(now + timedelta(hours=2))) == 0
    assert len(mail.outbox) == 3
    assert OutgoingEmail.objects.filter(kind=REMINDER).count() == 3
    assert not OutgoingEmail.objects.filter(kind=REMINDER, sent_at=None).exists()

    # The next interval: one more each, however many workers run it.
    assert sum(run_workers(now + timedelta(hours=24))) == 3
    assert len(mail.outbox) == 6
    assert sorted(m.to[0] for m in mail.outbox[3:]) == [
        "ines@example.com",
        "omar@example.com",
        "pia@example.com",
    ]
