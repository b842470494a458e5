"""seed_demo's history: decided loops with scorecards dated as they happened."""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.models import Scorecard
from tests.kit.bank import run


@pytest.mark.slow  # seed_demo with its year of history
def test_its_history_carries_the_dates_it_happened_on(db: None) -> None:
    run("seed_demo")

    cards = Scorecard.objects.filter(status="submitted").select_related("interview__loop")
    assert cards.exists()
    for card in cards:
        end = card.interview.scheduled_end
        # In after the interview, never in the future, and within a day and a half.
        assert end <= card.submitted_at <= timezone.now(), card
        assert card.submitted_at - end <= timedelta(hours=30), card
        loop = card.interview.loop
        if loop.decided_at:
            assert loop.decided_at >= card.submitted_at, loop
