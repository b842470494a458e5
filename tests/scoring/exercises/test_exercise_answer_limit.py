"""How many answers an exercise takes (issue 33): as many as the dashboard's ICC card
asks for and more, one limit (scoring.exercises.limits) read by the card, the form and
the service; one answer over it is refused with a clear message and writes nothing."""

import html
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.accounts.models import Notice
from core.api.exceptions import ApplicationError
from core.outbox.models import OutgoingEmail
from kit.models import Question, QuestionVersion
from scoring.calibration import stats
from scoring.exercises import services
from scoring.exercises.limits import ANSWERS_FOR_ICC, ANSWERS_MAX
from scoring.models import CalibrationExercise, ReferenceAnswer
from tests.scoring.exercises.helpers import answers, keyed, signed_in

URL = "/calibration/exercises/new/"


def nothing_written(question: Question) -> None:
    assert CalibrationExercise.objects.count() == 0
    assert ReferenceAnswer.objects.count() == 0
    assert not OutgoingEmail.objects.filter(kind=Notice.EXERCISE_INVITED).exists()
    assert QuestionVersion.objects.get(pk=question.current_id).in_use is False


def test_the_limit_allows_what_the_icc_card_asks_for_and_more() -> None:
    assert ANSWERS_FOR_ICC == stats.ICC_MIN_CANDIDATES == 10
    assert ANSWERS_MAX == 20


def test_the_service_takes_the_maximum(question: Question, lead: User, interviewer: User) -> None:
    keys = [1 + n % 4 for n in range(ANSWERS_MAX)]

    exercise = services.exercise_create(
        title="Twenty answers",
        question=question,
        answers=keyed(*keys),
        participants=[interviewer],
        by=lead,
    )

    assert [(a.order, a.key_rating) for a in answers(exercise)] == [
        (n, key) for n, key in enumerate(keys, start=1)
    ]


def test_the_service_refuses_one_over_the_maximum(
    question: Question, lead: User, interviewer: User
) -> None:
    with pytest.raises(ApplicationError) as caught:
        services.exercise_create(
            title="Twenty-one answers",
            question=question,
            answers=keyed(*[3] * (ANSWERS_MAX + 1)),
            participants=[interviewer],
            by=lead,
        )

    assert caught.value.message == "An exercise takes at most 20 reference answers, not 21."
    nothing_written(question)


def test_the_form_offers_from_two_to_the_maximum_and_names_the_cards_ask(
    question: Question, lead: User
) -> None:
    body = signed_in(lead).get(f"{URL}?question={question.pk}&answers=20").content.decode()

    start = body.index('<select name="answers"')
    offered = body[start : body.index("</select>", start)]
    assert re.findall(r"<option[^>]*>(\d+)</option>", offered) == [str(n) for n in range(2, 21)]
    assert "<option selected>20</option>" in offered
    assert body.count('<textarea name="a') == 20
    assert "shows an exercise's ICC from 10 answers that everyone scores" in body


def test_the_lead_creates_an_exercise_of_the_maximum_on_the_page(
    question: Question, lead: User, interviewer: User
) -> None:
    data: dict[str, object] = {"title": "Twenty answers", "participants": [str(interviewer.pk)]}
    for n in range(1, ANSWERS_MAX + 1):
        data[f"a{n}-transcript"] = f"Answer {n}"
        data[f"a{n}-key"] = str(1 + n % 4)

    response = signed_in(lead).post(f"{URL}?question={question.pk}&answers=20", data)

    exercise = CalibrationExercise.objects.get()
    assert response.status_code == 302
    assert [(a.order, a.transcript) for a in answers(exercise)] == [
        (n, f"Answer {n}") for n in range(1, 21)
    ]


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_page_refuses_one_over_the_maximum(
    question: Question, lead: User, interviewer: User, method: str
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(lead)
    data = {"title": "Too many", "participants": [str(interviewer.pk)]}
    for n in range(1, ANSWERS_MAX + 2):
        data[f"a{n}-transcript"] = f"Answer {n}"
        data[f"a{n}-key"] = "3"

    response = getattr(client, method)(
        f"{URL}?question={question.pk}&answers=21", data if method == "post" else None
    )

    assert response.status_code == 400
    assert "'answers' must be a whole number from 2 to 20, not '21'." in html.unescape(
        response.content.decode()
    )
    nothing_written(question)
