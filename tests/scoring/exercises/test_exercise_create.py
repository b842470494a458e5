"""services.exercise_create: a lead keys reference answers to a question, invites people."""

from collections.abc import Sequence

import pytest
from django.contrib.auth.models import User

from core.api.exceptions import ApplicationError
from kit import services as kit_services
from kit.models import Question, QuestionVersion
from scoring.exercises import services
from scoring.models import CalibrationExercise, ExerciseRating, ReferenceAnswer
from tests.scoring.exercises.helpers import answers, create, keyed, rubric
from tests.support.factories import make_question


def refused(
    question: Question,
    lead: User,
    *,
    message: str,
    title: str = "November calibration",
    answers: Sequence[services.AnswerInput] = (),
    participants: Sequence[User] = (),
) -> None:
    """Assert exercise_create refuses with `message` and writes nothing."""
    with pytest.raises(ApplicationError) as caught:
        services.exercise_create(
            title=title,
            question=question,
            answers=list(answers),
            participants=list(participants),
            by=lead,
        )
    assert caught.value.message == message
    assert CalibrationExercise.objects.count() == 0
    assert ReferenceAnswer.objects.count() == 0
    assert ExerciseRating.objects.count() == 0
    assert QuestionVersion.objects.get(pk=question.current_id).in_use is False


def test_it_creates_the_exercise_with_its_keyed_answers_and_participants(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    core, cost, strong, red = rubric(question)

    exercise = services.exercise_create(
        title="  November calibration  ",
        question=question,
        answers=[
            services.AnswerInput("  Strong answer.  ", 4, (core.pk, cost.pk, strong.pk)),
            services.AnswerInput("Weak answer.", 1, (red.pk,)),
            services.AnswerInput("Middling answer.", 3),
        ],
        participants=[interviewer, other_interviewer],
        by=lead,
    )

    exercise.refresh_from_db()
    assert exercise.title == "November calibration"
    assert exercise.status == CalibrationExercise.Status.OPEN
    assert exercise.created_by == lead
    assert set(exercise.participants.all()) == {interviewer, other_interviewer}
    rows = answers(exercise)
    assert [(a.order, a.transcript, a.key_rating) for a in rows] == [
        (1, "Strong answer.", 4),
        (2, "Weak answer.", 1),
        (3, "Middling answer.", 3),
    ]
    assert [{r.pk for r in a.key_checked.all()} for a in rows] == [
        {core.pk, cost.pk, strong.pk},
        {red.pk},
        set(),
    ]


def test_it_pins_the_current_version_and_marks_it_in_use(
    question: Question, lead: User, interviewer: User
) -> None:
    first = question.current
    assert first is not None and first.in_use is False

    exercise = create(question, lead, [interviewer], 3, 2)

    first.refresh_from_db()
    assert exercise.version == first
    assert first.in_use is True
    # An edit of the question now makes version 2; the exercise keeps version 1.
    assert kit_services.question_update(
        question=question,
        content=kit_services.Content(prompt="A new prompt?", outline="Explains it."),
    )
    question.refresh_from_db()
    assert question.current is not None and question.current.number == 2
    exercise.refresh_from_db()
    assert exercise.version == first
    assert exercise.version.prompt == "How big is the KV cache?"


def test_it_refuses_an_empty_title(question: Question, lead: User, interviewer: User) -> None:
    refused(
        question,
        lead,
        title="   ",
        answers=keyed(3, 2),
        participants=[interviewer],
        message="Give the exercise a title.",
    )


def test_it_refuses_fewer_than_two_answers(
    question: Question, lead: User, interviewer: User
) -> None:
    refused(
        question,
        lead,
        answers=keyed(3),
        participants=[interviewer],
        message="An exercise needs at least two reference answers.",
    )


def test_it_refuses_an_exercise_without_participants(question: Question, lead: User) -> None:
    refused(
        question,
        lead,
        answers=keyed(3, 2),
        participants=[],
        message="Invite at least one interviewer.",
    )


def test_it_refuses_an_empty_transcript(question: Question, lead: User, interviewer: User) -> None:
    refused(
        question,
        lead,
        answers=[services.AnswerInput("Fine.", 3), services.AnswerInput(" \n ", 2)],
        participants=[interviewer],
        message="answer 2: the transcript is empty.",
    )


@pytest.mark.parametrize("key", [0, 5])
def test_it_refuses_a_key_rating_outside_the_scale(
    question: Question, lead: User, interviewer: User, key: int
) -> None:
    refused(
        question,
        lead,
        answers=keyed(3, 2, key),
        participants=[interviewer],
        message=f"answer 3: key rating {key} is outside the scale 1–4.",
    )


def test_it_refuses_a_rubric_item_of_another_question(
    question: Question, lead: User, interviewer: User
) -> None:
    other = make_question(title="Another question")
    foreign = rubric(other)[0]
    own = rubric(question)[0]

    refused(
        question,
        lead,
        answers=keyed(3, 2, checked=[(own.pk,), (own.pk, foreign.pk)]),
        participants=[interviewer],
        message=f"answer 2: rubric item {foreign.pk} does not belong to this question.",
    )
