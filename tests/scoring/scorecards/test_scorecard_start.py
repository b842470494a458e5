"""POST /api/v1/scorecards/ (services.scorecard_start): start or return your draft card."""

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.http import Http404
from rest_framework.test import APIClient

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors, not_signed_in
from tests.scoring.helpers import card_json, state


def start(user: User, interview: Interview):  # type: ignore[no-untyped-def]
    return client_for(user).post("/api/v1/scorecards/", {"interview": interview.pk}, format="json")


def test_it_starts_an_empty_draft_for_an_interviewer_on_the_panel(
    first: Interview, interviewer: User
) -> None:
    response = start(interviewer, first)

    card = Scorecard.objects.get()
    assert (card.interview, card.interviewer, card.status) == (first, interviewer, "draft")
    assert response.status_code == 201
    assert response.json() == card_json(card)
    assert response.json()["ratings"] == []
    assert response.json()["is_shadow"] is False


def test_it_returns_the_same_draft_when_started_twice(first: Interview, interviewer: User) -> None:
    one = start(interviewer, first)
    two = start(interviewer, first)

    # The first creates the draft (201, with its Location); the second finds it (200).
    assert (one.status_code, two.status_code) == (201, 200)
    assert one["Location"] == f"/api/v1/scorecards/{one.json()['id']}/"
    assert "Location" not in two
    assert one.json()["id"] == two.json()["id"]
    assert Scorecard.objects.count() == 1


def test_it_marks_a_shadows_card_as_shadow(first: Interview, sam: User) -> None:
    response = start(sam, first)

    assert response.status_code == 201
    assert response.json()["is_shadow"] is True
    assert Scorecard.objects.get().is_shadow is True


def test_it_answers_404_for_an_interview_you_are_not_on(first: Interview, olga: User) -> None:
    before = state()

    response = start(olga, first)

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


def test_it_answers_404_to_an_interviewer_of_the_loop_on_another_interview(
    second: Interview, pia: User
) -> None:
    # Pia sits on interview 1 only: interview 2 is not hers to score.
    before = state()

    response = start(pia, second)

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


def test_it_answers_404_to_a_recruiter_not_on_the_panel(first: Interview, recruiter: User) -> None:
    before = state()

    response = start(recruiter, first)

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


@pytest.mark.parametrize("pk", [999999, 2**63, 10**30], ids=["unknown", "past-64-bits", "huge"])
def test_it_answers_404_for_an_unknown_interview(
    first: Interview, interviewer: User, pk: int
) -> None:
    response = client_for(interviewer).post("/api/v1/scorecards/", {"interview": pk}, format="json")

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert not Scorecard.objects.exists()


def test_it_refuses_a_body_without_an_interview(first: Interview, interviewer: User) -> None:
    response = client_for(interviewer).post("/api/v1/scorecards/", {}, format="json")

    assert field_errors(response) == {"interview": ["This field is required."]}
    assert not Scorecard.objects.exists()


def test_it_refuses_anonymous_callers(first: Interview) -> None:
    response = APIClient().post("/api/v1/scorecards/", {"interview": first.pk}, format="json")

    not_signed_in(response)
    assert not Scorecard.objects.exists()


def test_the_service_refuses_someone_not_on_the_panel(first: Interview, olga: User) -> None:
    with pytest.raises(Http404, match="You are not on this interview's panel"):
        services.scorecard_start(interview=first, by=olga)

    assert not Scorecard.objects.exists()


def test_a_start_that_loses_the_race_returns_the_card_that_won(
    first: Interview, interviewer: User
) -> None:
    # The insert finds the card another request of theirs started a moment before: it
    # writes nothing and returns that card, also inside a caller's transaction.
    won = services.scorecard_start(interview=first, by=interviewer)
    before = state()

    with transaction.atomic():
        lost = services._draft_create(interview_id=first.pk, by=interviewer, is_shadow=False)
        assert Scorecard.objects.count() == 1  # the transaction is still usable

    assert lost.pk == won.pk
    assert state() == before
