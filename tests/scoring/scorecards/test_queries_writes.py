"""scoring/scorecards/queries.py's statements for writing a card, against the ORM queries
they replace, on the world of tests/scoring/scorecards/queries_world.py."""

from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from core import sql
from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, RubricItem
from scoring import visibility
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import queries, services
from tests.scoring.helpers import follow_ups, rubric
from tests.scoring.scorecards.queries_world import (
    CARD_FIELDS,
    CHECKED,
    FOLLOW_UPS_ASKED,
    NO_SUCH_ID,
    OUT_OF_RANGE,
    World,
    card_of,
    content,
    orm_outcome,
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


def test_it_reads_each_seat_with_its_card_as_the_orm_does_and_none_without_one(
    world: World, sam: User
) -> None:
    seen = set()
    for interview in world.interviews:
        for user in world.people:
            row = queries.seat_with_card(interview_id=interview.pk, user_id=user.pk)
            seat = (
                Panelist.objects.filter(interview=interview, user=user)
                .select_related("interview__loop")
                .order_by("is_shadow", "id")
                .first()
            )
            if seat is None:
                assert row is None, (interview, user)
                continue
            card = Scorecard.objects.filter(interview=interview, interviewer=user).first()
            loop = seat.interview.loop
            assert row is not None
            assert row[:3] == (seat.is_shadow, loop.pk, loop.status), (interview, user)
            assert card_of(row[3:]) == values(card), (interview, user)
            assert len(row[3:]) == len(CARD_FIELDS)
            seen.add((seat.is_shadow, card is None, loop.status))
    # Each kind of seat was met: interviewer and shadow, with a card and without, both loops.
    assert seen == {
        (False, False, Loop.Status.IN_PROGRESS),
        (True, False, Loop.Status.IN_PROGRESS),
        (False, False, Loop.Status.DECIDED),
        (True, True, Loop.Status.DECIDED),
    }
    for pk in OUT_OF_RANGE:
        assert queries.seat_with_card(interview_id=pk, user_id=sam.pk) is None
    for pk in NO_SUCH_ID:
        assert queries.seat_with_card(interview_id=pk, user_id=sam.pk) is None
        assert not Panelist.objects.filter(interview_id=pk, user=sam).exists()


def test_a_user_never_holds_two_seats_of_one_interview(first: Interview, interviewer: User) -> None:
    # seat_with_card orders an interviewer's seat before a shadow's, but one_seat_per_interviewer
    # leaves at most one seat to order; this test says so should the constraint go.
    with pytest.raises(IntegrityError), transaction.atomic():
        Panelist.objects.create(interview=first, user=interviewer, is_shadow=True)
    row = queries.seat_with_card(interview_id=first.pk, user_id=interviewer.pk)
    assert row is not None
    assert not row[0]


def orm_draft(interview: Interview, user: User, *, is_shadow: bool, now: datetime) -> None:
    card = Scorecard.objects.create(interview=interview, interviewer=user, is_shadow=is_shadow)
    # auto_now and auto_now_add stamp the moment of the call; the statement is given `now`.
    Scorecard.objects.filter(pk=card.pk).update(created_at=now, updated_at=now)


def test_it_inserts_a_draft_as_the_orm_creates_it_and_only_once(
    world: World, first: Interview, second: Interview, olga: User, pia: User, interviewer: User
) -> None:
    (hired,) = world.decided.interviews
    tara = User.objects.get(username="tara")
    # Olga's seat is new; Tara shadows the decided loop's interview with no card yet.
    Panelist.objects.create(interview=second, user=olga)
    for interview, user, shadow in ((second, olga, False), (hired, tara, True)):
        now = timezone.now()
        expected = orm_outcome(partial(orm_draft, interview, user, is_shadow=shadow, now=now))
        created = queries.draft_insert(
            interview_id=interview.pk, user_id=user.pk, is_shadow=shadow, now=now
        )

        assert content() == expected
        assert created == Scorecard.objects.get(interview=interview, interviewer=user).pk

    # A second insert, like the ORM's get_or_create of an existing card, changes nothing.
    for interview, user in ((second, olga), (first, pia), (second, interviewer)):
        later = timezone.now() + timedelta(days=1)
        assert Scorecard.objects.get_or_create(interview=interview, interviewer=user)[1] is False
        assert (
            queries.draft_insert(
                interview_id=interview.pk, user_id=user.pk, is_shadow=False, now=later
            )
            is None
        )
    assert content() == expected


def test_it_lists_an_interviews_items_at_their_pinned_versions(world: World) -> None:
    for interview in world.interviews:
        asked = InterviewQuestion.objects.filter(interview=interview)
        pinned = asked.values("version")
        expected = [
            ("question", *row)
            for row in asked.values_list(
                "id", "version_id", "version__scale_max", "question__title", "question_id"
            )
        ]
        expected += [
            ("rubric", *row, None, None, None)
            for row in RubricItem.objects.filter(version__in=pinned).values_list("id", "version_id")
        ]
        expected += [
            ("follow_up", *row, None, None, None)
            for row in FollowUp.objects.filter(version__in=pinned).values_list("id", "version_id")
        ]

        rows = queries.interview_items(interview.pk)

        # No order is promised: the caller builds dictionaries from them.
        assert sorted(rows, key=lambda row: (row[0], row[1])) == sorted(
            expected, key=lambda row: (row[0], row[1])
        )
        assert {kind for kind, *_ in rows} == {"question", "rubric", "follow_up"}
    # The first question's newer version is not the interview's.
    first, _ = world.panel.interviews
    reissued = InterviewQuestion.objects.get(pk=world.panel.questions(first)[0].pk)
    assert reissued.question.current_id != reissued.version_id
    assert RubricItem.objects.filter(version=reissued.question.current_id).exists()


def test_it_deletes_a_cards_ratings_and_their_ticks_as_the_orm_does(world: World) -> None:
    card = world.card("ines_first")
    assert CHECKED.objects.filter(questionrating__scorecard=card).exists()
    assert FOLLOW_UPS_ASKED.objects.filter(questionrating__scorecard=card).exists()
    expected = orm_outcome(lambda: QuestionRating.objects.filter(scorecard=card).delete())

    queries.ratings_delete(card.pk)

    assert content() == expected


def test_it_deletes_nothing_with_one_select_from_a_card_without_ratings(
    second: Interview, interviewer: User, django_assert_num_queries: Any
) -> None:
    card = services.scorecard_start(interview=second, by=interviewer)
    before = content()

    with django_assert_num_queries(1):  # the card's ratings: none
        queries.ratings_delete(card.pk)

    assert content() == before


def test_it_inserts_ratings_as_the_orm_creates_them(world: World, second: Interview) -> None:
    card = world.card("ines_second")
    items = world.panel.questions(second)
    rows = [
        (card.pk, items[0].pk, items[0].version_id, 2, False, "", "Good start"),
        (card.pk, items[1].pk, items[1].version_id, None, True, "Out of time", ""),
        (card.pk, items[2].pk, items[2].version_id, None, False, "", "Still thinking"),
        (card.pk, items[3].pk, items[3].version_id, 4, False, "", ""),
    ]
    fields = ("scorecard_id", "item_id", "version_id", "rating", "not_asked")
    fields += ("not_asked_reason", "notes")
    expected = orm_outcome(
        lambda: QuestionRating.objects.bulk_create(
            [QuestionRating(**dict(zip(fields, row, strict=True))) for row in rows]
        )
    )

    written = queries.ratings_insert(rows)

    assert content() == expected
    assert written == dict(QuestionRating.objects.filter(scorecard=card).values_list("item", "pk"))


def test_it_inserts_ticks_as_the_orm_adds_them(
    world: World, first: Interview, django_assert_num_queries: Any
) -> None:
    card = world.card("pia_first")
    items = world.panel.questions(first)
    ratings = {r.item_id: r for r in QuestionRating.objects.filter(scorecard=card)}
    bare, ticked = ratings[items[2].pk], ratings[items[0].pk]
    assert not bare.checked.exists() and not bare.follow_ups_asked.exists()
    red_flag = rubric(items[2], RubricItem.Kind.RED_FLAG)[0].pk
    core = rubric(items[2], RubricItem.Kind.CORE)[0].pk
    left = next(r.pk for r in rubric(items[0]) if not ticked.checked.filter(pk=r.pk).exists())
    asked = follow_ups(items[2])[0].pk

    def add() -> None:
        bare.checked.add(red_flag, core)
        ticked.checked.add(left)
        bare.follow_ups_asked.add(asked)

    expected = orm_outcome(add)

    queries.ticks_insert(
        checked=[(bare.pk, red_flag), (bare.pk, core), (ticked.pk, left)],
        follow_ups_asked=[(bare.pk, asked)],
    )

    assert content() == expected

    # Either list may be empty: it makes no statement.
    unasked = ratings[items[1].pk]
    follow_up, point = follow_ups(items[1])[0].pk, rubric(items[1])[0].pk
    expected = orm_outcome(lambda: unasked.follow_ups_asked.add(follow_up))
    with django_assert_num_queries(1):
        queries.ticks_insert(checked=[], follow_ups_asked=[(unasked.pk, follow_up)])
    assert content() == expected
    expected = orm_outcome(lambda: unasked.checked.add(point))
    with django_assert_num_queries(1):
        queries.ticks_insert(checked=[(unasked.pk, point)], follow_ups_asked=[])
    assert content() == expected
    with django_assert_num_queries(0):
        queries.ticks_insert(checked=[], follow_ups_asked=[])
    assert content() == expected


def test_it_reads_a_card_with_its_loop_only_for_its_author(world: World, interviewer: User) -> None:
    found = 0
    for card in world.cards.values():
        for user in world.people:
            with transaction.atomic():
                row = queries.card_locked(scorecard_id=card.pk, user_id=user.pk)
            mine = (
                Scorecard.objects.filter(pk=card.pk, interviewer=user)
                .select_related("interview__loop")
                .first()
            )
            if mine is None:
                assert row is None, (card, user)
                continue
            loop = mine.interview.loop
            assert row is not None
            assert row[:3] == (loop.pk, loop.status, loop.role_id)
            assert sql.aware(row[3]) == mine.interview.scheduled_start
            assert card_of(row[4:]) == values(mine)
            found += 1
    assert found == len(world.cards)
    for pk in OUT_OF_RANGE:
        with transaction.atomic():
            assert queries.card_locked(scorecard_id=pk, user_id=interviewer.pk) is None
    for pk in NO_SUCH_ID:
        with transaction.atomic():
            assert queries.card_locked(scorecard_id=pk, user_id=interviewer.pk) is None
            assert not Scorecard.objects.filter(pk=pk, interviewer=interviewer).exists()


def test_it_updates_a_draft_as_the_orm_does(world: World) -> None:
    for name in ("pia_first", "ines_second"):
        card = world.card(name)
        now = timezone.now() + timedelta(minutes=5)
        change = {"recommendation": "strong_no", "summary": f"Rewritten {name}"}
        expected = orm_outcome(
            lambda card=card, now=now, change=change: Scorecard.objects.filter(pk=card.pk).update(
                **change, updated_at=now
            )
        )

        queries.draft_update(scorecard_id=card.pk, now=now, **change)

        assert content() == expected
        assert world.card(name).updated_at == now


def test_it_reads_each_question_with_the_cards_rating_in_order(world: World) -> None:
    pairs = 0
    for card in world.cards.values():
        for interview in world.interviews:
            rows = queries.ratings_of_interview(scorecard_id=card.pk, interview_id=interview.pk)
            ratings = {r.item_id: r for r in QuestionRating.objects.filter(scorecard=card)}
            expected = []
            for item in InterviewQuestion.objects.filter(interview=interview).order_by("order"):
                rating = ratings.get(item.pk)
                expected.append(
                    (item.question.title, None, None, None, None)
                    if rating is None
                    else (
                        item.question.title,
                        rating.pk,
                        rating.rating,
                        rating.not_asked,
                        rating.not_asked_reason,
                    )
                )
            assert rows == expected, (card, interview)
            pairs += card.interview_id == interview.pk
    assert pairs == len(world.cards)
    # Pia's draft holds each case: rated, not asked, a row without a rating, no row.
    pia = world.card("pia_first")
    rows = queries.ratings_of_interview(scorecard_id=pia.pk, interview_id=pia.interview_id)
    assert {
        (rated is None, rating is None, bool(not_asked)) for _, rated, rating, not_asked, _ in rows
    } == {
        (False, False, False),
        (False, True, True),
        (False, True, False),
        (True, True, False),
    }


def test_it_submits_a_draft_once_as_the_orms_conditional_update_does(world: World) -> None:
    card = world.card("ines_second")
    now = timezone.now()

    def submit() -> None:
        won = Scorecard.objects.filter(pk=card.pk, status=Scorecard.Status.DRAFT).update(
            status=Scorecard.Status.SUBMITTED, submitted_at=now
        )
        assert won == 1

    expected = orm_outcome(submit)

    assert queries.card_submit(scorecard_id=card.pk, now=now) is True
    assert content() == expected

    assert queries.card_submit(scorecard_id=card.pk, now=now + timedelta(hours=1)) is False
    assert content() == expected
    assert world.card("ines_second").submitted_at == now

    # Nor does it, or the ORM's conditional update, resubmit the cards submitted before.
    before = content()
    for name in ("omar_second", "sam_first", "ines_first", "olga_decided"):
        card = world.card(name)
        later = timezone.now() + timedelta(days=1)
        assert queries.card_submit(scorecard_id=card.pk, now=later) is False
        orm = Scorecard.objects.filter(pk=card.pk, status=Scorecard.Status.DRAFT)
        assert orm.update(status=Scorecard.Status.SUBMITTED, submitted_at=later) == 0
    assert content() == before


def test_it_says_whether_a_loop_holds_up_a_hire_as_visibility_does(world: World) -> None:
    def compare() -> list[bool]:
        answers = []
        for loop in [*world.loops, 2**62]:
            answer = queries.loop_holds_up_hire(loop if isinstance(loop, int) else loop.pk)
            assert answer == visibility.seats_holding_up_hire(loop).exists(), loop
            answers.append(answer)
        return answers

    # The panel loop waits for two drafts; the decided one only for its shadow, who holds
    # up nothing.
    assert compare() == [True, False, False]
    Scorecard.objects.filter(pk=world.cards["pia_first"].pk).update(
        status=Scorecard.Status.SUBMITTED, submitted_at=timezone.now()
    )
    assert compare() == [True, False, False]
    Scorecard.objects.filter(pk=world.cards["ines_second"].pk).update(
        status=Scorecard.Status.SUBMITTED, submitted_at=timezone.now()
    )
    assert compare() == [False, False, False]
