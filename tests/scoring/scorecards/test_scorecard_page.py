"""/interviews/{id}/scorecard/: write your scorecard; drafts autosave (X-Autosave: 1)."""

import re
import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from core.accounts.models import Profile
from core.models import AuditEvent
from interviews.models import Interview, InterviewQuestion
from scoring.models import CalibrationJob, QuestionRating, Scorecard
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
    assert re.fullmatch(r"\d\d:\d\d:\d\d UTC", response.json()["saved_at"])  # the viewer's zone
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
    body = response.content.decode()
    assert (
        f'<a href="#q{items[3].pk}-rating">Question 4, {items[3].question.title}: Choose a rating,'
        " or tick “Not asked” and say why.</a>"
    ) in body
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


def section(body: str, item: InterviewQuestion) -> str:
    """Return the page's section for one question, up to the next one."""
    start = body.index(f'<section class="card sq" id="item-{item.pk}">')
    return body[start : body.index("</section>", start)]


def summary_links(body: str) -> list[str]:
    start = body.index('<div class="error error-summary" id="error-summary" data-error-summary')
    return re.findall(r'<a href="(#[^"]+)">', body[start : body.index("</div>", start)])


def test_an_incomplete_card_shows_each_problem_by_its_field_and_stays_a_draft(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    q1, q2, q3, q4 = first.questions.select_related("question").order_by("order")
    data = form_data(first, recommendation="", summary="Half done")
    data[f"q{q2.pk}-rating"] = ""  # not rated
    data |= {f"q{q3.pk}-rating": "", f"q{q3.pk}-not_asked": "on", f"q{q3.pk}-reason": ""}
    data |= {f"q{q3.pk}-checked": [], f"q{q3.pk}-follow_ups": []}  # not asked, no reason

    response = client.post(url(first), {**data, "action": "submit"})

    assert response.status_code == 200
    body = response.content.decode()
    # The summary: one link per problem, in the page's order; focus goes to it (form-errors.js).
    assert 'data-error-summary tabindex="-1"' in body
    assert "Your scorecard is not submitted yet: 3 things to fix" in body
    assert summary_links(body) == [f"#q{q2.pk}-rating", f"#q{q3.pk}-reason", "#recommendation"]
    assert "Your answers are saved as a draft." in body
    # Each message beside its field, which names it (aria-describedby) and is marked invalid.
    rating_error = f'<p class="error-text field-error" id="q{q2.pk}-rating-error">'
    assert f"{rating_error}Choose a rating, or tick “Not asked” and say why.</p>" in section(
        body, q2
    )
    assert (
        f'id="q{q2.pk}-rating" tabindex="-1" aria-label="Rating for {q2.question.title}"'
        f' aria-invalid="true" aria-describedby="q{q2.pk}-rating-error">'
    ) in section(body, q2)
    assert (
        f'id="q{q3.pk}-reason" value="" placeholder="e.g. ran out of time" aria-invalid="true"'
        f' aria-describedby="q{q3.pk}-reason-error">'
    ) in section(body, q3)
    assert (
        f'<span class="error-text field-error" id="q{q3.pk}-reason-error">'
        "Say why this question was not asked.</span>"
    ) in section(body, q3)
    for fine in (q1, q4):
        assert "aria-invalid" not in section(body, fine)
        assert "error-text" not in section(body, fine)
    assert (
        '<p class="error-text field-error" id="recommendation-error">'
        "Choose an overall recommendation.</p>"
    ) in body
    assert (
        'id="recommendation" tabindex="-1" aria-label="Recommendation" aria-invalid="true"'
        ' aria-describedby="recommendation-error">'
    ) in body
    # The submit bar says it too; no banner repeats the service's wording.
    assert "Not submitted: 3 things to fix, listed" in body
    assert '<ul class="messages">' not in body
    # What was typed is kept as the draft; nothing is submitted.
    card = Scorecard.objects.get()
    assert (card.status, card.submitted_at, card.summary) == ("draft", None, "Half done")
    ratings = QuestionRating.objects.filter(scorecard=card).order_by("item__order")
    assert [(r.rating, r.not_asked) for r in ratings] == [
        (3, False), (None, False), (None, True), (3, False),
    ]  # fmt: skip
    assert not AuditEvent.objects.exists()
    assert not CalibrationJob.objects.exists()


def test_a_card_with_too_few_rated_marks_each_question_not_asked(
    first: Interview, interviewer: User
) -> None:
    client = signed_in(interviewer)
    items = list(first.questions.select_related("question").order_by("order"))
    data = form_data(first)
    for item in items[1:]:
        data |= {f"q{item.pk}-rating": "", f"q{item.pk}-not_asked": "on"}
        data |= {f"q{item.pk}-reason": "no time", f"q{item.pk}-checked": []}
        data |= {f"q{item.pk}-follow_ups": []}

    response = client.post(url(first), {**data, "action": "submit"})

    body = response.content.decode()
    assert summary_links(body) == [f"#q{items[1].pk}-not_asked"]
    assert (
        "Questions marked not asked: Rate at least half of the questions (2 of 4; 1 rated)" in body
    )
    assert "aria-invalid" not in section(body, items[0])
    for item in items[1:]:
        assert (
            f'id="q{item.pk}-not_asked" checked aria-invalid="true"'
            f' aria-describedby="q{item.pk}-not_asked-error">'
        ) in section(body, item)
        assert (
            f'id="q{item.pk}-not_asked-error">If you asked this question, untick “Not asked”'
            " and rate it.</p>"
        ) in section(body, item)
    assert Scorecard.objects.get().status == "draft"
    assert not AuditEvent.objects.exists()


def test_a_complete_card_shows_no_error_summary(first: Interview, interviewer: User) -> None:
    body = signed_in(interviewer).get(url(first)).content.decode()

    assert "data-error-summary" not in body
    assert "aria-invalid" not in body
    assert "Once submitted, a scorecard can only be amended with a reason." in body


def held_at(interview: Interview, start: datetime | None) -> None:
    """Move the interview to `start` (None: no time), an hour long."""
    end = start + timedelta(hours=1) if start else None
    Interview.objects.filter(pk=interview.pk).update(scheduled_start=start, scheduled_end=end)


def test_before_the_interview_it_says_when_submitting_opens_in_the_viewers_zone(
    first: Interview, interviewer: User
) -> None:
    Profile.objects.create(user=interviewer, time_zone="Europe/Berlin")
    start = (timezone.now() + timedelta(days=4)).replace(second=0, microsecond=0)
    held_at(first, start)
    local = start.astimezone(zoneinfo.ZoneInfo("Europe/Berlin"))

    body = signed_in(interviewer).get(url(first)).content.decode()

    shown = f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname()}"  # Wed 9 Dec 15:00 CET
    assert (
        f'<div class="notice" id="not-started">You can submit from {shown}, when the interview'
        " starts; your draft is saved as you write it.</div>"
    ) in body
    assert 'value="submit"' not in body
    assert 'value="save"' in body  # the draft is written as ever
    assert "Submitting opens when the interview starts." in body


def test_an_interview_with_no_time_says_submitting_waits_for_it(
    first: Interview, interviewer: User
) -> None:
    held_at(first, None)

    body = signed_in(interviewer).get(url(first)).content.decode()

    assert (
        "This interview has no time yet: you can submit once it is scheduled and has started;"
    ) in body
    assert 'value="submit"' not in body


def test_once_the_interview_has_started_the_page_offers_submit(
    first: Interview, interviewer: User
) -> None:
    held_at(first, timezone.now() - timedelta(minutes=1))

    body = signed_in(interviewer).get(url(first)).content.decode()

    assert 'id="not-started"' not in body
    assert 'value="submit"' in body


def test_a_submit_posted_before_the_interview_saves_the_draft_and_submits_nothing(
    first: Interview, interviewer: User
) -> None:
    # A page opened earlier, or a hand-made post: the service refuses it all the same.
    Profile.objects.create(user=interviewer, time_zone="Europe/Berlin")
    start = (timezone.now() + timedelta(days=4)).replace(second=0, microsecond=0)
    held_at(first, start)
    local = start.astimezone(zoneinfo.ZoneInfo("Europe/Berlin"))

    response = signed_in(interviewer).post(url(first), {**form_data(first), "action": "submit"})

    assert response.status_code == 200
    assert (
        f"This interview starts {local:%a %d %b %Y %H:%M %Z}: its scorecard can be submitted"
        " from then on. Your draft is saved."
    ) in response.content.decode()
    card = Scorecard.objects.get()
    assert (card.status, card.submitted_at) == ("draft", None)
    assert [r.rating for r in QuestionRating.objects.filter(scorecard=card)] == [3, 3, 3, 3]
    assert not CalibrationJob.objects.exists()
