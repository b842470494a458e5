"""POST /api/v1/scorecards/{id}/submit/ (services.scorecard_submit): complete, then immutable."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.http import Http404
from django.utils import timezone

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, problem
from tests.scoring.helpers import (
    card_json,
    draft,
    payload,
    ratings_for,
    state,
    submitted,
)
from tests.support.loops import Built


def submit(user: User, card: Scorecard):  # type: ignore[no-untyped-def]
    return client_for(user).post(f"/api/v1/scorecards/{card.pk}/submit/")


def titles(interview: Interview) -> list[str]:
    return [q.question.title for q in interview.questions.select_related("question")]


def test_it_submits_a_complete_draft(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first, summary="Solid on serving.")

    response = submit(interviewer, card)

    card.refresh_from_db()
    assert (card.status, card.submitted_at is not None) == ("submitted", True)
    assert response.status_code == 200
    assert response.json() == card_json(card)
    assert response.json()["status"] == "submitted"


def held_at(interview: Interview, start: datetime | None) -> None:
    """Move the interview to `start` (None: no time), an hour long."""
    end = start + timedelta(hours=1) if start else None
    Interview.objects.filter(pk=interview.pk).update(scheduled_start=start, scheduled_end=end)


def test_it_refuses_a_card_before_its_interview_starts_and_keeps_the_draft(
    first: Interview, interviewer: User
) -> None:
    # The case: days ahead, every question 4 of 4, no rubric point ticked.
    start = (timezone.now() + timedelta(days=4)).replace(second=0, microsecond=0)
    held_at(first, start)
    card = services.scorecard_start(interview=first, by=interviewer)
    fours = [services.RatingInput(item=r.item, rating=4) for r in ratings_for(first)]
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="strong_yes", ratings=fours
    )
    before = state()

    response = submit(interviewer, card)

    body = problem(response, 400, "interview_not_started")
    assert body["detail"] == (
        f"This interview starts {start.astimezone(UTC):%a %d %b %Y %H:%M} UTC: its scorecard"
        " can be submitted from then on. Your draft is saved."
    )
    assert datetime.fromisoformat(body["starts_at"]) == start
    assert state() == before
    # The draft may still be written.
    saved = client_for(interviewer).put(
        f"/api/v1/scorecards/{card.pk}/", payload(first, summary="Notes so far"), format="json"
    )
    assert (saved.status_code, saved.json()["status"]) == (200, "draft")


def test_it_refuses_a_card_for_an_interview_with_no_time(
    first: Interview, interviewer: User
) -> None:
    held_at(first, None)
    card = draft(interviewer, first)
    before = state()

    response = submit(interviewer, card)

    assert detail(response, 400, "interview_not_scheduled") == (
        "This interview has no time yet: its scorecard can be submitted once it is scheduled"
        " and has started. Your draft is saved."
    )
    assert state() == before


def test_it_refuses_an_early_card_before_saying_what_it_lacks(
    first: Interview, interviewer: User
) -> None:
    held_at(first, timezone.now() + timedelta(minutes=5))
    card = services.scorecard_start(interview=first, by=interviewer)
    before = state()

    response = submit(interviewer, card)

    problem(response, 400, "interview_not_started")
    assert state() == before


def test_it_submits_a_card_once_its_interview_has_started(
    first: Interview, interviewer: User
) -> None:
    # Started a minute ago and still going: the card may go in now.
    held_at(first, timezone.now() - timedelta(minutes=1))
    card = draft(interviewer, first)

    response = submit(interviewer, card)

    assert (response.status_code, response.json()["status"]) == (200, "submitted")


def test_a_submitted_card_is_amended_whenever_its_interview_is(
    first: Interview, interviewer: User
) -> None:
    card = submitted(interviewer, first)
    # Moved after the card went in (a data fix, say): the card keeps its amendments.
    held_at(first, timezone.now() + timedelta(days=2))

    response = client_for(interviewer).post(
        f"/api/v1/scorecards/{card.pk}/amend/",
        payload(first, rating=2, reason="Misread my notes"),
        format="json",
    )

    assert response.status_code == 201
    assert card.amendments.count() == 1


def test_it_refuses_a_card_with_unrated_questions_naming_them(
    first: Interview, interviewer: User
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    services.scorecard_save_draft(
        scorecard=card,
        by=interviewer,
        recommendation="yes",
        ratings=ratings_for(first)[:2],
    )
    third, fourth = titles(first)[2:]
    before = state()

    response = submit(interviewer, card)

    assert detail(response, 400, "scorecard_incomplete") == (
        f"Rate every question or mark it not asked before submitting: '{third}'; '{fourth}'"
    )
    assert state() == before


def test_it_counts_a_question_with_only_notes_as_unrated(
    first: Interview, interviewer: User
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    ratings = ratings_for(first)
    ratings[1] = services.RatingInput(item=ratings[1].item, notes="Thinking about it")
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="yes", ratings=ratings
    )
    before = state()

    response = submit(interviewer, card)

    assert detail(response, 400, "scorecard_incomplete") == (
        f"Rate every question or mark it not asked before submitting: '{titles(first)[1]}'"
    )
    assert state() == before


@pytest.mark.parametrize("reason", ["", "   "])
def test_it_refuses_a_question_not_asked_without_a_reason(
    first: Interview, interviewer: User, reason: str
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    ratings = ratings_for(first)
    ratings[2] = services.RatingInput(item=ratings[2].item, not_asked=True, not_asked_reason=reason)
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="yes", ratings=ratings
    )
    before = state()

    response = submit(interviewer, card)

    assert detail(response, 400, "not_asked_reason_missing") == (
        f"Say why '{titles(first)[2]}' was not asked before submitting."
    )
    assert state() == before


def test_it_accepts_a_question_not_asked_with_a_reason(first: Interview, interviewer: User) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    ratings = ratings_for(first)
    ratings[3] = services.RatingInput(
        item=ratings[3].item, not_asked=True, not_asked_reason="Ran out of time"
    )
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="no", ratings=ratings
    )

    response = submit(interviewer, card)

    assert response.status_code == 200
    assert response.json()["ratings"][3]["not_asked"] is True
    assert response.json()["ratings"][3]["not_asked_reason"] == "Ran out of time"
    assert response.json()["ratings"][3]["rating"] is None


def test_it_refuses_a_card_without_a_recommendation(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first, recommendation="")
    before = state()

    response = submit(interviewer, card)

    assert detail(response, 400, "recommendation_missing") == (
        "Choose an overall recommendation before submitting."
    )
    assert state() == before


def test_it_answers_409_to_a_second_submission(first: Interview, interviewer: User) -> None:
    card = draft(interviewer, first)
    assert submit(interviewer, card).status_code == 200
    card.refresh_from_db()
    first_time = card.submitted_at
    assert first_time is not None
    before = state()

    response = submit(interviewer, card)

    when = first_time.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    assert detail(response, 409, "scorecard_already_submitted") == (
        f"This scorecard was already submitted at {when} UTC."
    )
    assert state() == before
    assert Scorecard.objects.filter(status="submitted").count() == 1


def test_it_answers_404_on_someone_elses_card(
    first: Interview, interviewer: User, pia: User, recruiter: User
) -> None:
    card = draft(interviewer, first)
    before = state()

    for user in (pia, recruiter):
        response = submit(user, card)
        assert detail(response, 404, "not_found") == NOT_FOUND

    assert state() == before


@pytest.mark.parametrize("pk", [999999, 2**63], ids=["unknown", "past-64-bits"])
def test_it_answers_404_for_a_card_that_does_not_exist(
    first: Interview, interviewer: User, pk: int
) -> None:
    draft(interviewer, first)
    before = state()

    response = submit(interviewer, Scorecard(pk=pk))

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


def test_it_moves_the_loop_to_debrief_once_every_interviewer_but_the_shadow_has_submitted(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    sam: User,
) -> None:
    draft(sam, first)  # the shadow started but never submits
    submitted(interviewer, first)
    submitted(pia, first)
    submitted(other_interviewer, second)
    panel.loop.refresh_from_db()
    assert panel.loop.status == "in_progress"  # Ines still owes interview 2

    submitted(interviewer, second)

    panel.loop.refresh_from_db()
    assert panel.loop.status == "debrief"
    assert Scorecard.objects.get(interviewer=sam).status == "draft"


def test_the_service_refuses_anyone_but_the_author(
    first: Interview, interviewer: User, pia: User
) -> None:
    card = draft(interviewer, first)
    before = state()

    with pytest.raises(Http404):  # the same answer as for a card that does not exist
        services.scorecard_submit(scorecard=card, by=pia)

    assert state() == before


def test_a_refusal_lists_every_problem_with_the_question_or_field_it_concerns(
    first: Interview, interviewer: User
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    ratings = ratings_for(first)
    q1, q2, q3, _ = (r.item for r in ratings)
    ratings[1] = services.RatingInput(item=q2, not_asked=True)  # no reason
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="", ratings=[ratings[0], ratings[1]]
    )
    before = state()

    response = submit(interviewer, card)

    # The first problem is the error, worded as before; `problems` add every one.
    body = problem(response, 400, "not_asked_reason_missing")
    assert body["detail"] == f"Say why '{titles(first)[1]}' was not asked before submitting."
    assert body["problems"] == [
        {"item": q2, "code": "not_asked_reason_missing",
         "detail": "Say why this question was not asked."},
        {"item": q3, "code": "scorecard_incomplete",
         "detail": "Choose a rating, or tick “Not asked” and say why."},
        {"item": ratings[3].item, "code": "scorecard_incomplete",
         "detail": "Choose a rating, or tick “Not asked” and say why."},
        {"field": "recommendation", "code": "recommendation_missing",
         "detail": "Choose an overall recommendation."},
    ]  # fmt: skip
    assert q1 not in [p.get("item") for p in body["problems"]]
    assert state() == before
