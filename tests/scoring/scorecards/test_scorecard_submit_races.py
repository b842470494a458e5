"""services.scorecard_submit under concurrency: ten submits of one card at once
(transactional, on PostgreSQL; kept apart from test_scorecard_submit.py's rolled-back tests)."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from core.api.exceptions import Conflict
from interviews.models import Interview
from scoring.calibration import services as calibration_services
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import at_once, need
from tests.scoring.helpers import draft
from tests.support.loops import Built


@pytest.fixture
def panel(panel_per_test: Built) -> Built:
    """Built for each test: these tests commit (tests/scoring/conftest.py)."""
    return panel_per_test


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_submits_make_one_submission(
    first: Interview, interviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("PostgreSQL", connection.vendor == "postgresql")
    card = draft(interviewer, first)
    published: list[int] = []
    lock = threading.Lock()

    def publish(job_id: int) -> None:
        with lock:
            published.append(job_id)

    monkeypatch.setattr(calibration_services, "_publish", publish)
    outcomes = at_once(
        [lambda: services.scorecard_submit(scorecard=Scorecard(pk=card.pk), by=interviewer)] * 10
    )

    won = [outcome for outcome in outcomes if isinstance(outcome, Scorecard)]
    refused = [outcome.message for outcome in outcomes if isinstance(outcome, Conflict)]
    assert len(won) == 1
    assert len(refused) == 9
    assert all(message.startswith("This scorecard was already submitted") for message in refused)
    rows = list(Scorecard.objects.filter(interview=first, interviewer=interviewer))
    assert len(rows) == 1
    assert (rows[0].status, rows[0].submitted_at) == ("submitted", won[0].submitted_at)
    assert len(published) == 1
