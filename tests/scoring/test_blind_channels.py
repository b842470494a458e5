"""Blind means blind through every channel, for every persona and seat kind.

* Loop status: a blind panelist reads "scheduled" until the loop is decided, through
  every channel (test_blind_status.py); an unknown `?status=` is a clear 400 here.
* Calibration: a row computed before the user took a seat they are blind in is
  held back with a note, on the API and the page.
* Someone with two seats in a loop stays blind until both are done (the footnote of
  scoring/visibility.py's table, moved here from test_visibility.py).
* A placeholder card (every question "not asked") does not end blindness: a card
  must rate at least half of its questions, to submit and to amend.
* An amendment made after its author first read the other panelists' cards is
  marked so in the Amendment row, the audit event, the API and the debrief page.
"""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from core.models import AuditEvent
from core.permissions import INTERVIEWER
from interviews.models import Interview, Loop
from kit.models import Role
from scoring import visibility
from scoring.calibration.selectors import OWN_ROW_HELD_BACK
from scoring.models import (
    Amendment,
    CalibrationJob,
    CalibrationSnapshot,
    FeedbackRead,
    Scorecard,
)
from scoring.scorecards import selectors, services
from tests.conftest import client_for
from tests.problems import field_errors, problem
from tests.scoring.blind_reads import another_loop, card
from tests.scoring.helpers import draft, form_data, payload, state, submitted
from tests.support.loops import Built, Seat, build_loop

LATEST = "/api/v1/calibration/latest/"
AFTER_READING = "after reading the panel&#x27;s feedback</span>"
AFTER_READING_RAW = "after reading the panel's feedback</span>"
REASON = "Re-read my notes after the interview"


@pytest.fixture
def panel(panel_per_test: Built) -> Built:
    """Built for each test: other tests here build loops of their own beside it."""
    return panel_per_test


def test_an_unknown_status_filter_is_a_clear_400(interviewer: User) -> None:
    response = client_for(interviewer).get("/api/v1/loops/", {"status": "bogus"})

    assert field_errors(response) == {
        "status": ["Select a valid choice. bogus is not one of the available choices."]
    }


def test_a_lead_blind_in_a_loop_sees_no_calibration_figure_move_as_co_panelists_submit(
    lead: User,
    recruiter: User,
    pia: User,
    other_interviewer: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    lead.groups.add(Group.objects.get(name=INTERVIEWER))
    with django_capture_on_commit_callbacks(execute=True):
        built = build_loop(
            seats=[Seat(interviewers=[lead, pia]), Seat(interviewers=[other_interviewer, lead])],
            recruiter=recruiter,
        )
        card(lead, built.interviews[0], [1, 1, 2, 1])
        card(other_interviewer, built.interviews[1], [2, 2, 2, 2])
    role = built.loop.role
    assert client_for(lead).get(f"/api/v1/loops/{built.loop.pk}/debrief/").json()["blind"]
    web = Client()
    web.force_login(lead)
    csv: dict[str, str | int] = {"role": role.pk, "table": "candidates"}
    before = (own_view(lead, role), web.get("/calibration/export.csv", csv).content)

    with django_capture_on_commit_callbacks(execute=True):
        card(pia, built.interviews[0], [4, 4, 4, 3])

    # Not Pia's row (mean 3.75: her card), nor the candidate's new raw mean.
    assert (own_view(lead, role), web.get("/calibration/export.csv", csv).content) == before


# --- calibration: a row from before the seat is held back ---------------------------------


@pytest.fixture
def calibrated_ines(
    recruiter: User,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> Built:
    """A loop every panelist submitted (Ines and Pia on interview 1, Omar on 2), and
    the snapshot it ran: Ines has a row and is blind nowhere."""
    with django_capture_on_commit_callbacks(execute=True):
        built = build_loop(
            seats=[Seat(interviewers=[interviewer, pia]), Seat(interviewers=[other_interviewer])],
            recruiter=recruiter,
        )
        first, second = built.interviews
        card(interviewer, first, [4, 3, 4, 4])
        card(pia, first, [2, 2, 1, 2])
        card(other_interviewer, second, [3, 2, 3, 1])
    return built


def own_view(user: User, role: Role, **scope: str) -> dict[str, Any]:
    response = client_for(user).get(LATEST, {"role": role.name, **scope})
    assert response.status_code == 200
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.parametrize("kind", ["interviewer", "shadow"])
def test_a_row_computed_before_a_new_blind_seat_is_held_back_with_a_note(
    calibrated_ines: Built,
    interviewer: User,
    pia: User,
    olga: User,
    recruiter: User,
    lead: User,
    kind: str,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    role = calibrated_ines.loop.role
    before = own_view(interviewer, role)
    assert [row["interviewer_id"] for row in before["interviewers"]] == [interviewer.pk]
    assert "note" not in before
    lead_view = own_view(lead, role)

    # Seated on a new loop after the snapshot: seating recalculates nothing.
    first_seat = (
        Seat(interviewers=[interviewer, olga])
        if kind == "interviewer"
        else Seat(interviewers=[olga], shadow=interviewer)
    )
    new = another_loop(
        role=role,
        candidate_name="Noor Patel",
        seats=[first_seat, Seat(interviewers=[pia])],
        start=timezone.now().replace(microsecond=0) - timedelta(days=1),
        by=recruiter,
    )

    for scope in ({}, {"level": "L5"}):
        held = own_view(interviewer, role, **scope)
        assert held["interviewers"] == []
        assert held["note"] == OWN_ROW_HELD_BACK
        assert held["candidates"] == [] and held["questions"] == []
    web = Client()
    web.force_login(interviewer)
    page = web.get("/calibration/", {"role": role.pk}).content.decode()
    assert "Your own figures are held back until the next calibration run" in page
    assert own_view(lead, role) == lead_view

    # The next snapshot (a card lands elsewhere in the role) knows the seat: her row is back.
    with django_capture_on_commit_callbacks(execute=True):
        card(pia, new.interviews[1], [3, 3, 2, 3])
    back = own_view(interviewer, role)
    assert "note" not in back
    assert back["interviewers"] == before["interviewers"]


# --- two seats: blind until both are done (scoring/visibility.py's footnote) -------------


def test_someone_with_two_seats_stays_blind_until_both_are_done(
    panel: Built, first: Interview, second: Interview, interviewer: User, pia: User
) -> None:
    # The footnote of the table: Ines holds a seat on both interviews of the panel loop.
    never = lambda: False  # noqa: E731
    assert visibility.blind(done=[True, False], recruiter=never) is True
    assert visibility.blind(done=[True, True], recruiter=never) is False
    others = submitted(pia, first)
    submitted(interviewer, first)
    second_card = draft(interviewer, second)

    def readable() -> list[Scorecard]:
        return list(Scorecard.objects.filter(visibility.readable_anywhere(user=interviewer)))

    assert visibility.is_blind(user=interviewer, loop=panel.loop) is True
    assert selectors.debrief_document(user=interviewer, pk=panel.loop.pk)["blind"] is True
    assert others not in readable()

    services.scorecard_submit(scorecard=second_card, by=interviewer)

    assert visibility.is_blind(user=interviewer, loop=panel.loop) is False
    assert selectors.debrief_document(user=interviewer, pk=panel.loop.pk)["blind"] is False
    assert others in readable()


# --- a placeholder card does not end blindness --------------------------------------------


def everything() -> dict[str, list[Any]]:
    """Every row a submit or amend could touch, feedback reads and snapshots included."""
    return {
        **state(),
        "reads": list(FeedbackRead.objects.order_by("pk").values()),
        "snapshots": list(CalibrationSnapshot.objects.order_by("pk").values("pk", "watermark")),
    }


TOO_FEW_RATED = "scorecard_too_few_rated"


def rule(needed: int, total: int, rated: int) -> str:
    return (
        f"Rate at least half of the questions ({needed} of {total}; {rated} rated): a scorecard"
        " with most questions not asked says too little to open the panel's feedback to you."
    )


def api_body(interview: Interview, rated: int, **extra: Any) -> dict[str, Any]:
    """A card whose first `rated` questions are rated 3 and the rest not asked (reason "x")."""
    body = payload(interview, rating=3, **extra)
    for n, entry in enumerate(body["ratings"]):
        if n >= rated:
            entry |= {"rating": None, "not_asked": True, "not_asked_reason": "x",
                      "checked": [], "follow_ups_asked": []}  # fmt: skip
    return body


@pytest.mark.parametrize("rated", [0, 1])
def test_a_card_rating_fewer_than_half_its_questions_is_refused_and_writes_nothing(
    panel: Built, first: Interview, interviewer: User, rated: int
) -> None:
    api = client_for(interviewer)
    draft_card = services.scorecard_start(interview=first, by=interviewer)
    saved = api.put(f"/api/v1/scorecards/{draft_card.pk}/", api_body(first, rated), format="json")
    assert saved.status_code == 200
    before = everything()

    response = api.post(f"/api/v1/scorecards/{draft_card.pk}/submit/")

    assert problem(response, 400, TOO_FEW_RATED)["detail"] == rule(2, 4, rated)
    assert everything() == before
    debrief = api.get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert debrief["blind"] is True


def test_a_placeholder_card_is_refused_on_the_scorecard_page_and_stays_a_draft(
    panel: Built, first: Interview, interviewer: User
) -> None:
    web = Client()
    web.force_login(interviewer)
    data: dict[str, Any] = {"recommendation": "yes", "summary": "", "action": "submit"}
    for item in panel.questions(first):
        data |= {f"q{item.pk}-not_asked": "on", f"q{item.pk}-reason": "x"}

    response = web.post(f"/interviews/{first.pk}/scorecard/", data)

    assert response.status_code == 200
    assert "Rate at least half of the questions (2 of 4; 0 rated)" in response.content.decode()
    # The draft is saved as posted (the page saves before it submits), and nothing else.
    own = Scorecard.objects.get(interview=first, interviewer=interviewer)
    assert (own.status, own.submitted_at) == ("draft", None)
    assert list(own.ratings.values_list("rating", "not_asked")) == [(None, True)] * 4
    assert not AuditEvent.objects.exists()
    assert not CalibrationJob.objects.exists()
    assert not FeedbackRead.objects.exists()
    debrief = client_for(interviewer).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert debrief["blind"] is True


def test_a_card_rating_exactly_half_its_questions_submits(
    panel: Built, first: Interview, interviewer: User
) -> None:
    api = client_for(interviewer)
    draft_card = services.scorecard_start(interview=first, by=interviewer)
    api.put(f"/api/v1/scorecards/{draft_card.pk}/", api_body(first, 2), format="json")

    response = api.post(f"/api/v1/scorecards/{draft_card.pk}/submit/")

    assert response.status_code == 200
    assert response.json()["status"] == "submitted"
    assert [r["not_asked"] for r in response.json()["ratings"]] == [False, False, True, True]


@pytest.mark.parametrize(("rated", "ok"), [(1, False), (2, True)])
def test_an_odd_number_of_questions_rounds_the_half_up(
    recruiter: User, interviewer: User, rated: int, ok: bool
) -> None:
    built = build_loop(
        seats=[Seat(interviewers=[interviewer])], recruiter=recruiter, questions_per_interview=3
    )
    interview = built.interviews[0]
    api = client_for(interviewer)
    draft_card = services.scorecard_start(interview=interview, by=interviewer)
    api.put(f"/api/v1/scorecards/{draft_card.pk}/", api_body(interview, rated), format="json")
    before = everything()

    response = api.post(f"/api/v1/scorecards/{draft_card.pk}/submit/")

    if ok:
        assert response.status_code == 200
    else:
        assert problem(response, 400, TOO_FEW_RATED)["detail"] == rule(2, 3, 1)
        assert everything() == before


def test_amending_a_card_into_a_placeholder_is_refused_and_writes_nothing(
    panel: Built, first: Interview, interviewer: User
) -> None:
    own = submitted(interviewer, first)
    before = everything()

    response = client_for(interviewer).post(
        f"/api/v1/scorecards/{own.pk}/amend/", api_body(first, 1, reason=REASON), format="json"
    )

    assert problem(response, 400, TOO_FEW_RATED)["detail"] == rule(2, 4, 1)
    assert everything() == before


# --- amendments after reading the panel's feedback ----------------------------------------


@pytest.fixture
def unblinded(
    panel: Built, first: Interview, second: Interview, interviewer: User, pia: User
) -> Scorecard:
    """Ines submitted both her cards and Pia hers: the debrief shows Ines Pia's card.
    Return Ines's card for interview 1."""
    mine = submitted(interviewer, first, rating=3)
    submitted(interviewer, second, rating=3)
    submitted(pia, first, rating=1, summary="Pia thinks no")
    return mine


def read_through(channel: str, user: User, loop: Loop, other: Scorecard) -> None:
    if channel == "debrief page":
        web = Client()
        web.force_login(user)
        assert web.get(f"/loops/{loop.pk}/debrief/").status_code == 200
        return
    path = {
        "debrief api": f"/api/v1/loops/{loop.pk}/debrief/",
        "scorecard list api": "/api/v1/scorecards/",
        "scorecard api": f"/api/v1/scorecards/{other.pk}/",
    }[channel]
    response = client_for(user).get(path)
    assert response.status_code == 200
    assert "Pia thinks no" in response.content.decode()


def amend_through(
    how: str, user: User, own: Scorecard, interview: Interview, rating: int = 2
) -> Amendment:
    """Amend the card through the API or the amend page, to every question rated `rating`."""
    if how == "api":
        response = client_for(user).post(
            f"/api/v1/scorecards/{own.pk}/amend/",
            payload(interview, rating=rating, recommendation="no", reason=REASON),
            format="json",
        )
        assert response.status_code == 201, response.content
    else:
        web = Client()
        web.force_login(user)
        data = form_data(interview, rating=rating, recommendation="no", reason=REASON)
        page = web.post(f"/scorecards/{own.pk}/amend/", data)
        assert page.status_code == 302, page.content
    return Amendment.objects.filter(scorecard=own).latest("pk")


def mark_of(documents: list[dict[str, Any]], amendment: Amendment) -> bool:
    mark: bool = next(a for a in documents if a["id"] == amendment.pk)["after_reading"]
    return mark


def marked(amendment: Amendment, *, loop: Loop, reader: User) -> dict[str, Any]:
    """Whether the amendment is marked as made after reading, in every place that says so."""
    amendment.refresh_from_db()
    # The card's audit events and amendments pair up in order: one event per amendment.
    events = AuditEvent.objects.filter(
        action="scorecard.amended", target=f"scorecard {amendment.scorecard_id}"
    ).order_by("at", "id")
    amendments = list(
        Amendment.objects.filter(scorecard=amendment.scorecard_id).order_by("at", "id")
    )
    assert events.count() == len(amendments)
    event = events[amendments.index(amendment)]
    detail = client_for(reader).get(f"/api/v1/scorecards/{amendment.scorecard_id}/").json()
    debrief = client_for(reader).get(f"/api/v1/loops/{loop.pk}/debrief/").json()
    shown = next(c for c in debrief["scorecards"] if c["id"] == amendment.scorecard_id)
    web = Client()
    web.force_login(reader)
    page = web.get(f"/loops/{loop.pk}/debrief/").content.decode()
    return {
        "row": amendment.after_reading,
        "audit": event.data["after_reading"],
        "scorecard api": mark_of(detail["amendments"], amendment),
        "debrief api": mark_of(shown["amendments"], amendment),
        "debrief page": AFTER_READING_RAW in page or AFTER_READING in page,
    }


def everywhere_marked(value: bool) -> dict[str, bool]:
    return dict.fromkeys(("row", "audit", "scorecard api", "debrief api", "debrief page"), value)


@pytest.mark.parametrize(
    "channel", ["debrief page", "debrief api", "scorecard list api", "scorecard api"]
)
@pytest.mark.parametrize("how", ["api", "page"])
def test_an_amendment_after_reading_the_panels_cards_is_marked_so(
    unblinded: Scorecard,
    panel: Built,
    first: Interview,
    interviewer: User,
    pia: User,
    recruiter: User,
    channel: str,
    how: str,
) -> None:
    pias = Scorecard.objects.get(interview=first, interviewer=pia)
    read_through(channel, interviewer, panel.loop, pias)
    assert FeedbackRead.objects.filter(loop=panel.loop, user=interviewer).count() == 1

    amendment = amend_through(how, interviewer, unblinded, first)

    assert marked(amendment, loop=panel.loop, reader=recruiter) == everywhere_marked(True)


def test_an_amendment_before_reading_is_not_marked_and_stays_unmarked_after_a_read(
    unblinded: Scorecard, panel: Built, first: Interview, interviewer: User, recruiter: User
) -> None:
    earlier = amend_through("api", interviewer, unblinded, first)
    assert not FeedbackRead.objects.exists()

    read_through("debrief page", interviewer, panel.loop, unblinded)
    later = amend_through("page", interviewer, unblinded, first, rating=1)

    assert marked(earlier, loop=panel.loop, reader=recruiter) == everywhere_marked(False) | {
        "debrief page": True  # the page shows the later one's mark
    }
    assert later.after_reading is True
    page = Client()
    page.force_login(recruiter)
    body = page.get(f"/loops/{panel.loop.pk}/debrief/").content.decode()
    assert body.count(AFTER_READING_RAW) + body.count(AFTER_READING) == 1


def test_reading_the_debrief_while_blind_is_not_reading_the_panels_feedback(
    panel: Built, first: Interview, second: Interview, interviewer: User, pia: User, recruiter: User
) -> None:
    mine = submitted(interviewer, first, rating=3)
    submitted(pia, first, rating=1, summary="Pia thinks no")
    card(interviewer, second, [3, 3, 3, 3], submit=False)  # still blind: interview 2 is open
    web = Client()
    web.force_login(interviewer)
    api = client_for(interviewer)
    for response in (
        web.get(f"/loops/{panel.loop.pk}/debrief/"),
        api.get(f"/api/v1/loops/{panel.loop.pk}/debrief/"),
        api.get("/api/v1/scorecards/"),
    ):
        assert response.status_code == 200
        assert "Pia thinks no" not in response.content.decode()

    amendment = amend_through("api", interviewer, mine, first)

    assert not FeedbackRead.objects.exists()
    assert marked(amendment, loop=panel.loop, reader=recruiter) == everywhere_marked(False)


@pytest.mark.parametrize("channel", ["debrief page", "scorecard list api"])
def test_a_recruiter_with_a_seat_who_read_the_panels_cards_first_amends_after_reading(
    recruiter: User, pia: User, other_interviewer: User, channel: str
) -> None:
    recruiter.groups.add(Group.objects.get(name=INTERVIEWER))
    built = build_loop(
        seats=[Seat(interviewers=[recruiter, pia]), Seat(interviewers=[other_interviewer])],
        recruiter=recruiter,
    )
    first = built.interviews[0]
    pias = submitted(pia, first, rating=1, summary="Pia thinks no")
    read_through(channel, recruiter, built.loop, pias)
    own = submitted(recruiter, first, rating=3)

    amendment = amend_through("api", recruiter, own, first)

    assert amendment.after_reading is True


def test_reading_a_debrief_with_only_your_own_cards_is_not_reading(
    panel: Built, first: Interview, second: Interview, interviewer: User, recruiter: User
) -> None:
    mine = submitted(interviewer, first, rating=3)
    submitted(interviewer, second, rating=3)
    read_through("debrief page", interviewer, panel.loop, mine)
    assert client_for(interviewer).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").status_code == 200

    amendment = amend_through("api", interviewer, mine, first)

    assert not FeedbackRead.objects.exists()
    assert marked(amendment, loop=panel.loop, reader=recruiter) == everywhere_marked(False)
