"""/calibration/exercises/new/: a lead picks a question, keys the answers and invites people."""

import html

import pytest
from django.contrib.auth.models import User
from django.test import Client

from kit.models import Question, QuestionVersion
from scoring.models import CalibrationExercise, ReferenceAnswer
from tests.scoring.exercises.helpers import rubric, signed_in

URL = "/calibration/exercises/new/"


def form(question: Question, people: list[User], **changes: object) -> dict[str, object]:
    core, cost, strong, red = rubric(question)
    data: dict[str, object] = {
        "title": "November calibration",
        "participants": [str(p.pk) for p in people],
        "a1-transcript": "It is two times layers times heads times head size, per token.",
        "a1-key": "4",
        "a1-checked": [str(core.pk), str(cost.pk), str(strong.pk)],
        "a2-transcript": "It is big.",
        "a2-key": "1",
        "a2-checked": [str(red.pk)],
        "a3-transcript": "It grows with the context.",
        "a3-key": "2",
    }
    data.update(changes)
    return data


def nothing_written(question: Question) -> None:
    assert CalibrationExercise.objects.count() == 0
    assert ReferenceAnswer.objects.count() == 0
    assert QuestionVersion.objects.get(pk=question.current_id).in_use is False


def test_it_shows_the_lead_the_question_its_rubric_and_the_interviewers(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    response = signed_in(lead).get(f"{URL}?question={question.pk}")

    assert response.status_code == 200
    body = response.content.decode()
    assert f'<option value="{question.pk}" selected>KV cache sizing</option>' in body
    assert '<blockquote class="prompt">How big is the KV cache?</blockquote>' in body
    assert f'<option value="{interviewer.pk}">Ines (ines)</option>' in body
    assert f'<option value="{other_interviewer.pk}">Omar (omar)</option>' in body
    assert body.count('<textarea name="a') == 3
    for item in rubric(question):
        assert f'<input type="checkbox" name="a3-checked" value="{item.pk}">' in body


def test_the_lead_creates_an_exercise(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    core, cost, strong, red = rubric(question)

    response = signed_in(lead).post(
        f"{URL}?question={question.pk}", form(question, [interviewer, other_interviewer])
    )

    exercise = CalibrationExercise.objects.get()
    assert response.status_code == 302
    assert response.url == f"/calibration/exercises/{exercise.pk}/"
    assert exercise.title == "November calibration"
    assert exercise.version_id == question.current_id
    assert exercise.created_by == lead
    assert set(exercise.participants.all()) == {interviewer, other_interviewer}
    assert [
        (a.order, a.transcript, a.key_rating, {r.pk for r in a.key_checked.all()})
        for a in exercise.answers.order_by("order")
    ] == [
        (
            1,
            "It is two times layers times heads times head size, per token.",
            4,
            {core.pk, cost.pk, strong.pk},
        ),
        (2, "It is big.", 1, {red.pk}),
        (3, "It grows with the context.", 2, set()),
    ]
    assert QuestionVersion.objects.get(pk=question.current_id).in_use is True


def test_it_refuses_a_key_rating_outside_the_scale(
    question: Question, lead: User, interviewer: User
) -> None:
    response = signed_in(lead).post(
        f"{URL}?question={question.pk}", form(question, [interviewer], **{"a2-key": "7"})
    )

    assert response.status_code == 200
    assert "answer 2: key rating 7 is outside the scale 1–4." in response.content.decode()
    nothing_written(question)


def test_it_refuses_a_key_rating_that_is_not_a_number(
    question: Question, lead: User, interviewer: User
) -> None:
    response = signed_in(lead).post(
        f"{URL}?question={question.pk}", form(question, [interviewer], **{"a1-key": "four"})
    )

    assert response.status_code == 200
    assert "A key rating or rubric item is not a number." in response.content.decode()
    nothing_written(question)


def test_it_invites_only_interviewers(question: Question, lead: User, recruiter: User) -> None:
    response = signed_in(lead).post(f"{URL}?question={question.pk}", form(question, [recruiter]))

    assert response.status_code == 200
    assert "Invite at least one interviewer." in response.content.decode()
    nothing_written(question)


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_it_is_not_found_for_anyone_but_a_lead(
    question: Question, interviewer: User, persona: str, request: pytest.FixtureRequest
) -> None:
    client = signed_in(request.getfixturevalue(persona))

    assert client.get(f"{URL}?question={question.pk}").status_code == 404
    response = client.post(f"{URL}?question={question.pk}", form(question, [interviewer]))
    assert response.status_code == 404
    nothing_written(question)


def test_it_refuses_a_question_that_is_not_a_number(lead: User, question: Question) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(lead)

    response = client.get(f"{URL}?question=kv-cache")

    assert response.status_code == 400
    assert "'question' must be an id" in html.unescape(response.content.decode())
    assert "<blockquote" not in response.content.decode()
