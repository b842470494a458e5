"""The world the tests of scoring/scorecards/queries.py read, and how they compare.

tests/scoring/scorecards/test_queries_writes.py, test_queries_reads.py and
test_queries_locks.py hold scoring/scorecards/queries.py, statement by statement, against
the ORM queries it replaces.

Each test reads the same small world through the plain-SQL function and through the
ORM, and compares the two row for row, in the same order. A write is compared by the
tables it leaves: the ORM form of the write runs first and is rolled back, then the
function runs, and both leave the same rows. The world (`build_world`; each module
builds it once with `world_built_once`, tests/support/shared_db.py):

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from pytest_django import DjangoDbBlocker

from core import sql
from core.permissions import INTERVIEWER
from interviews import services as interview_services
from interviews.models import Interview, Loop, Panelist
from kit import services as kit_services
from kit.models import RubricItem
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.scorecards import services
from tests.conftest import make_user
from tests.scoring.conftest import PANEL_PERSONAS, build_panel
from tests.scoring.helpers import follow_ups, ratings_for, rubric
from tests.support.loops import Built, Seat, build_loop
from tests.support.shared_db import make_personas, persona_user, rolled_back

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


def build_world(
    *,
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


# The personas the world seats (by fixture name), beside Tara, whom build_world makes.
PEOPLE = (*PANEL_PERSONAS, "olga", "lead")


@contextmanager
def world_built_once(django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The world as build_world makes it on the panel loop, for a module-scoped fixture:
    built in a transaction rolled back when the block ends (tests/support/shared_db.py)."""
    with rolled_back(django_db_blocker):
        make_personas(*PEOPLE)
        people = {name: persona_user(name) for name in PEOPLE}
        panel = build_panel(*(people[name] for name in PANEL_PERSONAS))
        first, second = panel.interviews
        yield build_world(panel=panel, first=first, second=second, **people)


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
