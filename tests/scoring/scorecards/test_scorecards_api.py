"""GET /api/v1/scorecards/ and /api/v1/scorecards/{id}/: the cards you may read.

Who sees which card is tested across every endpoint in test_blind_feedback.py.
"""

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from interviews.models import Interview
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors, not_signed_in, problem
from tests.scoring.helpers import card_json, count_queries, draft, submitted
from tests.support.loops import Built


def page_of(*cards) -> dict:  # type: ignore[no-untyped-def]
    return {
        "count": len(cards),
        "next": None,
        "previous": None,
        "results": [card_json(c) for c in cards],
    }


def test_it_lists_an_interviewers_own_cards_drafts_included(
    first: Interview, second: Interview, interviewer: User
) -> None:
    one = submitted(interviewer, first, notes="First card")
    two = draft(interviewer, second, notes="Second card")

    response = client_for(interviewer).get("/api/v1/scorecards/")

    assert response.status_code == 200
    assert response.json() == page_of(one, two)


def test_it_filters_by_interview_and_status(
    first: Interview, second: Interview, interviewer: User
) -> None:
    one = submitted(interviewer, first)
    two = draft(interviewer, second)
    api = client_for(interviewer)

    assert api.get(f"/api/v1/scorecards/?interview={second.pk}").json() == page_of(two)
    assert api.get("/api/v1/scorecards/?status=submitted").json() == page_of(one)
    assert api.get("/api/v1/scorecards/?status=draft").json() == page_of(two)


def test_it_refuses_an_unknown_status_filter(first: Interview, interviewer: User) -> None:
    response = client_for(interviewer).get("/api/v1/scorecards/?status=lost")

    assert field_errors(response) == {
        "status": ["Select a valid choice. lost is not one of the available choices."]
    }


def test_it_shows_your_own_card(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first, notes="Mine", summary="Still writing")

    response = client_for(interviewer).get(f"/api/v1/scorecards/{card.pk}/")

    assert (response.status_code, response.json()) == (200, card_json(card))


def test_it_answers_404_for_an_unknown_card(first: Interview, interviewer: User) -> None:
    response = client_for(interviewer).get("/api/v1/scorecards/999999/")

    assert detail(response, 404, "not_found") == NOT_FOUND


def test_it_refuses_anonymous_callers(first: Interview, interviewer: User) -> None:
    card = submitted(interviewer, first)

    for path in ("/api/v1/scorecards/", f"/api/v1/scorecards/{card.pk}/"):
        response = APIClient().get(path)
        not_signed_in(response)


def test_it_refuses_delete_and_patch(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first, summary="Kept")
    api = client_for(interviewer)

    problem(api.delete(f"/api/v1/scorecards/{card.pk}/"), 405, "method_not_allowed")
    problem(
        api.patch(f"/api/v1/scorecards/{card.pk}/", {"summary": "x"}), 405, "method_not_allowed"
    )
    assert card_json(card)["summary"] == "Kept"


def test_it_lists_in_a_fixed_number_of_queries(
    sized: dict[int, Built], django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    def read(user: User, expected: int) -> None:
        response = client_for(user).get("/api/v1/scorecards/")
        assert response.status_code == 200
        assert response.json()["count"] == expected
        assert all(len(c["ratings"]) == 4 for c in response.json()["results"])

    def fresh(username: str) -> User:
        # A new user object each time, so the persona cache starts empty as in a request.
        return User.objects.get(username=username)

    # 1 persona groups, 2 count for the page, 3 scorecards (interviewer, interview joined;
    # the blind rule is a subquery), 4 ratings (item, question, version joined),
    # 5 rubric items checked and follow-ups asked (one UNION), 6 amendments, 7 the record
    # that she read the panel's cards (one INSERT that keeps the first read).
    rita = fresh("rita")
    with django_assert_max_num_queries(7):
        read(rita, 8)
    # A recruiter reads both loops' 8 cards; each panelist the 2 or 6 of her loop.
    small, big = fresh("2-panelist-1"), fresh("6-panelist-1")
    assert count_queries(lambda: read(small, 2)) == count_queries(lambda: read(big, 6)) == 7
