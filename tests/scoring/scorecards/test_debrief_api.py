"""GET /api/v1/loops/{id}/debrief/: the loop, its visible scorecards and who is pending.

Who sees which card is tested across every endpoint in test_blind_feedback.py.
"""

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from interviews.models import Interview, Loop
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, not_signed_in
from tests.scoring.helpers import card_json, count_queries, draft, submitted
from tests.support.loops import Built


def loop_json(loop: Loop) -> dict[str, Any]:
    loop = Loop.objects.get(pk=loop.pk)
    return {
        "id": loop.pk,
        "candidate": "Casey Quinn",
        "role_id": loop.role_id,
        "role": "AI Infrastructure Engineer",
        "level_id": loop.level_id,
        "level": "L5",
        "status": loop.status,
        "decision": None,
        "decision_rationale": "",
        "decided_by": None,
        "decided_at": None,
    }


def get(user: User, loop: Loop):  # type: ignore[no-untyped-def]
    return client_for(user).get(f"/api/v1/loops/{loop.pk}/debrief/")


def test_a_recruiter_sees_every_submitted_card_and_who_is_pending(
    panel: Built,
    first: Interview,
    second: Interview,
    recruiter: User,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    sam: User,
) -> None:
    pia_card = submitted(pia, first, rating=4, notes="Pia's notes", summary="Hire.")
    omar_card = submitted(other_interviewer, second, rating=2, recommendation="no")
    draft(interviewer, first)

    response = get(recruiter, panel.loop)

    assert response.status_code == 200
    assert response.json() == {
        "loop": loop_json(panel.loop),
        "blind": False,
        # Pia's yes and Omar's no: the panel as the cards she reads count it.
        "panel": {"strong_no": 0, "no": 1, "counted": 2, "mostly_no": False},
        "hire_against_panel": None,  # not decided yet
        "scorecards": [card_json(pia_card), card_json(omar_card)],
        "pending": [
            {"username": "ines", "interview": first.pk, "is_shadow": False},
            {"username": "sam", "interview": first.pk, "is_shadow": True},
            {"username": "ines", "interview": second.pk, "is_shadow": False},
        ],
    }
    assert response.json()["loop"]["status"] == "in_progress"


def test_a_blind_interviewer_sees_only_her_own_draft(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
) -> None:
    submitted(pia, first)
    submitted(other_interviewer, second)
    own = draft(interviewer, first, notes="Mine")

    response = get(interviewer, panel.loop)

    assert response.status_code == 200
    # Who has submitted stays hidden too: every other seat reads as pending, and the
    # loop reads as scheduled (not "in progress", which the submissions made it).
    panel.loop.refresh_from_db()
    assert panel.loop.status == "in_progress"
    assert response.json() == {
        "loop": {**loop_json(panel.loop), "status": "scheduled"},
        "blind": True,
        "panel": None,  # no count of the others' recommendations either
        "hire_against_panel": None,
        "scorecards": [card_json(own)],
        "pending": [
            {"username": "ines", "interview": first.pk, "is_shadow": False},
            {"username": "pia", "interview": first.pk, "is_shadow": False},
            {"username": "sam", "interview": first.pk, "is_shadow": True},
            {"username": "omar", "interview": second.pk, "is_shadow": False},
            {"username": "ines", "interview": second.pk, "is_shadow": False},
        ],
    }


def test_it_answers_404_for_an_unknown_loop(panel: Built, recruiter: User) -> None:
    response = client_for(recruiter).get("/api/v1/loops/999999/debrief/")

    assert detail(response, 404, "not_found") == NOT_FOUND


@pytest.mark.parametrize("pk", [2**63, 10**30])
def test_it_answers_404_for_a_loop_id_past_64_bits(
    panel: Built, recruiter: User, interviewer: User, pk: int
) -> None:
    for user in (recruiter, interviewer):
        response = client_for(user).get(f"/api/v1/loops/{pk}/debrief/")

        assert detail(response, 404, "not_found") == NOT_FOUND


def test_flags_are_json_booleans(
    panel: Built, first: Interview, recruiter: User, pia: User, sam: User
) -> None:
    # Read through plain SQL, where SQLite gives 0 and 1 for expressions: the JSON
    # must still say true and false (1 == True would hide it from ==).
    items = list(first.questions.order_by("order"))
    skipped = services.RatingInput(item=items[0].pk, not_asked=True, not_asked_reason="Time")
    rated = [services.RatingInput(item=item.pk, rating=3) for item in items[1:]]
    card = services.scorecard_start(interview=first, by=pia)
    services.scorecard_save_draft(
        scorecard=card, by=pia, recommendation="yes", ratings=[skipped, *rated]
    )
    services.scorecard_submit(scorecard=card, by=pia)
    submitted(sam, first)

    body = get(recruiter, panel.loop).json()

    flags = [c["is_shadow"] for c in body["scorecards"]]
    assert flags == [False, True] and all(type(f) is bool for f in flags)
    asked = [r["not_asked"] for r in body["scorecards"][0]["ratings"]]
    assert asked[0] is True and all(a is False for a in asked[1:])
    assert all(type(p["is_shadow"]) is bool for p in body["pending"])
    assert type(body["blind"]) is bool


def test_it_refuses_anonymous_callers(panel: Built) -> None:
    response = APIClient().get(f"/api/v1/loops/{panel.loop.pk}/debrief/")

    not_signed_in(response)


def test_it_reads_a_debrief_in_a_fixed_number_of_queries(
    sized: dict[int, Built], recruiter: User, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    def read(user: User, size: int) -> None:
        response = get(user, sized[size].loop)
        assert response.status_code == 200
        assert len(response.json()["scorecards"]) == size
        assert all(len(c["ratings"]) == 4 for c in response.json()["scorecards"])

    def fresh(username: str) -> User:
        # A new user object each time, so the persona cache starts empty as in a request.
        return User.objects.get(username=username)

    # Recruiter: 1 loop (candidate, role, level, decided_by joined), 2 seats (users
    # joined, each with whether it is submitted), 3 persona groups (on no seat here),
    # 4 scorecards (interviewer, interview joined), 5 ratings (item, question, version
    # joined), 6 rubric items checked and follow-ups asked (one UNION), 7 amendments,
    # 8 the record that she read the panel's cards (one INSERT that keeps the first read).
    rita = fresh("rita")
    with django_assert_max_num_queries(8):
        read(rita, 6)
    small, big = fresh("rita"), fresh("rita")
    assert count_queries(lambda: read(small, 2)) == count_queries(lambda: read(big, 6)) == 8

    # An interviewer who has submitted: 7, the same less the persona groups.
    # Her seats let her in, and she owes nothing, so she reads it all whatever her persona.
    panelist = fresh("6-panelist-1")
    with django_assert_max_num_queries(7):
        read(panelist, 6)
    small, big = fresh("2-panelist-1"), fresh("6-panelist-1")
    assert count_queries(lambda: read(small, 2)) == count_queries(lambda: read(big, 6)) == 7
