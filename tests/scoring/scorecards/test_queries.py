"""scoring/scorecards/queries.py, statement by statement, against the ORM queries it replaces.

Each test reads the same small world through the plain-SQL function and through the
ORM, and compares the two row for row, in the same order. A write is compared by the
tables it leaves: the ORM form of the write runs first and is rolled back, then the
function runs, and both leave the same rows. The world (`world`):

* The panel loop (conftest's `panel`, in progress):

  - `second` (Omar and Ines): Omar's card is the first of all, one question not
    asked, submitted and amended once; Ines has started an empty draft, so she is
    still blind in the loop.
  - `first` (Ines and Pia; Sam shadows): Sam's card came before the interviewers'
    and is submitted; Ines's is submitted and amended twice (the second amendment
    stamped a second before the first, as two servers with skewed clocks may);
    Pia's draft rates one question with rubric ticks and its follow-up, marks one
    not asked, holds notes without a rating for another and has no rating of the last.

  Afterwards `first`'s questions were put in reverse order and `second` moved before
  `first`, so question order, interview order and ids all disagree; and the first
  question got a new version (its rubric and follow-ups too), while the interview
  keeps the version it was assigned.

* The decided loop: one interview of two questions; Olga and Leo interview (Leo's
  seat added after Tara's shadow seat, so seat ids and seat order disagree), both
  submitted; Tara shadows and has no card. Rita decided it: a hire.

Ids are compared where callers read ids; timestamps from SQLite come back naive and
are read through core.sql as the callers read them (sql.aware, sql.from_row), and
JSON columns come back as text and are decoded, as scoring/scorecards/selectors.py does.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import sql
from core.permissions import INTERVIEWER
from interviews import services as interview_services
from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from kit import services as kit_services
from kit.models import FollowUp, RubricItem
from scoring import visibility
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.scorecards import queries, services
from tests.conftest import make_user
from tests.scoring.helpers import follow_ups, ratings_for, rubric
from tests.support.loops import Built, Seat, build_loop

CARD_FIELDS = [f.attname for f in Scorecard._meta.concrete_fields]
CHECKED = QuestionRating.checked.through
FOLLOW_UPS_ASKED = QuestionRating.follow_ups_asked.through
# Ids past the 64-bit key columns, which the statements answer without asking (on SQLite
# the ORM's query raises OverflowError), and ids in range that no row has.
OUT_OF_RANGE = [2**63, 2**64]
NO_SUCH_ID = [0, -1, 2**63 - 1]


@dataclass
class World:
    panel: Built
    decided: Built
    cards: dict[str, Scorecard]
    people: list[User]

    @property
    def interviews(self) -> list[Interview]:
        return [*self.panel.interviews, *self.decided.interviews]

    @property
    def loops(self) -> list[Loop]:
        return [self.panel.loop, self.decided.loop]

    def card(self, name: str) -> Scorecard:
        return Scorecard.objects.get(pk=self.cards[name].pk)


def filled(
    user: User,
    interview: Interview,
    ratings: list[services.RatingInput],
    *,
    recommendation: str = "yes",
    summary: str = "",
) -> Scorecard:
    card = services.scorecard_start(interview=interview, by=user)
    return services.scorecard_save_draft(
        scorecard=card, by=user, recommendation=recommendation, summary=summary, ratings=ratings
    )


@pytest.fixture
def world(
    panel: Built,
    first: Interview,
    second: Interview,
    recruiter: User,
    interviewer: User,
    other_interviewer: User,
    pia: User,
    sam: User,
    olga: User,
    lead: User,
) -> World:
    tara = make_user("tara", INTERVIEWER, first_name="Tara")
    cards: dict[str, Scorecard] = {}

    # Cards in an order that ids alone would sort wrongly: `second`'s first, then the shadow's.
    omar = ratings_for(second, rating=4, notes="Omar")
    omar[0] = replace(
        omar[0],
        rating=None,
        not_asked=True,
        not_asked_reason="Ran out of time",
        checked=(),
        follow_ups_asked=(),
    )
    cards["omar_second"] = services.scorecard_submit(
        scorecard=filled(other_interviewer, second, omar, summary="Omar's"), by=other_interviewer
    )
    shadow = ratings_for(first, rating=2, notes="Sam")
    cards["sam_first"] = services.scorecard_submit(
        scorecard=filled(sam, first, shadow, recommendation="no"), by=sam
    )
    ines = ratings_for(first, rating=3, notes="Ines")
    cards["ines_first"] = services.scorecard_submit(
        scorecard=filled(interviewer, first, ines), by=interviewer
    )
    items = panel.questions(first)
    strong = tuple(r.pk for r in rubric(items[0], RubricItem.Kind.STRONG))
    core = tuple(r.pk for r in rubric(items[0], RubricItem.Kind.CORE))
    cards["pia_first"] = filled(
        pia,
        first,
        [
            services.RatingInput(
                item=items[0].pk,
                rating=4,
                checked=(*strong, core[0]),
                follow_ups_asked=tuple(f.pk for f in follow_ups(items[0])),
                notes="Pia on the first",
            ),
            services.RatingInput(
                item=items[1].pk, not_asked=True, not_asked_reason="Covered in interview 2"
            ),
            services.RatingInput(item=items[2].pk, notes="No rating yet"),
        ],
        recommendation="no",
        summary="Half done",
    )
    cards["ines_second"] = services.scorecard_start(interview=second, by=interviewer)

    one = services.scorecard_amend(
        scorecard=cards["ines_first"], by=interviewer, reason="Typo in the summary",
        recommendation="yes", summary="Solid", ratings=ines,
    )  # fmt: skip
    omar[1] = replace(omar[1], rating=2)
    services.scorecard_amend(
        scorecard=cards["omar_second"], by=other_interviewer, reason="Misread my notes",
        recommendation="yes", summary="Omar's", ratings=omar,
    )  # fmt: skip
    three = services.scorecard_amend(
        scorecard=cards["ines_first"], by=interviewer, reason="Second thoughts",
        recommendation="strong_yes", summary="Solid", ratings=ines,
    )  # fmt: skip
    Amendment.objects.filter(pk=three.pk).update(at=one.at - timedelta(seconds=1))

    interview_services.interview_questions_reorder(
        interview=first, order=[item.pk for item in reversed(items)]
    )
    question = items[0].question
    kit_services.question_update(
        question=question,
        content=kit_services.Content(
            prompt="A new prompt.",
            outline="Names the bottleneck. A strong answer also shards it.",
            follow_ups=("And then?", "Why?"),
        ),
    )
    question.refresh_from_db()
    assert question.current_id != items[0].version_id
    # Swapped in three steps: (loop, order) is unique at every one.
    Interview.objects.filter(pk=first.pk).update(order=100)
    Interview.objects.filter(pk=second.pk).update(order=1)
    Interview.objects.filter(pk=first.pk).update(order=2)

    decided = build_loop(
        seats=[Seat(interviewers=[olga], shadow=tara)],
        role_name="Data Engineer",
        candidate_name="Dana Reyes",
        recruiter=recruiter,
        questions_per_interview=2,
    )
    (hired,) = decided.interviews
    # An interviewer added after the shadow (as the admin does), so seat ids and seat order differ.
    Panelist.objects.create(interview=hired, user=lead)
    for person in (olga, lead):
        card = filled(person, hired, ratings_for(hired, rating=4, notes=person.username))
        cards[f"{person.username}_decided"] = services.scorecard_submit(scorecard=card, by=person)
    services.loop_decide(
        loop=decided.loop, by=recruiter, decision="hire", rationale="Strong across the board"
    )

    panel.loop.refresh_from_db()
    assert panel.loop.status == Loop.Status.IN_PROGRESS
    return World(
        panel=panel,
        decided=decided,
        cards=cards,
        people=[recruiter, interviewer, other_interviewer, pia, sam, olga, lead, tara],
    )


def values(card: Scorecard | None) -> tuple[Any, ...] | None:
    return None if card is None else tuple(getattr(card, name) for name in CARD_FIELDS)


def card_of(columns: tuple[Any, ...] | list[Any]) -> tuple[Any, ...] | None:
    """A card's columns from a statement as the callers read them (None: no card)."""
    return None if columns[0] is None else values(sql.from_row(Scorecard, columns))


def content() -> dict[str, list[tuple[Any, ...]]]:
    """The scorecard tables, each row keyed by what it belongs to rather than by its id:
    a write made twice, once rolled back, takes new ids on PostgreSQL, whose sequences
    do not roll back. The link tables are counted too: foreign keys are checked only at
    commit, so a link left to a deleted rating would hide from the joins."""
    card = [name for name in CARD_FIELDS if name != "id"]
    rating = ("scorecard__interview_id", "scorecard__interviewer_id", "item_id")
    through = tuple(f"questionrating__{name}" for name in rating)
    return {
        "cards": list(
            Scorecard.objects.order_by("interview_id", "interviewer_id").values_list(*card)
        ),
        "ratings": list(
            QuestionRating.objects.order_by(*rating).values_list(
                *rating, "version_id", "rating", "not_asked", "not_asked_reason", "notes"
            )
        ),
        "checked": list(
            CHECKED.objects.order_by(*through, "rubricitem_id").values_list(
                *through, "rubricitem_id"
            )
        ),
        "follow_ups_asked": list(
            FOLLOW_UPS_ASKED.objects.order_by(*through, "followup_id").values_list(
                *through, "followup_id"
            )
        ),
        "links": [(CHECKED.objects.count(), FOLLOW_UPS_ASKED.objects.count())],
    }


def decoded(value: Any) -> Any:
    # A JSON column on a plain cursor: text on SQLite, text or parsed on PostgreSQL.
    return json.loads(value) if isinstance(value, str | bytes) else value


def orm_outcome(write: Callable[[], object]) -> dict[str, list[tuple[Any, ...]]]:
    """The tables as the ORM `write` leaves them; the write itself is rolled back."""
    with transaction.atomic():
        write()
        outcome = content()
        transaction.set_rollback(True)
    return outcome


# --- writing a card ------------------------------------------------------------------------


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


def test_it_locks_the_card_row_only_on_postgresql(first: Interview, interviewer: User) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        queries.card_locked(scorecard_id=card.pk, user_id=interviewer.pk)
        list(Scorecard.objects.select_for_update(of=("self",)).filter(pk=card.pk))
    # (The savepoint's own statements aside.)
    statement, orm = (q["sql"] for q in captured.captured_queries if "SELECT" in q["sql"])
    if connection.vendor == "postgresql":
        assert statement.rstrip().endswith("FOR UPDATE OF s")
        assert orm.endswith(f"FOR UPDATE OF {connection.ops.quote_name(Scorecard._meta.db_table)}")
    else:
        assert "FOR UPDATE" not in statement and "FOR UPDATE" not in orm


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_lock_outside_a_transaction() -> None:
    assert not connection.in_atomic_block
    # Stricter than the ORM, which refuses only where it would lock (PostgreSQL).
    with pytest.raises(TransactionManagementError):
        queries.card_locked(scorecard_id=1, user_id=1)
    if connection.vendor == "postgresql":
        with pytest.raises(TransactionManagementError):
            list(Scorecard.objects.select_for_update().filter(pk=1))


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


# --- reading cards -------------------------------------------------------------------------


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
