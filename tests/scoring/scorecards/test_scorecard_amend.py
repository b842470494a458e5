"""POST /api/v1/scorecards/{id}/amend/ and /scorecards/{id}/amend/ (services.scorecard_amend)."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.api.exceptions import ApplicationError
from core.models import AuditEvent
from interviews.models import Interview
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.scorecards import selectors, services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors
from tests.scoring.helpers import (
    card_json,
    draft,
    form_data,
    payload,
    ratings_for,
    rubric,
    state,
    submitted,
)
from tests.support.api import iso
from tests.support.loops import Built

REASON = "Re-read my notes: the cost estimate was off by 10x."


def amend(user: User, card: Scorecard, body: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client_for(user).post(f"/api/v1/scorecards/{card.pk}/amend/", body, format="json")


@pytest.fixture
def card(first: Interview, interviewer: User) -> Scorecard:
    """Ines's submitted card for interview 1: every question a 3, recommendation yes."""
    return submitted(interviewer, first, summary="Good on serving.", notes="Original note")


def as_dict(card: Scorecard) -> dict[str, Any]:
    return selectors.scorecard_as_dict(
        selectors.own_scorecard_get(user=card.interviewer, pk=card.pk)
    )


def test_it_records_who_when_why_and_the_card_before_and_after(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    before_card = as_dict(card)
    submitted_at = card.submitted_at

    response = amend(
        interviewer,
        card,
        payload(
            first, rating=2, recommendation="no", summary="Weaker than I wrote.", reason=REASON
        ),
    )

    amendment = Amendment.objects.get()
    assert response.status_code == 201
    assert response.json() == {
        "id": amendment.pk,
        "by": "ines",
        "at": iso(amendment.at),
        "reason": REASON,
        "before": before_card,
        "after": as_dict(card),
        "after_reading": False,
    }
    assert amendment.before["recommendation"] == "yes"
    assert amendment.after["recommendation"] == "no"
    assert [r["rating"] for r in amendment.before["ratings"]] == [3, 3, 3, 3]
    assert [r["rating"] for r in amendment.after["ratings"]] == [2, 2, 2, 2]
    card.refresh_from_db()
    assert (card.status, card.submitted_at, card.summary) == (
        "submitted",
        submitted_at,
        "Weaker than I wrote.",
    )
    event = AuditEvent.objects.get(action="scorecard.amended")
    assert (event.actor, event.target, event.data) == (
        interviewer,
        f"scorecard {card.pk}",
        {"reason": REASON, "after_reading": False, "loop": first.loop_id},
    )


def test_it_shows_the_amendment_on_the_debrief_api(
    card: Scorecard, first: Interview, interviewer: User, recruiter: User
) -> None:
    amend(interviewer, card, payload(first, rating=2, recommendation="no", reason=REASON))
    amendment = Amendment.objects.get()

    response = client_for(recruiter).get(f"/api/v1/loops/{first.loop_id}/debrief/")

    assert response.status_code == 200
    shown = next(c for c in response.json()["scorecards"] if c["id"] == card.pk)
    assert shown == card_json(card)
    assert shown["amendments"] == [
        {
            "id": amendment.pk,
            "by": "ines",
            "at": iso(amendment.at),
            "reason": REASON,
            "before": amendment.before,
            "after": amendment.after,
            "after_reading": False,
        }
    ]


def test_it_shows_the_amendment_on_the_debrief_page(
    card: Scorecard, first: Interview, interviewer: User, recruiter: User
) -> None:
    amend(interviewer, card, payload(first, rating=2, recommendation="no", reason=REASON))
    client = Client()
    client.force_login(recruiter)

    response = client.get(f"/loops/{first.loop_id}/debrief/")

    assert response.status_code == 200
    body = response.content.decode()
    assert "<strong>Amended</strong> by Ines" in body
    assert "“Re-read my notes: the cost estimate was off by 10x.”" in body
    assert "<li>recommendation: Yes → No</li>" in body


@pytest.mark.parametrize(
    ("reason", "error"),
    [
        (None, "This field is required."),
        ("", "This field may not be blank."),
        ("   ", "This field may not be blank."),
    ],
)
def test_it_refuses_an_amendment_without_a_reason(
    card: Scorecard, first: Interview, interviewer: User, reason: str | None, error: str
) -> None:
    body = payload(first, rating=2, recommendation="no")
    if reason is not None:
        body["reason"] = reason
    before = state()

    response = amend(interviewer, card, body)

    assert field_errors(response) == {"reason": [error]}
    assert state() == before


def test_the_service_refuses_a_blank_reason(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    before = state()

    with pytest.raises(ApplicationError) as raised:
        services.scorecard_amend(
            scorecard=card,
            by=interviewer,
            reason="  \n ",
            recommendation="no",
            summary="",
            ratings=[],
        )
    assert raised.value.message == "An amendment needs a reason."
    assert raised.value.code == "amendment_reason_missing"

    assert state() == before


def test_it_refuses_to_amend_a_draft(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first)
    before = state()

    response = amend(interviewer, card, payload(first, rating=2, reason=REASON))

    assert detail(response, 400, "amendment_of_draft") == (
        "Only a submitted scorecard is amended; edit the draft instead."
    )
    assert state() == before


def test_it_refuses_an_amendment_that_changes_nothing(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    before = state()

    response = amend(
        interviewer,
        card,
        payload(first, summary="Good on serving.", notes="Original note", reason=REASON),
    )

    assert detail(response, 400, "amendment_empty") == "The amendment changes nothing."
    assert state() == before


def test_it_refuses_an_amendment_that_leaves_a_question_unrated(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    body = payload(first, rating=2, reason=REASON)
    body["ratings"] = body["ratings"][1:]
    title = first.questions.select_related("question").order_by("order")[0].question.title
    before = state()

    response = amend(interviewer, card, body)

    assert detail(response, 400, "scorecard_incomplete") == (
        f"Rate every question or mark it not asked before submitting: '{title}'"
    )
    assert state() == before


def test_it_refuses_an_amendment_without_a_recommendation(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    before = state()

    response = amend(interviewer, card, payload(first, rating=2, recommendation="", reason=REASON))

    assert detail(response, 400, "recommendation_missing") == (
        "A submitted scorecard keeps an overall recommendation."
    )
    assert state() == before


def test_it_refuses_a_rubric_item_of_another_question(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    q1, q2 = first.questions.select_related("question").order_by("order")[:2]
    foreign = rubric(q2)[0]
    body = payload(first, rating=2, reason=REASON)
    body["ratings"][0]["checked"] = [foreign.pk]
    before = state()

    response = amend(interviewer, card, body)

    assert detail(response, 400, "rubric_item_foreign") == (
        f"ratings[1] ({q1.question.title}): rubric item {foreign.pk} "
        "does not belong to this question."
    )
    assert state() == before


@pytest.mark.parametrize("rating", [0, 5])
def test_it_refuses_a_rating_outside_the_scale(
    card: Scorecard, first: Interview, interviewer: User, rating: int
) -> None:
    before = state()

    response = amend(interviewer, card, payload(first, rating=rating, reason=REASON))

    title = first.questions.select_related("question").order_by("order")[0].question.title
    assert detail(response, 400, "rating_out_of_scale") == (
        f"ratings[1] ({title}): rating {rating} is outside the scale 1–4."
    )
    assert state() == before


def test_it_refuses_to_amend_once_the_loop_is_decided(
    panel: Built, card: Scorecard, first: Interview, interviewer: User, recruiter: User
) -> None:
    services.loop_decide(
        loop=panel.loop, by=recruiter, decision="no_hire", rationale="Seen enough."
    )
    before = state()

    response = amend(interviewer, card, payload(first, rating=2, reason=REASON))

    assert detail(response, 400, "loop_decided") == (
        "The loop is decided; its scorecards can no longer change."
    )
    assert state() == before


def test_it_answers_404_on_someone_elses_card(
    card: Scorecard, first: Interview, pia: User, recruiter: User
) -> None:
    before = state()

    for user in (pia, recruiter):
        response = amend(user, card, payload(first, rating=1, reason=REASON))
        assert detail(response, 404, "not_found") == NOT_FOUND

    assert state() == before


# --- the amend page ---------------------------------------------------------------------


def test_the_page_shows_the_submitted_card_with_a_reason_field(
    card: Scorecard, interviewer: User
) -> None:
    client = Client()
    client.force_login(interviewer)

    response = client.get(f"/scorecards/{card.pk}/amend/")

    body = response.content.decode()
    assert response.status_code == 200
    assert "Amend scorecard" in body
    assert '<textarea name="reason" rows="2" required></textarea>' in body
    assert "Original note (question 1)" in body
    assert "Record amendment" in body


def test_the_page_records_an_amendment_and_returns_to_the_debrief(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    client = Client()
    client.force_login(interviewer)

    response = client.post(
        f"/scorecards/{card.pk}/amend/",
        form_data(first, rating=4, recommendation="strong_yes", reason=REASON),
    )

    assert (response.status_code, response["Location"]) == (
        302,
        f"/loops/{first.loop_id}/debrief/",
    )
    amendment = Amendment.objects.get()
    assert (amendment.by, amendment.reason) == (interviewer, REASON)
    assert (amendment.before["recommendation"], amendment.after["recommendation"]) == (
        "yes",
        "strong_yes",
    )
    assert set(QuestionRating.objects.filter(scorecard=card).values_list("rating", flat=True)) == {
        4
    }


def test_the_page_refuses_an_amendment_without_a_reason(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    client = Client()
    client.force_login(interviewer)
    before = state()

    response = client.post(f"/scorecards/{card.pk}/amend/", form_data(first, rating=1))

    assert response.status_code == 200
    body = response.content.decode()
    assert "An amendment needs a reason." in body
    # Beside the reason field, which names it, and linked from the summary at the top.
    assert (
        '<textarea name="reason" rows="2" required id="reason" aria-invalid="true"'
        ' aria-describedby="reason-error"></textarea>'
    ) in body
    assert (
        '<span class="error-text field-error" id="reason-error">An amendment needs a reason.</span>'
    ) in body
    assert '<a href="#reason">Reason for the amendment: An amendment needs a reason.</a>' in body
    assert "The amendment is not recorded yet: one thing to fix" in body
    assert state() == before


def test_the_page_answers_404_on_someone_elses_card(
    card: Scorecard, first: Interview, pia: User
) -> None:
    client = Client()
    client.force_login(pia)
    before = state()

    assert client.get(f"/scorecards/{card.pk}/amend/").status_code == 404
    response = client.post(f"/scorecards/{card.pk}/amend/", form_data(first, reason=REASON))

    assert response.status_code == 404
    assert state() == before


def test_neither_an_amendment_nor_its_card_can_be_deleted_in_the_admin(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    # The record of a change stays: the admin reads amendments and removes none.
    services.scorecard_amend(
        scorecard=card,
        by=interviewer,
        reason=REASON,
        recommendation="no",
        summary="Weaker than I wrote.",
        ratings=ratings_for(first, rating=2),
    )
    amendment = Amendment.objects.get()
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    admin = Client()
    admin.force_login(root)

    for url in (
        f"/admin/scoring/amendment/{amendment.pk}/delete/",
        f"/admin/scoring/scorecard/{card.pk}/delete/",
    ):
        assert admin.post(url, {"post": "yes"}).status_code == 403, url
    assert Amendment.objects.filter(pk=amendment.pk).exists()
    assert Scorecard.objects.filter(pk=card.pk).exists()
