"""services.scorecard_start under concurrency: ten starts of one card at once
(transactional, on PostgreSQL; kept apart from test_scorecard_start.py's rolled-back tests)."""

import pytest
from django.contrib.auth.models import User
from django.db import connection

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import at_once, need
from tests.support.loops import Built


@pytest.fixture
def panel(panel_per_test: Built) -> Built:
    """Built for each test: these tests commit (tests/scoring/conftest.py)."""
    return panel_per_test


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_starts_make_one_card(first: Interview, interviewer: User) -> None:
    need("PostgreSQL", connection.vendor == "postgresql")

    def start() -> int:
        return services.scorecard_start(interview=Interview(pk=first.pk), by=interviewer).pk

    started = at_once([start] * 10)

    card = Scorecard.objects.get()
    assert started == [card.pk] * 10
    assert (card.interviewer, card.status) == (interviewer, "draft")
