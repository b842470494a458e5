"""services.scorecard_save_draft under concurrency: first saves of a new card at once
(transactional, on PostgreSQL; kept apart from test_scorecard_save_draft.py's
rolled-back tests)."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection

from interviews.models import Interview
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import services
from tests.conftest import at_once, need
from tests.scoring.helpers import ratings_for
from tests.support.loops import Built


@pytest.fixture
def panel(panel_per_test: Built) -> Built:
    """Built for each test: these tests commit (tests/scoring/conftest.py)."""
    return panel_per_test


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_saves_of_a_new_card_each_replace_the_whole_card(
    first: Interview, interviewer: User
) -> None:
    # The second save waits for the first's row lock, then must see (and replace) the
    # ratings the first committed: no duplicate-rating error, no ratings left over.
    need("PostgreSQL", connection.vendor == "postgresql")
    card = services.scorecard_start(interview=first, by=interviewer)
    every = ratings_for(first, rating=2, notes="all")
    bodies = [every, every[:1]] * 3

    def save(ratings: list[services.RatingInput]) -> Callable[[], Scorecard]:
        ref = Scorecard(pk=card.pk)
        return lambda: services.scorecard_save_draft(scorecard=ref, by=interviewer, ratings=ratings)

    outcomes = at_once([save(body) for body in bodies])

    assert [type(outcome) for outcome in outcomes] == [Scorecard] * len(bodies)
    kept = sorted(QuestionRating.objects.filter(scorecard=card).values_list("item_id", flat=True))
    assert kept in (sorted(r.item for r in every), [every[0].item])
