"""A swap racing a scorecard save: the swap waits for the save in flight, then refuses the
question it rated (transactional, on PostgreSQL; kept apart from test_swap.py's
rolled-back tests, whose helpers it uses)."""

import threading
from typing import Any

import pytest
from django.db import connection, transaction

from core.api.exceptions import ApplicationError
from interviews import services
from interviews.models import InterviewQuestion
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import services as scorecards
from tests.conftest import need
from tests.interviews.test_swap import item, seated
from tests.support.loops import World


@pytest.fixture
def world(world_per_test: World) -> World:
    """Built for each test: these tests commit (tests/interviews/conftest.py)."""
    return world_per_test


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_swap_waits_for_a_save_in_flight_and_then_refuses_the_rated_question(
    recruiter, interviewer, loop, world
):
    need("PostgreSQL", connection.vendor == "postgresql")
    target = item(loop, "serving-1")
    card = seated(target, interviewer)
    saving = threading.Event()
    release = threading.Event()

    def save_and_hold() -> None:
        # A save on its own connection: its card locked and its rating written, not
        # yet committed when the swap starts.
        try:
            with transaction.atomic():
                scorecards.scorecard_save_draft(
                    scorecard=Scorecard(pk=card.pk), by=interviewer,
                    ratings=[scorecards.RatingInput(item=target.pk, rating=3)],
                )  # fmt: skip
                saving.set()
                release.wait(timeout=10)
        finally:
            connection.close()

    outcome: list[Any] = []

    def swap() -> None:
        try:
            outcome.append(
                services.interview_question_swap(
                    item=InterviewQuestion.objects.get(pk=target.pk),
                    question=world.q["serving-3"],
                )
            )
        except ApplicationError as exc:
            outcome.append(exc)
        finally:
            connection.close()

    saver = threading.Thread(target=save_and_hold)
    saver.start()
    assert saving.wait(timeout=10)
    swapper = threading.Thread(target=swap)
    swapper.start()
    # Release the save once the swap waits on a lock (on the server's word), or has
    # finished without waiting, which this test is here to catch.
    while swapper.is_alive() and not lock_waited_on():
        pass
    release.set()
    swapper.join(timeout=10)
    saver.join(timeout=10)

    (refused,) = outcome
    assert isinstance(refused, ApplicationError) and refused.code == "question_rated"
    target.refresh_from_db()
    assert target.question.title == "serving-1"
    assert list(QuestionRating.objects.values_list("item", "version")) == [
        (target.pk, target.version_id)
    ]


def lock_waited_on() -> bool:
    """Whether a session of this database waits on a lock."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE NOT l.granted AND a.datname = current_database()"
        )
        return cursor.fetchone() is not None
