"""Personas and the loop most scorecard tests use.

The panel loop has two interviews of four questions each:

* Interview 1: Ines and Pia interview, Sam shadows;
* Interview 2: Omar and Ines interview (so Ines owes two cards in the loop).

Olga is an interviewer on no interview of the loop; Leo a calibration lead, also not on it.

`panel` is the panel built once for the module (`panel_built_once`), read again in each
test's savepoint (tests/support/shared_db.py). A module of transactional tests (the
`*_races.py` modules) builds its own per test instead (`panel_per_test`).
"""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoDbBlocker

from core.permissions import INTERVIEWER
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import make_user
from tests.scoring.helpers import ratings_for, submitted
from tests.support.loops import Built, Seat, build_loop
from tests.support.shared_db import make_personas, persona_user, rolled_back


def build_panel(
    recruiter: User, interviewer: User, other_interviewer: User, pia: User, sam: User
) -> Built:
    return build_loop(
        seats=[
            Seat(interviewers=[interviewer, pia], shadow=sam),
            Seat(interviewers=[other_interviewer, interviewer]),
        ],
        recruiter=recruiter,
    )


# The personas build_panel seats (by fixture name), for a module that builds it once.
PANEL_PERSONAS = ("recruiter", "interviewer", "other_interviewer", "pia", "sam")


@pytest.fixture(scope="module")
def panel_built_once(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[Built]:
    """The panel loop and its people, built once for the module that asks for it."""
    with rolled_back(django_db_blocker):
        make_personas(*PANEL_PERSONAS)
        yield build_panel(*(persona_user(name) for name in PANEL_PERSONAS))


@pytest.fixture
def panel_per_test(
    recruiter: User, interviewer: User, other_interviewer: User, pia: User, sam: User
) -> Built:
    """The panel built for one test, for a module that overrides `panel` with it: its
    tests commit (transactional), or build loops of their own beside it."""
    return build_panel(recruiter, interviewer, other_interviewer, pia, sam)


@pytest.fixture
def panel(panel_built_once: Built, db: None) -> Built:
    """The panel loop, built once for the module; each test reads it again in a savepoint
    of its own (tests/support/shared_db.py)."""
    return panel_built_once.fresh()


@pytest.fixture
def first(panel: Built):  # type: ignore[no-untyped-def]
    """Interview 1 (Ines, Pia; Sam shadows)."""
    return panel.interviews[0]


@pytest.fixture
def second(panel: Built):  # type: ignore[no-untyped-def]
    """Interview 2 (Omar, Ines)."""
    return panel.interviews[1]


@pytest.fixture
def sized(recruiter: User) -> dict[int, Built]:
    """Two loops with every card submitted, for query counts: 2 and 6 interviews of four
    questions, one interviewer each (`<size>-panelist-<n>`), each card rated and annotated,
    the first card of each loop amended once."""
    loops = {}
    for size in (2, 6):
        people = [make_user(f"{size}-panelist-{n}", INTERVIEWER) for n in range(1, size + 1)]
        built = build_loop(
            seats=[Seat(interviewers=[person]) for person in people],
            role_name=f"Role of {size}",
            candidate_name=f"Candidate of {size}",
            recruiter=recruiter,
        )
        for person, interview in zip(people, built.interviews, strict=True):
            submitted(person, interview, notes=f"notes of {person}", summary=f"by {person}")
        first = Scorecard.objects.get(interview=built.interviews[0])
        services.scorecard_amend(
            scorecard=first,
            by=people[0],
            reason="Typo in the summary",
            recommendation="yes",
            summary=f"by {people[0]}, amended",
            ratings=ratings_for(built.interviews[0], rating=3, notes=f"notes of {people[0]}"),
        )
        loops[size] = built
    return loops
