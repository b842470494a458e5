"""PUT /api/v1/scorecards/{id}/ (services.scorecard_save_draft): save the whole draft as given."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.http import Http404
from django.test import override_settings
from pytest_django import DjangoDbBlocker
from rest_framework.fields import DateTimeField

from interviews.models import Interview, Loop
from kit import services as kit_services
from kit.models import FollowUp, RubricItem
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors, problem
from tests.scoring.conftest import PANEL_PERSONAS, build_panel
from tests.scoring.helpers import (
    card_json,
    draft,
    follow_ups,
    payload,
    rubric,
    state,
    submitted,
)
from tests.support.loops import Built
from tests.support.shared_db import make_personas, persona_user, rolled_back


# The panel loop (tests/scoring/conftest.py) and its people, built once for the module;
# each test reads them again in a savepoint of its own (tests/support/shared_db.py).
@pytest.fixture(scope="module")
def shared_panel(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[Built]:
    with rolled_back(django_db_blocker):
        make_personas(*PANEL_PERSONAS)
        yield build_panel(*(persona_user(name) for name in PANEL_PERSONAS))


@pytest.fixture
def panel(shared_panel: Built, db: None) -> Built:
    return shared_panel.fresh()


@pytest.fixture
def recruiter(shared_panel: Built, db: None) -> User:
    return persona_user("recruiter")


@pytest.fixture
def interviewer(shared_panel: Built, db: None) -> User:
    return persona_user("interviewer")


@pytest.fixture
def other_interviewer(shared_panel: Built, db: None) -> User:
    return persona_user("other_interviewer")


@pytest.fixture
def pia(shared_panel: Built, db: None) -> User:
    return persona_user("pia")


@pytest.fixture
def sam(shared_panel: Built, db: None) -> User:
    return persona_user("sam")


def put(user: User, card: Scorecard, body: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client_for(user).put(f"/api/v1/scorecards/{card.pk}/", body, format="json")


@pytest.fixture
def card(first: Interview, interviewer: User) -> Scorecard:
    """Ines's draft for interview 1, already holding a complete card (so a refusal has
    something to keep)."""
    return draft(interviewer, first, notes="Kept as it was", summary="First pass")


def test_it_saves_ratings_rubric_follow_ups_notes_and_not_asked(
    first: Interview, interviewer: User
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    q1, q2, q3, q4 = first.questions.order_by("order")
    core, strong, red = (rubric(q1, kind)[0] for kind in ("core", "strong", "red_flag"))
    body = {
        "recommendation": "strong_yes",
        "summary": "Clear reasoning throughout.",
        "ratings": [
            {
                "item": q1.pk,
                "rating": 4,
                "checked": [core.pk, strong.pk, red.pk],
                "follow_ups_asked": [follow_ups(q1)[0].pk],
                "notes": "Walked through the KV cache.",
            },
            {"item": q2.pk, "rating": 1, "notes": "Missed the point."},
            {"item": q3.pk, "not_asked": True, "not_asked_reason": "  ran out of time  "},
            {"item": q4.pk, "rating": 2},
        ],
    }

    response = put(interviewer, card, body)

    assert response.status_code == 200
    assert response.json() == card_json(card)
    data = response.json()
    assert (data["status"], data["recommendation"], data["summary"]) == (
        "draft",
        "strong_yes",
        "Clear reasoning throughout.",
    )
    assert [
        (r["item"], r["rating"], r["not_asked"], r["not_asked_reason"], r["notes"])
        for r in data["ratings"]
    ] == [
        (q1.pk, 4, False, "", "Walked through the KV cache."),
        (q2.pk, 1, False, "", "Missed the point."),
        (q3.pk, None, True, "ran out of time", ""),
        (q4.pk, 2, False, "", ""),
    ]
    assert data["ratings"][0]["checked"] == sorted([core.pk, strong.pk, red.pk])
    assert data["ratings"][0]["follow_ups_asked"] == [follow_ups(q1)[0].pk]
    assert data["ratings"][0]["title"] == q1.question.title
    card.refresh_from_db()
    assert card.status == "draft" and card.submitted_at is None


def test_it_saves_an_incomplete_draft(first: Interview, interviewer: User) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    item = first.questions.order_by("order").first()
    assert item is not None

    response = put(interviewer, card, {"ratings": [{"item": item.pk, "rating": 2}]})

    assert response.status_code == 200
    assert response.json() == card_json(card)
    # No recommendation chosen yet: null.
    assert (response.json()["recommendation"], len(response.json()["ratings"])) == (None, 1)


def test_it_replaces_the_whole_card_so_a_missing_rating_is_removed(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    body = payload(first, summary="Second pass")
    body["ratings"] = body["ratings"][:2]

    response = put(interviewer, card, body)

    assert response.status_code == 200
    assert [r["item"] for r in response.json()["ratings"]] == [
        q.pk for q in first.questions.order_by("order")[:2]
    ]
    assert QuestionRating.objects.filter(scorecard=card).count() == 2
    assert response.json()["summary"] == "Second pass"


def test_it_moves_a_scheduled_loop_in_progress(
    panel: Built, first: Interview, interviewer: User
) -> None:
    assert panel.loop.status == "scheduled"

    draft(interviewer, first)

    panel.loop.refresh_from_db()
    assert panel.loop.status == "in_progress"


def test_every_rating_keeps_the_version_its_question_was_assigned_at(
    first: Interview, interviewer: User, lead: User
) -> None:
    item = first.questions.select_related("question", "version").order_by("order").first()
    assert item is not None
    assigned = item.version
    question = item.question
    # A lead edits the question after it was assigned: the assignment froze version 1.
    content = kit_services.content_of(assigned)
    changed = kit_services.question_update(
        question=question,
        content=kit_services.Content(
            prompt=content.prompt + " (revised)",
            outline="Names the bottleneck. Quantifies it.",
            minutes=content.minutes,
            scale_max=content.scale_max,
            follow_ups=content.follow_ups,
        ),
        by=lead,
    )
    question.refresh_from_db()
    assert changed and question.current_id != assigned.pk and question.current.number == 2

    card = services.scorecard_start(interview=first, by=interviewer)
    response = put(interviewer, card, payload(first))

    assert response.status_code == 200
    rating = QuestionRating.objects.get(scorecard=card, item=item)
    assert rating.version_id == assigned.pk
    assert response.json()["ratings"][0]["version"] == 1
    # The rubric it is checked against is the assigned version's, not the new one's.
    assert set(rating.checked.values_list("version", flat=True)) == {assigned.pk}


def test_it_refuses_a_rubric_item_of_the_questions_newer_version(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    item = first.questions.select_related("question").order_by("order").first()
    assert item is not None
    question = item.question
    content = kit_services.content_of(item.version)
    kit_services.question_update(
        question=question,
        content=kit_services.Content(
            prompt=content.prompt, outline="Names the bottleneck. Quantifies it."
        ),
    )
    question.refresh_from_db()
    newer = RubricItem.objects.filter(version=question.current_id).first()
    assert newer is not None
    body = payload(first)
    body["ratings"][0]["checked"] = [newer.pk]
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "rubric_item_foreign") == (
        f"ratings[1] ({question.title}): rubric item {newer.pk} does not belong to this question."
    )
    assert state() == before


def test_it_refuses_a_rubric_item_of_another_question(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    q1, q2 = first.questions.select_related("question").order_by("order")[:2]
    foreign = rubric(q2)[0]
    body = payload(first)
    body["ratings"][0]["checked"] = [rubric(q1)[0].pk, foreign.pk]
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "rubric_item_foreign") == (
        f"ratings[1] ({q1.question.title}): rubric item {foreign.pk} "
        "does not belong to this question."
    )
    assert state() == before


def test_it_refuses_a_follow_up_of_another_question(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    q1, q2 = first.questions.select_related("question").order_by("order")[:2]
    foreign = follow_ups(q1)[0]
    body = payload(first)
    body["ratings"][1]["follow_ups_asked"] = [foreign.pk]
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "follow_up_foreign") == (
        f"ratings[2] ({q2.question.title}): follow-up {foreign.pk} "
        "does not belong to this question."
    )
    assert state() == before


def test_it_refuses_an_unknown_follow_up(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    q1 = first.questions.select_related("question").order_by("order").first()
    assert q1 is not None
    missing = (FollowUp.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    body = payload(first)
    body["ratings"][0]["follow_ups_asked"] = [missing]
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "follow_up_foreign") == (
        f"ratings[1] ({q1.question.title}): follow-up {missing} does not belong to this question."
    )
    assert state() == before


@pytest.mark.parametrize("rating", [0, 5])
def test_it_refuses_a_rating_outside_the_scale(
    card: Scorecard, first: Interview, interviewer: User, rating: int
) -> None:
    q1 = first.questions.select_related("question", "version").order_by("order").first()
    assert q1 is not None and q1.version.scale_max == 4
    body = payload(first)
    body["ratings"][0]["rating"] = rating
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "rating_out_of_scale") == (
        f"ratings[1] ({q1.question.title}): rating {rating} is outside the scale 1–4."
    )
    assert state() == before


def test_it_refuses_a_negative_rating_naming_the_field(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    body = payload(first)
    body["ratings"][0]["rating"] = -1
    before = state()

    response = put(interviewer, card, body)

    assert field_errors(response) == {
        "ratings.0.rating": ["Ensure this value is greater than or equal to 0."]
    }
    assert state() == before


def test_it_refuses_a_question_that_is_not_in_this_interview(
    card: Scorecard, first: Interview, second: Interview, interviewer: User
) -> None:
    # Ines sits on both interviews; a question of interview 2 still has no place on card 1.
    elsewhere = second.questions.order_by("order").first()
    assert elsewhere is not None
    body = payload(first)
    body["ratings"].append({"item": elsewhere.pk, "rating": 3})
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "question_not_in_interview") == (
        f"ratings[5]: question {elsewhere.pk} is not in this interview."
    )
    assert state() == before


def test_it_refuses_a_question_rated_twice(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    body = payload(first)
    body["ratings"].append(dict(body["ratings"][0]))
    item = body["ratings"][0]["item"]
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "question_rated_twice") == (
        f"ratings[5]: question {item} is rated twice."
    )
    assert state() == before


def test_it_refuses_a_rating_on_a_question_not_asked(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    q1 = first.questions.select_related("question").order_by("order").first()
    assert q1 is not None
    body = payload(first)
    body["ratings"][0].update(not_asked=True, not_asked_reason="no time", rating=3)
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "rating_for_question_not_asked") == (
        f"ratings[1] ({q1.question.title}): a question not asked has no rating."
    )
    assert state() == before


def test_it_refuses_an_unknown_recommendation(
    card: Scorecard, first: Interview, interviewer: User
) -> None:
    before = state()

    response = put(interviewer, card, payload(first, recommendation="maybe"))

    assert field_errors(response) == {"recommendation": ['"maybe" is not a valid choice.']}
    assert state() == before


def test_it_answers_404_on_someone_elses_card(
    card: Scorecard, first: Interview, pia: User, recruiter: User
) -> None:
    before = state()

    for user in (pia, recruiter):
        response = put(user, card, payload(first, notes="Overwritten"))
        assert detail(response, 404, "not_found") == NOT_FOUND

    assert state() == before


@pytest.mark.parametrize("pk", [999999, 2**63], ids=["unknown", "past-64-bits"])
def test_it_answers_404_for_a_card_that_does_not_exist(
    card: Scorecard, first: Interview, interviewer: User, pk: int
) -> None:
    before = state()

    response = put(interviewer, Scorecard(pk=pk), payload(first, notes="Nowhere"))

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


def test_someone_elses_card_is_a_404_even_with_a_bad_body(
    card: Scorecard, first: Interview, interviewer: User, pia: User
) -> None:
    bad = {"ratings": "not a list"}
    before = state()

    assert detail(put(pia, card, bad), 404, "not_found") == NOT_FOUND
    assert detail(put(pia, Scorecard(pk=999999), bad), 404, "not_found") == NOT_FOUND
    # Only the author learns what is wrong with the body.
    response = put(interviewer, card, bad)
    assert field_errors(response) == {
        "ratings.non_field_errors": ['Expected a list of items but got type "str".']
    }
    assert state() == before


def test_it_answers_409_on_a_submitted_card(first: Interview, interviewer: User) -> None:
    card = submitted(interviewer, first, summary="As submitted")
    before = state()

    response = put(interviewer, card, payload(first, rating=1, summary="Changed my mind"))

    assert detail(response, 409, "scorecard_already_submitted") == (
        "This scorecard is submitted; amend it with a reason instead."
    )
    assert state() == before
    assert Scorecard.objects.get(pk=card.pk).summary == "As submitted"


def test_the_service_refuses_anyone_but_the_author(
    card: Scorecard, first: Interview, pia: User
) -> None:
    before = state()

    with pytest.raises(Http404):
        services.scorecard_save_draft(scorecard=card, by=pia, summary="Not mine")
    # The same answer as for a card that does not exist.
    with pytest.raises(Http404):
        services.scorecard_save_draft(scorecard=Scorecard(pk=999999), by=pia, summary="None")

    assert state() == before


def test_a_loop_that_was_never_started_stays_unchanged_on_a_refusal(
    panel: Built, first: Interview, interviewer: User
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    body = payload(first)
    body["ratings"][0]["rating"] = 9

    response = put(interviewer, card, body)

    problem(response, 400, "rating_out_of_scale")
    assert Loop.objects.get(pk=panel.loop.pk).status == "scheduled"
    assert not QuestionRating.objects.exists()


@override_settings(TIME_ZONE="Europe/Berlin")
def test_times_are_shown_in_the_sites_time_zone(first: Interview, interviewer: User) -> None:
    card = submitted(interviewer, first)

    shown = client_for(interviewer).get(f"/api/v1/scorecards/{card.pk}/").json()

    card = Scorecard.objects.get(pk=card.pk)
    as_drf = DateTimeField().to_representation
    assert (shown["updated_at"], shown["submitted_at"]) == (
        as_drf(card.updated_at),
        as_drf(card.submitted_at),
    )
    assert shown["submitted_at"].endswith(("+01:00", "+02:00"))


@pytest.mark.parametrize("ticked", ["checked", "follow_ups_asked"])
def test_it_refuses_rubric_ticks_or_follow_ups_on_a_question_not_asked(
    card: Scorecard, first: Interview, interviewer: User, ticked: str
) -> None:
    q1 = first.questions.select_related("question").order_by("order").first()
    assert q1 is not None
    tick = rubric(q1, "core")[0] if ticked == "checked" else follow_ups(q1)[0]
    body = payload(first)
    body["ratings"][0].update(
        not_asked=True, not_asked_reason="no time", rating=None, **{ticked: [tick.pk]}
    )
    before = state()

    response = put(interviewer, card, body)

    assert detail(response, 400, "not_asked_with_answers") == (
        f"ratings[1] ({q1.question.title}): a question not asked has no rubric items checked"
        " or follow-ups asked."
    )
    assert state() == before
