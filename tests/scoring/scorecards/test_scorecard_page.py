"""/interviews/{id}/scorecard/: write your scorecard; drafts autosave (X-Autosave: 1)."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from scoring.models import QuestionRating, Scorecard
from tests.scoring.helpers import follow_ups, form_data, rubric, state, submitted


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(interview: Interview) -> str:
    return f"/interviews/{interview.pk}/scorecard/"


def test_it_shows_each_question_with_anchored_scale_rubric_and_follow_ups(
    first: Interview, interviewer: User
) -> None:
    response = signed_in(interviewer).get(url(first))

    assert response.status_code == 200
    body = response.content.decode()
    items = list(first.questions.select_related("question").order_by("order"))
    for n, item in enumerate(items, start=1):
        assert f"{n}. {item.question.title}" in body
        for value in range(1, 5):
            assert f'name="q{item.pk}-rating" value="{value}"' in body
        for point in rubric(item):
            assert f'name="q{item.pk}-checked" value="{point.pk}"' in body
        assert f'name="q{item.pk}-follow_ups" value="{follow_ups(item)[0].pk}"' in body
        assert f'name="q{item.pk}-not_asked"' in body
        assert f'name="q{item.pk}-reason"' in body
        assert f'name="q{item.pk}-notes"' in body
    for label in (
        "Missed most core points, or showed a red flag",
        "Covered some core points; clear gaps",
        "Covered the core points",
        "Covered the core points and what a strong answer adds",
    ):
        assert body.count(f'<span class="meaning">{label}</span>') == len(items)
    for heading in ("Core points covered", "Strong answer adds", "Red flags seen"):
        assert body.count(heading) == len(items)
    assert "Explains the mechanism in plain terms." in body
    assert "A common miss is ignoring failure modes." in body
    assert "What would you measure first?" in body
    for value in ("strong_no", "no", "yes", "strong_yes"):
        assert f'name="recommendation" value="{value}"' in body
    assert "Submit scorecard" in body
    assert 'data-autosave="1"' in body
    # Opening the page starts nothing: My interviews still says "Not started".
    assert '<span id="card-status" class="status">Not started</span>' in body
    assert not Scorecard.objects.exists()


def test_the_first_save_starts_the_draft(first: Interview, interviewer: User) -> None:
    client = signed_in(interviewer)
    client.get(url(first))

    response = client.post(url(first), {"summary": "First thoughts"}, HTTP_X_AUTOSAVE="1")

    assert response.status_code == 200
    card = Scorecard.objects.get()
    assert (card.interviewer, card.status, card.summary) == (interviewer, "draft", "First thoughts")
    page = client.get(url(first)).content.decode()
    assert '<span id="card-status" class="status status-draft">Draft</span>' in page


def test_it_tells_a_shadow_their_card_does_not_count(first: Interview, sam: User) -> None:
    client = signed_in(sam)
    response = client.get(url(first))

    assert response.status_code == 200
    assert "shadow: your card does not count toward the decision" in response.content.decode()
    client.post(url(first), {"summary": "Watching"}, HTTP_X_AUTOSAVE="1")
    assert Scorecard.objects.get().is_shadow is True


def test_it_autosaves_the_draft_and_answers_the_time(first: Interview, interviewer: User) -> None:
    client = signed_in(interviewer)
    data = form_data(
        first, rating=2, notes="Autosaved note", summary="Halfway", recommendation="no"
    )

    response = client.post(url(first), data, HTTP_X_AUTOSAVE="1")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert list(response.json()) == ["saved_at", "version"]
    assert re.fullmatch(r"\d\d:\d\d:\d\d", response.json()["saved_at"])
    card = Scorecard.objects.get()
    assert (card.status, card.recommendation, card.summary) == ("draft", "no", "Halfway")
    ratings = list(QuestionRating.objects.filter(scorecard=card).order_by("item__order"))
    assert [r.rating for r in ratings] == [2, 2, 2, 2]
    assert ratings[0].notes == "Autosaved note (question 1)"
    item = first.questions.order_by("order")[0]
    assert set(ratings[0].checked.values_list("pk", flat=True)) == {
        r.pk for r in rubric(item, "core")
    }
    assert list(ratings[0].follow_ups_asked.all()) == follow_ups(item)


def test_a_reload_shows_the_saved_draft(first: Interview, interviewer: User) -> None:
    client = signed_in(interviewer)
    client.post(url(first), form_data(first, rating=2, summary="Halfway"), HTTP_X_AUTOSAVE="1")

    body = client.get(url(first)).content.decode()

    for item in first.questions.order_by("order"):
        assert f'name="q{item.pk}-rating" value="2" checked' in body
        assert f'name="q{item.pk}-rating" value="3" checked' not in body
        for point in rubric(item, "core"):
            assert f'name="q{item.pk}-checked" value="{point.pk}" checked' in body
        for point in rubric(item, "red_flag"):
            assert f'name="q{item.pk}-checked" value="{point.pk}" checked' not in body
    assert 'name="recommendation" value="yes" checked' in body
    assert ">Halfway</textarea>" in body


@pytest.mark.parametrize("rating", ["0", "5"])
def test_autosave_refuses_a_rating_outside_the_scale_as_json(
    first: Interview, interviewer: User, rating: str
) -> None:
    client = signed_in(interviewer)
    client.get(url(first))
    item = first.questions.select_related("question").order_by("order")[0]
    data = form_data(first)
    data[f"q{item.pk}-rating"] = rating
    before = state()

    response = client.post(url(first), data, HTTP_X_AUTOSAVE="1")

    assert (response.status_code, response.json()) == (
        400,
        {
            "error": f"ratings[1] ({item.question.title}): rating {rating} is outside the"
            " scale 1–4.",
            "code": "rating_out_of_scale",
        },
    )
    assert state() == before


def test_autosave_refuses_a_rating_that_is_not_a_number(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    client.get(url(first))
    item = first.questions.select_related("question").order_by("order")[0]
    data = form_data(first)
    data[f"q{item.pk}-rating"] = "four"
    before = state()

    response = client.post(url(first), data, HTTP_X_AUTOSAVE="1")

    assert (response.status_code, response.json()) == (
        400,
        {
            "error": f"{item.question.title}: rating 'four' is not a number",
            "code": "rating_not_a_number",
        },
    )
    assert state() == before


def test_autosave_refuses_a_rubric_item_of_another_question(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    client.get(url(first))
    q1, q2 = first.questions.select_related("question").order_by("order")[:2]
    data = form_data(first)
    data[f"q{q1.pk}-checked"] = [str(rubric(q2)[0].pk)]
    before = state()

    response = client.post(url(first), data, HTTP_X_AUTOSAVE="1")

    assert (response.status_code, response.json()) == (
        400,
        {
            "error": f"ratings[1] ({q1.question.title}): rubric item {rubric(q2)[0].pk} "
            "does not belong to this question.",
            "code": "rubric_item_foreign",
        },
    )
    assert state() == before


def test_it_saves_a_draft_and_comes_back_to_the_page(first: Interview, interviewer: User) -> None:
    client = signed_in(interviewer)

    response = client.post(url(first), {**form_data(first), "action": "save"}, follow=True)

    assert response.redirect_chain == [(url(first), 302)]
    assert "Draft saved." in response.content.decode()
    assert Scorecard.objects.get().status == "draft"
    assert QuestionRating.objects.count() == 4


def test_it_submits_and_lands_on_the_debrief(first: Interview, interviewer: User) -> None:
    client = signed_in(interviewer)

    response = client.post(url(first), {**form_data(first), "action": "submit"}, follow=True)

    assert response.redirect_chain == [(f"/loops/{first.loop_id}/debrief/", 302)]
    assert "Scorecard submitted. The panel&#x27;s feedback is open to you." in (
        response.content.decode()
    )
    card = Scorecard.objects.get()
    assert (card.status, card.submitted_at is not None) == ("submitted", True)


def test_it_refuses_to_submit_an_incomplete_card_naming_the_question(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    items = list(first.questions.select_related("question").order_by("order"))
    data = form_data(first)
    data[f"q{items[3].pk}-rating"] = ""

    response = client.post(url(first), {**data, "action": "submit"})

    assert response.status_code == 200
    assert (
        "Rate every question or mark it not asked before submitting: "
        f"&#x27;{items[3].question.title}&#x27;"
    ) in response.content.decode()
    # What was typed is kept as the draft; nothing is submitted.
    card = Scorecard.objects.get()
    assert (card.status, card.submitted_at) == ("draft", None)
    ratings = QuestionRating.objects.filter(scorecard=card).order_by("item__order")
    assert [r.rating for r in ratings] == [3, 3, 3, None]


def test_a_submitted_card_is_shown_read_only_and_a_post_changes_nothing(
    first: Interview, interviewer: User
) -> None:
    submitted(interviewer, first, summary="As submitted")
    client = signed_in(interviewer)
    before = state()

    page = client.get(url(first)).content.decode()
    autosave = client.post(url(first), form_data(first, summary="Late"), HTTP_X_AUTOSAVE="1")
    saved = client.post(url(first), {**form_data(first, summary="Late"), "action": "save"})
    client.post(url(first), {**form_data(first, rating=1), "action": "submit"})

    assert "A submitted scorecard is kept as it is" in page
    assert '<fieldset class="plain" disabled>' in page
    assert "Submit scorecard" not in page
    assert (autosave.status_code, autosave.json()) == (
        409,
        {"error": "This scorecard is already submitted."},
    )
    assert saved.status_code == 200
    assert "This scorecard is already submitted: nothing was changed." in saved.content.decode()
    assert state() == before


def test_it_answers_404_for_an_interview_you_are_not_on(
    first: Interview, olga: User, recruiter: User, lead: User
) -> None:
    before = state()

    for user in (olga, recruiter, lead):
        client = signed_in(user)
        assert client.get(url(first)).status_code == 404
        assert client.post(url(first), form_data(first), HTTP_X_AUTOSAVE="1").status_code == 404

    assert state() == before


def test_it_sends_anonymous_visitors_to_the_login_page(first: Interview) -> None:
    response = Client().get(url(first))

    assert (response.status_code, response["Location"]) == (
        302,
        f"/login/?next=/interviews/{first.pk}/scorecard/",
    )
    assert not Scorecard.objects.exists()


def test_autosave_refuses_a_rating_on_a_question_marked_not_asked(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    client.get(url(first))
    q1 = first.questions.select_related("question").order_by("order").first()
    assert q1 is not None
    data = form_data(first)
    data.update({f"q{q1.pk}-not_asked": "on", f"q{q1.pk}-reason": "no time"})
    data[f"q{q1.pk}-checked"] = []
    data[f"q{q1.pk}-follow_ups"] = []
    before = state()

    response = client.post(url(first), data, HTTP_X_AUTOSAVE="1")

    assert (response.status_code, response.json()) == (
        400,
        {
            "error": f"ratings[1] ({q1.question.title}): a question not asked has no rating.",
            "code": "rating_for_question_not_asked",
        },
    )
    assert state() == before
