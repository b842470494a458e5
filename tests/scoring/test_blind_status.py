"""Blind means blind in the loop's status, for every persona and seat kind.

A blind panelist (an interviewer, a shadow, a lead with a seat) reads "scheduled" until
the loop is decided, in the loop list and detail, the debrief API and page, and the
`?status=` filter; once every seat of theirs is done they read the true status. A
recruiter with a seat is never blind. (The other channels: test_blind_channels.py.)
"""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from pytest_django import DjangoDbBlocker

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from interviews.models import Interview, Loop
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import client_for, make_user
from tests.scoring.blind_reads import card, statuses_shown
from tests.scoring.helpers import submitted
from tests.support.loops import Built, Seat, build_loop
from tests.support.shared_db import rolled_back

# --- personas and seats -------------------------------------------------------------------


# Built once per module, per persona and seat kind (tests/support/shared_db.py): the
# people, then the person's seats in a loop; each test reads them afresh.
NAMES = {"recruiter": "rita", "lead": "leo", "interviewer": "ines", "omar": "omar", "pia": "pia"}


@pytest.fixture(scope="module")
def people(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    with rolled_back(django_db_blocker):
        make_user("rita", RECRUITER, first_name="Rita")
        make_user("leo", LEAD, first_name="Leo")
        make_user("ines", INTERVIEWER, first_name="Ines")
        make_user("omar", INTERVIEWER, first_name="Omar")
        make_user("pia", INTERVIEWER, first_name="Pia")
        yield


def user(persona: str) -> User:
    return User.objects.get(username=NAMES[persona])


@pytest.fixture
def recruiter(people: None, db: None) -> User:
    return user("recruiter")


@pytest.fixture
def pia(people: None, db: None) -> User:
    return user("pia")


@pytest.fixture
def other_interviewer(people: None, db: None) -> User:
    return user("omar")


@pytest.fixture(scope="module", params=["interviewer", "lead", "recruiter"])
def persona(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# Seat kinds: the person's seats in the loop; Pia and Omar fill the rest.
SEAT_KINDS = ["interviewer", "shadow", "two interviewer seats", "interviewer and shadow"]


def seats_for(kind: str, person: User, pia: User, omar: User) -> list[Seat]:
    first = Seat(interviewers=[person, pia])
    return {
        "interviewer": [first, Seat(interviewers=[omar])],
        "shadow": [Seat(interviewers=[pia], shadow=person), Seat(interviewers=[omar])],
        "two interviewer seats": [first, Seat(interviewers=[omar, person])],
        "interviewer and shadow": [first, Seat(interviewers=[omar], shadow=person)],
    }[kind]


@pytest.fixture(scope="module", params=SEAT_KINDS)
def seat_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def seated_once(
    persona: str, seat_kind: str, people: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[Built]:
    """Who holds the seats: an interviewer, or a lead or recruiter who also interviews
    (panels take only members of the Interviewers group); and the loop."""
    with rolled_back(django_db_blocker):
        person = user(persona)
        person.groups.add(Group.objects.get(name=INTERVIEWER))
        yield build_loop(
            seats=seats_for(seat_kind, person, user("pia"), user("omar")),
            recruiter=user("recruiter"),
        )


@pytest.fixture
def person(persona: str, seated_once: Built, db: None) -> User:
    return user(persona)


@pytest.fixture
def seated(seated_once: Built, db: None) -> Built:
    return seated_once.fresh()


def my_interviews(built: Built, user: User) -> list[Interview]:
    return [i for i in built.interviews if i.panel.filter(user=user).exists()]


def co_panelists_submit(built: Built, person: User) -> None:
    """Everyone else on the loop's panels submits their card."""
    for interview in built.interviews:
        for seat in interview.panel.exclude(user=person).select_related("user"):
            submitted(seat.user, interview, rating=2)


def start_own_cards(built: Built, person: User) -> None:
    """The person submits every seat but their last, and keeps a draft for that one."""
    mine = my_interviews(built, person)
    for interview in mine[:-1]:
        submitted(person, interview, rating=4)
    card(person, mine[-1], [4, 4, 4, 4], submit=False)


# --- what the person reads of the loop's status -------------------------------------------


def seen(user: User, loop: Loop) -> dict[str, str | None]:
    """The loop's status through every channel that shows it to the user."""
    api = client_for(user)
    listed = {row["id"]: row["status"] for row in api.get("/api/v1/loops/").json()["results"]}
    detail = api.get(f"/api/v1/loops/{loop.pk}/")
    assert detail.status_code == 200
    debrief = api.get(f"/api/v1/loops/{loop.pk}/debrief/")
    assert debrief.status_code == 200
    web = Client()
    web.force_login(user)
    page = web.get(f"/loops/{loop.pk}/debrief/")
    assert page.status_code == 200
    channels: dict[str, str | None] = {
        "api list": listed.get(loop.pk),
        "api detail": detail.json()["status"],
        "api debrief": debrief.json()["loop"]["status"],
        "debrief page": statuses_shown(page.content.decode())[0],
    }
    for name, path in (("loop list page", "/loops/"), ("loop page", f"/loops/{loop.pk}/")):
        response = web.get(path)
        if response.status_code == 200:  # recruiters' pages; everyone else gets a 404
            shown = statuses_shown(response.content.decode())
            channels[name] = shown[0] if shown else None
    return channels


def filtered(user: User, loop: Loop) -> list[str]:
    """The `?status=` values under which the loop is listed to the user."""
    api = client_for(user)
    found = []
    for status in Loop.Status.values:
        response = api.get("/api/v1/loops/", {"status": status})
        assert response.status_code == 200
        if loop.pk in [row["id"] for row in response.json()["results"]]:
            found.append(status)
    return found


def everywhere(status: str, persona: str) -> dict[str, str | None]:
    channels: dict[str, str | None] = {
        "api list": status, "api detail": status, "api debrief": status, "debrief page": status,
    }  # fmt: skip
    if persona == "recruiter":
        channels |= {"loop list page": status, "loop page": status}
    return channels


def true_status(loop: Loop) -> str:
    loop.refresh_from_db()
    return loop.status


def test_a_blind_panelist_reads_scheduled_while_co_panelists_submit(
    persona: str, seat_kind: str, person: User, seated: Built
) -> None:
    start_own_cards(seated, person)
    co_panelists_submit(seated, person)

    # Only shadow seats of the person's are open: nothing holds the loop up.
    waits = seat_kind in ("interviewer", "two interviewer seats")
    truth = "in_progress" if waits else "debrief"
    assert true_status(seated.loop) == truth
    # A recruiter is never blind: they read every submitted card anyway.
    expected = truth if persona == "recruiter" else "scheduled"
    assert seen(person, seated.loop) == everywhere(expected, persona)
    assert filtered(person, seated.loop) == [expected]


def test_once_every_seat_is_done_the_panelist_reads_the_true_status(
    persona: str, seat_kind: str, person: User, seated: Built
) -> None:
    start_own_cards(seated, person)
    co_panelists_submit(seated, person)

    own = Scorecard.objects.get(interview=my_interviews(seated, person)[-1], interviewer=person)
    services.scorecard_submit(scorecard=own, by=person)

    assert true_status(seated.loop) == "debrief"
    assert seen(person, seated.loop) == everywhere("debrief", persona)
    assert filtered(person, seated.loop) == ["debrief"]


@pytest.mark.parametrize("persona", ["interviewer", "lead"], indirect=True)
def test_a_panelist_who_has_not_started_reads_scheduled_once_a_co_panelist_submits(
    seat_kind: str, person: User, seated: Built, persona: str
) -> None:
    co_panelists_submit(seated, person)

    assert true_status(seated.loop) in ("in_progress", "debrief")
    assert seen(person, seated.loop) == everywhere("scheduled", persona)
    assert filtered(person, seated.loop) == ["scheduled"]


@pytest.mark.parametrize("persona", ["interviewer", "lead"], indirect=True)
def test_a_blind_panelist_reads_decided_once_the_loop_is_decided(
    seat_kind: str, person: User, seated: Built, persona: str, recruiter: User
) -> None:
    co_panelists_submit(seated, person)
    services.loop_decide(loop=seated.loop, by=recruiter, decision="no_hire", rationale="Withdrew")

    assert seen(person, seated.loop) == everywhere("decided", persona)
    assert filtered(person, seated.loop) == ["decided"]


def test_before_anyone_submits_every_persona_reads_scheduled(
    persona: str, seat_kind: str, person: User, seated: Built
) -> None:
    assert true_status(seated.loop) == "scheduled"
    assert seen(person, seated.loop) == everywhere("scheduled", persona)
    assert filtered(person, seated.loop) == ["scheduled"]


@pytest.mark.parametrize("persona", ["interviewer"], indirect=True)
def test_the_status_filter_hides_the_loop_from_a_blind_panelist_but_not_from_the_others(
    person: User, seat_kind: str, seated: Built, recruiter: User, pia: User, persona: str
) -> None:
    start_own_cards(seated, person)
    co_panelists_submit(seated, person)
    truth = true_status(seated.loop)

    debrief = client_for(person).get("/api/v1/loops/", {"status": truth})

    assert debrief.status_code == 200
    assert debrief.json()["count"] == 0 and debrief.json()["results"] == []
    # Pia has submitted her only seat: she, like the recruiter, finds it there.
    for user in (pia, recruiter):
        listed = client_for(user).get("/api/v1/loops/", {"status": truth}).json()["results"]
        assert [row["id"] for row in listed] == [seated.loop.pk]
