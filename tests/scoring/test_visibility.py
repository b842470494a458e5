"""The seat and blind rule (scoring.visibility) as a table, and every reader of it held to it.

Each row of TABLE is one case of the docstring table of scoring/visibility.py, for one
persona: the subject holds a seat of the given kind on interview 1 (or none) with a card
in the given status, and the rest of the loop is always the same:

* Interview 1: Omar interviews (submitted), beside the subject's seat if any;
* Interview 2: Pia interviews (submitted), Sam shadows (a draft).

So whatever the row, nothing else holds up a hire, the others' submitted cards are
Omar's and Pia's, and Sam's draft is never anyone's to read but Sam's.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail
from django.db import connection
from django.http import Http404
from django.test import Client, TestCase
from pytest_django import DjangoDbBlocker

from core.api.exceptions import ApplicationError
from core.permissions import INTERVIEWER
from interviews.models import Interview, Panelist
from interviews.selectors import my_interviews
from scoring import visibility
from scoring.calibration.ratings import load_ratings
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import reminders, selectors, services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail
from tests.scoring.helpers import draft, ended, submitted
from tests.support.loops import Built, Seat, build_loop
from tests.support.shared_db import make_personas, persona_user, read_again, rolled_back

# What the subject reads in the loop, in the docstring's words.
OWN = "own cards only"
OWN_ALL = "own + all submitted"
ALL = "all submitted"
NOTHING = "nothing (404)"


@dataclass(frozen=True)
class Row:
    seat: str  # interviewer, shadow, none
    card: str  # none, draft, submitted
    persona: str  # interviewer, lead (calibration lead), recruiter
    blind: bool | None  # None: "--", not on the loop and not a recruiter
    reads: str
    owes: bool  # "--" is False: no seat, nothing owed
    reminded: bool
    waits: bool  # a hire (and the move to debrief) waits for this seat
    counted: bool  # the card's ratings count in calibration; "--" is False

    @property
    def id(self) -> str:
        return f"{self.seat}-{self.card}-{self.persona}"


yes, no, __ = True, False, None  # as the docstring writes them; __ is its "--"

# The docstring's table, one row per persona ("any" spelled out). A recruiter's own
# open seat is the docstring's "open seat" row: not blind, the rest as the seat's row.
# fmt: off
TABLE = [
    #   seat           card         persona        blind reads    owes reminded waits counted
    Row("interviewer", "none",      "interviewer", yes,  OWN,     yes, yes,     yes,  no),
    Row("interviewer", "none",      "lead",        yes,  OWN,     yes, yes,     yes,  no),
    Row("interviewer", "none",      "recruiter",   no,   OWN_ALL, yes, yes,     yes,  no),
    Row("interviewer", "draft",     "interviewer", yes,  OWN,     yes, yes,     yes,  no),
    Row("interviewer", "draft",     "lead",        yes,  OWN,     yes, yes,     yes,  no),
    Row("interviewer", "draft",     "recruiter",   no,   OWN_ALL, yes, yes,     yes,  no),
    Row("interviewer", "submitted", "interviewer", no,   OWN_ALL, no,  no,      no,   yes),
    Row("interviewer", "submitted", "lead",        no,   OWN_ALL, no,  no,      no,   yes),
    Row("interviewer", "submitted", "recruiter",   no,   OWN_ALL, no,  no,      no,   yes),
    Row("shadow",      "none",      "interviewer", yes,  OWN,     no,  yes,     no,   no),
    Row("shadow",      "none",      "lead",        yes,  OWN,     no,  yes,     no,   no),
    Row("shadow",      "none",      "recruiter",   no,   OWN_ALL, no,  yes,     no,   no),
    Row("shadow",      "draft",     "interviewer", yes,  OWN,     no,  yes,     no,   no),
    Row("shadow",      "draft",     "lead",        yes,  OWN,     no,  yes,     no,   no),
    Row("shadow",      "draft",     "recruiter",   no,   OWN_ALL, no,  yes,     no,   no),
    Row("shadow",      "submitted", "interviewer", no,   OWN_ALL, no,  no,      no,   no),
    Row("shadow",      "submitted", "lead",        no,   OWN_ALL, no,  no,      no,   no),
    Row("shadow",      "submitted", "recruiter",   no,   OWN_ALL, no,  no,      no,   no),
    Row("none",        "none",      "recruiter",   no,   ALL,     no,  no,      no,   no),
    Row("none",        "none",      "interviewer", __,   NOTHING, no,  no,      no,   no),
    Row("none",        "none",      "lead",        __,   NOTHING, no,  no,      no,   no),
]
# fmt: on
# Module scope: the world of a row is built once for the tests of the row.
ROWS = pytest.mark.parametrize("row", TABLE, ids=[row.id for row in TABLE], scope="module")

# The seats of the loop, by label: the subject's ("own") on interview 1 when they hold one.
OTHERS_SUBMITTED = frozenset({"omar", "pia"})
INTERVIEW_OF = {"own": 0, "omar": 0, "pia": 1, "sam": 1}
# Ratings differ by card, so a rating read is known to come from the right card.
RATING = {"own": 3, "omar": 2, "pia": 4, "sam": 1}
SUMMARY = {label: f"summary-of-{label}-card-4f1c" for label in INTERVIEW_OF}


def seats_of(row: Row) -> frozenset[str]:
    return frozenset({"omar", "pia", "sam"} | ({"own"} if row.seat != "none" else set()))


def done_seats(row: Row) -> frozenset[str]:
    return OTHERS_SUBMITTED | ({"own"} if row.card == "submitted" else set())


def interviewer_seats(row: Row) -> frozenset[str]:
    return frozenset({"omar", "pia"} | ({"own"} if row.seat == "interviewer" else set()))


def cards_read(row: Row) -> frozenset[str]:
    """The cards the row's subject may read, by label."""
    own = {"own"} if row.card != "none" else set()
    return frozenset(
        {
            OWN: own,
            OWN_ALL: own | OTHERS_SUBMITTED,
            ALL: OTHERS_SUBMITTED,
            NOTHING: set(),
        }[row.reads]
    )


def pending_to(row: Row) -> frozenset[str]:
    """The seats that read as still pending to the subject: all but those whose
    submitted card they may read."""
    return seats_of(row) - (done_seats(row) & cards_read(row))


def counted_cards(row: Row) -> frozenset[str]:
    return OTHERS_SUBMITTED | ({"own"} if row.counted else set())


@dataclass
class World:
    row: Row
    built: Built
    subject: User
    users: dict[str, User]  # by seat label, "own" the subject
    cards: dict[str, Scorecard]  # by label; no "own" before the subject starts one

    @property
    def loop_pk(self) -> int:
        return self.built.loop.pk

    def interview(self, label: str) -> Interview:
        return self.built.interviews[INTERVIEW_OF[label]]

    def labels(self, cards: Iterable[Scorecard | int]) -> frozenset[str]:
        """The labels of scorecards (cards or their ids)."""
        of = {card.pk: label for label, card in self.cards.items()}
        ids = [c if isinstance(c, int) else c.pk for c in cards]
        assert len(ids) == len(set(ids)), "a card is listed twice"
        return frozenset(of[pk] for pk in ids)

    def seat_label(self, interview_id: int, user_id: int) -> str:
        (label,) = [
            label
            for label, user in self.users.items()
            if user.pk == user_id and self.interview(label).pk == interview_id
        ]
        return label

    def seat_labels(self, seats: list[Panelist]) -> frozenset[str]:
        labels = [self.seat_label(seat.interview_id, seat.user_id) for seat in seats]
        assert len(labels) == len(set(labels)), "a seat is listed twice"
        return frozenset(labels)

    def is_shadow(self, label: str) -> bool:
        return label == "sam" or (label == "own" and self.row.seat == "shadow")

    def ids(self, labels: frozenset[str]) -> list[int]:
        return sorted(self.cards[label].pk for label in labels)


@pytest.fixture(scope="module")
def personas(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    """Rita, Leo, Ines, Omar, Pia and Sam, made once for the module."""
    with rolled_back(django_db_blocker):
        make_personas()
        yield


@pytest.fixture
def recruiter(personas: None, db: None) -> User:
    return persona_user("recruiter")


@pytest.fixture(scope="module")
def built_world(row: Row, personas: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The loop of the module docstring, with the subject seated as the row says; built
    once per row (tests/support/shared_db.py)."""
    with rolled_back(django_db_blocker):
        yield build_world(row)


@pytest.fixture
def world(built_world: World, db: None) -> World:
    """The row's world as the test's savepoint sees it, objects of the test's own."""
    return read_again(built_world)


def build_world(row: Row) -> World:
    subject = persona_user(row.persona)  # Ines, Leo or Rita
    other_interviewer, pia, sam = (persona_user(n) for n in ("other_interviewer", "pia", "sam"))
    if row.seat != "none":
        # Only members of the Interviewers group sit on panels: Leo and Rita interview too.
        subject.groups.add(Group.objects.get(name=INTERVIEWER))
    first = {
        "interviewer": Seat(interviewers=[subject, other_interviewer]),
        "shadow": Seat(interviewers=[other_interviewer], shadow=subject),
        "none": Seat(interviewers=[other_interviewer]),
    }[row.seat]
    built = build_loop(
        seats=[first, Seat(interviewers=[pia], shadow=sam)],
        recruiter=persona_user("recruiter"),
        questions_per_interview=1,
    )
    users = {"omar": other_interviewer, "pia": pia, "sam": sam}
    if row.seat != "none":
        users["own"] = subject
    world = World(row=row, built=built, subject=subject, users=users, cards={})

    def card(label: str, write: Callable[..., Scorecard]) -> None:
        world.cards[label] = write(
            users[label], world.interview(label), rating=RATING[label], summary=SUMMARY[label]
        )

    card("omar", submitted)
    card("pia", submitted)
    card("sam", draft)
    if row.card == "draft":
        card("own", draft)
    elif row.card == "submitted":
        card("own", submitted)
    return world


# --- the rule, given the facts ---------------------------------------------------------------


@ROWS
def test_it_answers_as_the_table_given_the_facts(row: Row) -> None:
    shadow, done = row.seat == "shadow", row.card == "submitted"
    mine = [done] if row.seat != "none" else []

    if row.blind is not None:
        assert visibility.blind(done=mine, recruiter=lambda: row.persona == "recruiter") is (
            row.blind
        )
        for label in seats_of(row):
            seen = visibility.seen_done(
                done=label in done_seats(row), blind=row.blind, own=label == "own"
            )
            assert seen is (label not in pending_to(row)), label
    if row.seat != "none":
        assert visibility.holds_up_hire(shadow=shadow, done=done) is row.waits
        assert visibility.owes(shadow=shadow, done=done, decided=False) is row.owes
        assert visibility.owes(shadow=shadow, done=done, decided=True) is False
        assert visibility.counts(shadow=shadow, done=done) is row.counted


# --- the rule, as queries, and its readers ----------------------------------------------------


def readable_sql_ids(world: World, user: User, blind: bool) -> list[int]:
    card, interview = Scorecard._meta, Interview._meta
    where, params = visibility.readable_sql("s", user_id=user.pk, blind=blind)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.id FROM {card.db_table} s"
            f" JOIN {interview.db_table} i ON i.id = s.{card.get_field('interview').column}"
            f" WHERE i.{interview.get_field('loop').column} = %s AND {where}",
            [world.loop_pk, *params],
        )
        return sorted(pk for (pk,) in cursor.fetchall())


def pending_seats(world: World, labels: frozenset[str]) -> list[tuple[str, int, bool]]:
    """The seats as the debrief document lists them pending: (username, interview, shadow)."""
    return sorted(
        (world.users[label].username, world.interview(label).pk, world.is_shadow(label))
        for label in labels
    )


def listed_pending(document: dict[str, Any]) -> list[tuple[str, int, bool]]:
    return sorted((p["username"], p["interview"], p["is_shadow"]) for p in document["pending"])


@ROWS
def test_the_queries_and_readers_agree_with_the_table(row: Row, world: World) -> None:
    user, loop = world.subject, world.built.loop
    read = cards_read(row)

    # The rule as queries: scoring.visibility's own forms, ORM and SQL.
    in_loop = Scorecard.objects.filter(interview__loop=loop)
    blind = visibility.is_blind(user=user, loop=loop)
    if row.blind is not None:
        assert blind is row.blind
    assert world.labels(in_loop.filter(visibility.readable(user=user, blind=blind))) == read
    assert readable_sql_ids(world, user, blind) == world.ids(read)
    for each in (True, False):
        orm = sorted(in_loop.filter(visibility.readable(user=user, blind=each)).values_list("pk"))
        assert readable_sql_ids(world, user, each) == [pk for (pk,) in orm], each
    anywhere = Scorecard.objects.filter(visibility.readable_anywhere(user=user))
    assert world.labels(anywhere) == read

    orm_done = dict(visibility.with_done(Panelist.objects.all()).values_list("pk", "submitted"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.id, {visibility.seat_done_sql('p')} FROM {Panelist._meta.db_table} p",
            [visibility.SUBMITTED],
        )
        sql_done = {pk: bool(done) for pk, done in cursor.fetchall()}
    assert sql_done == orm_done
    seats = {
        seat.pk: world.seat_label(seat.interview_id, seat.user_id)
        for seat in Panelist.objects.all()
    }
    assert {seats[pk]: done for pk, done in orm_done.items()} == {
        label: label in done_seats(row) for label in seats_of(row)
    }

    waiting = frozenset({"own"} if row.waits else set())
    assert world.seat_labels(list(visibility.seats_holding_up_hire(loop))) == waiting
    assert world.seat_labels(list(visibility.seats_holding_up_hire(loop.pk))) == waiting
    reminded = {"sam"} | ({"own"} if row.reminded else set())
    assert world.seat_labels(list(visibility.seats_to_remind())) == reminded

    assert world.labels(Scorecard.objects.filter(**visibility.counted())) == counted_cards(row)
    rated = QuestionRating.objects.filter(**visibility.counted("scorecard__"))
    assert world.labels(rated.values_list("scorecard_id", flat=True)) == counted_cards(row)

    # The readers: selectors, then the endpoints over them.
    api = client_for(user)
    web = Client()
    web.force_login(user)
    assert world.labels(selectors.scorecards_visible_to(user=user, loop=loop)) == read
    assert world.labels(selectors.scorecards_for_api(user=user)) == read
    listing = api.get("/api/v1/scorecards/").json()
    assert listing["count"] == len(read)
    assert sorted(c["id"] for c in listing["results"]) == world.ids(read)
    for label, card in world.cards.items():
        status = api.get(f"/api/v1/scorecards/{card.pk}/").status_code
        assert status == (200 if label in read else 404), label
    owed, _, _ = my_interviews(user=user)
    assert owed == ([world.interview("own")] if row.owes else [])
    ratings = load_ratings(loop.role)
    assert sorted(zip(ratings.scorecard.tolist(), ratings.rating.tolist(), strict=True)) == sorted(
        (world.cards[label].pk, float(RATING[label])) for label in counted_cards(row)
    )

    response = api.get(f"/api/v1/loops/{loop.pk}/debrief/")
    page = web.get(f"/loops/{loop.pk}/debrief/")
    if row.blind is None:
        with pytest.raises(Http404):
            selectors.loop_for_debrief(user=user, pk=loop.pk)
        with pytest.raises(Http404):
            selectors.debrief_document(user=user, pk=loop.pk)
        assert detail(response, 404, "not_found") == NOT_FOUND
        assert page.status_code == 404
        return

    assert selectors.loop_for_debrief(user=user, pk=loop.pk) == loop
    debrief = selectors.debrief(user=user, loop=loop)
    assert debrief.blind is row.blind
    assert debrief.owed is row.owes
    assert world.labels(debrief.scorecards) == read
    assert world.seat_labels(debrief.pending) == pending_to(row)
    assert world.seat_labels(debrief.outstanding) == pending_to(row) & interviewer_seats(row)
    assert sorted(r[:4] for r in debrief.counted_ratings) == sorted(
        (world.users[label].pk, world.users[label].username, float(RATING[label]), 4)
        for label in read & counted_cards(row)
    )

    document = selectors.debrief_document(user=user, pk=loop.pk)
    assert document["blind"] is row.blind
    assert sorted(c["id"] for c in document["scorecards"]) == world.ids(read)
    assert listed_pending(document) == pending_seats(world, pending_to(row))

    assert response.status_code == 200
    data = response.json()
    assert data["blind"] is row.blind
    assert {c["id"]: c["summary"] for c in data["scorecards"]} == {
        world.cards[label].pk: SUMMARY[label] for label in read
    }
    assert listed_pending(data) == pending_seats(world, pending_to(row))

    # While blind, the page shows its notice in place of the cards, the reader's own too.
    assert page.status_code == 200
    body = page.content.decode()
    assert frozenset(label for label, text in SUMMARY.items() if text in body) == (
        frozenset() if row.blind else read
    )
    assert ("Feedback stays blind until you submit." in body) is row.blind


# --- the services ----------------------------------------------------------------------------


@pytest.fixture
def reminder_hours(settings):  # type: ignore[no-untyped-def]
    settings.SCORECARD_REMINDER_AFTER_HOURS = 24
    settings.SCORECARD_REMINDER_EVERY_HOURS = 24


@ROWS
def test_reminders_and_the_hire_follow_the_table(
    row: Row, world: World, recruiter: User, reminder_hours: None
) -> None:
    loop = world.built.loop
    first, last = world.built.interviews
    after = timedelta(hours=24)

    assert reminders.reminders_send(now=ended(first) + after - timedelta(seconds=1)) == 0
    with TestCase.captureOnCommitCallbacks(execute=True):  # the outbox sends on commit
        reminders.reminders_send(now=ended(last) + after)
    reminded = ["sam"] + (["own"] if row.reminded else [])
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        world.users[label].email for label in reminded
    )

    loop.refresh_from_db()
    assert loop.status == ("in_progress" if row.waits else "debrief")
    if row.waits:
        with pytest.raises(ApplicationError) as refused:
            services.loop_decide(loop=loop, by=recruiter, decision="hire", rationale="Strong")
        name = world.subject.get_full_name()
        assert refused.value.message == (
            f"A hire needs every interviewer's scorecard; still waiting for {name} (Interview 1)."
        )
        if "own" in world.cards:
            services.scorecard_submit(scorecard=world.cards["own"], by=world.subject)
        else:
            submitted(world.subject, first)
        loop.refresh_from_db()
        assert loop.status == "debrief"

    decided = services.loop_decide(loop=loop, by=recruiter, decision="hire", rationale="Strong")

    assert (decided.status, decided.decision) == ("decided", "hire")
    assert list(visibility.seats_to_remind()) == []
