"""scoring/scorecards/queries.py's statements for reading cards, against the ORM queries
they replace, on the world of tests/scoring/scorecards/queries_world.py."""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import AnonymousUser, User
from pytest_django import DjangoDbBlocker

from core import sql
from interviews.models import Loop, Panelist
from scoring import visibility
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.scorecards import queries
from tests.scoring.scorecards.queries_world import (
    CHECKED,
    FOLLOW_UPS_ASKED,
    NO_SUCH_ID,
    OUT_OF_RANGE,
    World,
    card_of,
    decoded,
    values,
    world_built_once,
)
from tests.support.loops import Built
from tests.support.shared_db import read_again


# The world, built once for the module; each test reads it again in a savepoint of its own
# (tests/support/shared_db.py); the panel loop and the people (the persona fixtures) are the
# world's.
@pytest.fixture(scope="module")
def shared_world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    with world_built_once(django_db_blocker) as world:
        yield world


@pytest.fixture
def world(shared_world: World, db: None) -> World:
    return read_again(shared_world)


@pytest.fixture
def panel(world: World) -> Built:
    return world.panel


def test_it_reads_the_cards_ratings_in_question_order(world: World) -> None:
    every = [card.pk for card in world.cards.values()]
    for ids in (every, list(reversed(every)), every[:1], [every[-1], 2**62], []):
        expected = QuestionRating.objects.filter(scorecard__in=ids).order_by(
            "scorecard_id", "item__order"
        )
        expected_rows = list(
            expected.values_list(
                "id", "scorecard_id", "item_id", "item__question_id", "item__question__title",
                "version__number", "rating", "not_asked", "not_asked_reason", "notes",
            )
        )  # fmt: skip

        assert queries.ratings_of_cards(ids) == expected_rows, ids
    assert len(queries.ratings_of_cards(every)) == QuestionRating.objects.count()


def test_it_reads_the_ratings_ticks(world: World) -> None:
    every = list(QuestionRating.objects.values_list("pk", flat=True))
    pia = list(
        QuestionRating.objects.filter(scorecard=world.cards["pia_first"]).values_list(
            "pk", flat=True
        )
    )
    for ids in (every, pia, []):
        expected = [
            (*row, "checked")
            for row in CHECKED.objects.filter(questionrating__in=ids).values_list(
                "questionrating_id", "rubricitem_id"
            )
        ] + [
            (*row, "follow_ups_asked")
            for row in FOLLOW_UPS_ASKED.objects.filter(questionrating__in=ids).values_list(
                "questionrating_id", "followup_id"
            )
        ]

        # No order is promised: the caller sorts them.
        assert sorted(queries.ticks_of_ratings(ids)) == sorted(expected), ids
    assert {field for *_, field in queries.ticks_of_ratings(pia)} == {"checked", "follow_ups_asked"}


def test_it_reads_the_cards_amendments_oldest_first(world: World) -> None:
    submitted = list(
        Scorecard.objects.filter(status=Scorecard.Status.SUBMITTED).values_list("pk", flat=True)
    )
    for ids in (submitted, [world.cards["ines_first"].pk], []):
        expected = list(
            Amendment.objects.filter(scorecard__in=ids)
            .order_by("scorecard_id", "at", "id")
            .values_list(
                "scorecard_id", "id", "by__username", "at", "reason", "before", "after",
                "after_reading",
            )
        )  # fmt: skip

        rows = [
            (card, pk, by, sql.aware(at), reason, decoded(before), decoded(after), bool(read))
            for card, pk, by, at, reason, before, after, read in queries.amendments_of_cards(ids)
        ]

        assert rows == expected, ids
    assert len(queries.amendments_of_cards(submitted)) == 3


def test_it_reads_a_loops_heading_as_the_orm_does(world: World, recruiter: User) -> None:
    for loop in world.loops:
        expected = (
            Loop.objects.filter(pk=loop.pk)
            .values_list(
                "id", "candidate__name", "role_id", "role__name", "level_id", "level__name",
                "status", "decision", "decision_rationale", "decided_by__username", "decided_at",
            )
            .get()
        )  # fmt: skip

        row = queries.loop_heading(loop.pk)

        assert row is not None
        assert (*row[:-1], sql.aware(row[-1])) == expected
    decided = queries.loop_heading(world.decided.loop.pk)
    assert decided is not None
    assert decided[6:10] == ("decided", "hire", "Strong across the board", recruiter.username)
    assert decided[10] is not None
    undecided = queries.loop_heading(world.panel.loop.pk)
    assert undecided is not None
    assert undecided[7:] == ("", "", None, None)
    for pk in OUT_OF_RANGE:
        assert queries.loop_heading(pk) is None
    for pk in NO_SUCH_ID:
        assert queries.loop_heading(pk) is None
        assert not Loop.objects.filter(pk=pk).exists()


def test_it_reads_a_loops_seats_in_interview_order_with_visibilitys_done(world: World) -> None:
    for loop in world.loops:
        expected = list(
            visibility.with_done(Panelist.objects.filter(interview__loop=loop))
            .order_by("interview__order", "interview_id", "is_shadow", "id")
            .values_list(
                "interview_id", "user_id", "user__username", "is_shadow", "submitted",
                "cancelled_at",
            )
        )  # fmt: skip

        rows = queries.seats_of_loop(loop.pk)

        assert [(*row[:3], bool(row[3]), bool(row[4]), bool(row[5])) for row in rows] == [
            (*seat[:5], seat[5] is not None) for seat in expected
        ], loop
    # Interview order is not id order, and the shadow's seat is not the last by id.
    (hired,) = world.decided.interviews
    assert [name for _, _, name, *_ in queries.seats_of_loop(world.decided.loop.pk)] == [
        "olga", "leo", "tara",
    ]  # fmt: skip
    assert Panelist.objects.filter(interview=hired).order_by("id").last().user.username == "leo"
    first, second = world.panel.interviews
    assert [i for i, *_ in queries.seats_of_loop(world.panel.loop.pk)][:2] == [second.pk] * 2
    assert first.pk < second.pk


def test_it_reads_the_cards_a_user_may_read_as_visibility_readable(world: World) -> None:
    seen = set()
    for loop in world.loops:
        for user in [*world.people, AnonymousUser()]:
            for blind in (True, False):
                cards = (
                    Scorecard.objects.filter(
                        visibility.readable(user=user, blind=blind), interview__loop=loop
                    )
                    .select_related("interviewer")
                    .order_by("interview_id", "is_shadow", "id")
                )
                expected = [(*values(card), card.interviewer.username) for card in cards]

                rows = queries.readable_cards_of_loop(loop_id=loop.pk, user_id=user.pk, blind=blind)

                assert [(*card_of(row[:-1]), row[-1]) for row in rows] == expected, (loop, user)
                seen.add(len(rows))
    assert len(seen) > 3  # from nothing to every card, and counts between
