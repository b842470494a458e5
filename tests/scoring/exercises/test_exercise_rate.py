"""services.exercise_rate: an invited interviewer scores one reference answer, blind."""

import pytest
from django.contrib.auth.models import User

from core.api.exceptions import ApplicationError, Conflict
from kit.models import Question
from scoring.exercises import services
from scoring.models import CalibrationExercise, ExerciseRating, ReferenceAnswer
from tests.scoring.exercises.helpers import answers, create, rubric
from tests.support.factories import make_question


@pytest.fixture
def exercise(question: Question, lead: User, interviewer: User) -> CalibrationExercise:
    return create(question, lead, [interviewer], 4, 1)


@pytest.fixture
def answer(exercise: CalibrationExercise) -> ReferenceAnswer:
    return answers(exercise)[0]


def stored() -> list[tuple[int, int, int, set[int]]]:
    """Every score as (answer, interviewer, rating, ticked rubric items)."""
    return [
        (s.answer_id, s.interviewer_id, s.rating, {c.pk for c in s.checked.all()})
        for s in ExerciseRating.objects.order_by("pk")
    ]


def test_it_stores_a_participants_score(
    question: Question, answer: ReferenceAnswer, interviewer: User
) -> None:
    core, cost, _, _ = rubric(question)

    score = services.exercise_rate(
        answer=answer, by=interviewer, rating=3, checked=[core.pk, cost.pk]
    )

    assert stored() == [(answer.pk, interviewer.pk, 3, {core.pk, cost.pk})]
    assert score.pk == ExerciseRating.objects.get().pk


def test_it_changes_the_score_while_the_exercise_is_open(
    question: Question, answer: ReferenceAnswer, interviewer: User
) -> None:
    core, _, strong, _ = rubric(question)
    first = services.exercise_rate(answer=answer, by=interviewer, rating=2, checked=[core.pk])

    second = services.exercise_rate(answer=answer, by=interviewer, rating=4, checked=[strong.pk])

    assert second.pk == first.pk
    assert stored() == [(answer.pk, interviewer.pk, 4, {strong.pk})]


def test_it_refuses_an_interviewer_who_is_not_invited(
    answer: ReferenceAnswer, other_interviewer: User
) -> None:
    with pytest.raises(ApplicationError) as caught:
        services.exercise_rate(answer=answer, by=other_interviewer, rating=3)

    assert caught.value.message == "You are not invited to this exercise."
    assert stored() == []


def test_it_refuses_the_lead_who_is_not_a_participant(answer: ReferenceAnswer, lead: User) -> None:
    with pytest.raises(ApplicationError) as caught:
        services.exercise_rate(answer=answer, by=lead, rating=3)

    assert caught.value.message == "You are not invited to this exercise."
    assert stored() == []


def test_it_refuses_a_score_once_the_exercise_is_closed(
    exercise: CalibrationExercise, answer: ReferenceAnswer, interviewer: User, lead: User
) -> None:
    services.exercise_rate(answer=answer, by=interviewer, rating=2)
    services.exercise_close(exercise=exercise, by=lead)

    with pytest.raises(Conflict) as caught:
        services.exercise_rate(
            answer=ReferenceAnswer.objects.get(pk=answer.pk), by=interviewer, rating=4
        )

    assert caught.value.status_code == 409
    assert caught.value.message == "This exercise is closed; its scores can no longer change."
    assert stored() == [(answer.pk, interviewer.pk, 2, set())]


def test_it_refuses_a_score_when_the_exercise_closed_after_the_answer_was_read(
    exercise: CalibrationExercise, answer: ReferenceAnswer, interviewer: User, lead: User
) -> None:
    # The scoring request read the exercise while it was open; the lead's close
    # request lands before the score is written.
    assert answer.exercise.status == CalibrationExercise.Status.OPEN
    services.exercise_close(exercise=CalibrationExercise.objects.get(pk=exercise.pk), by=lead)

    with pytest.raises(Conflict) as caught:
        services.exercise_rate(answer=answer, by=interviewer, rating=4)

    assert caught.value.message == "This exercise is closed; its scores can no longer change."
    assert stored() == []


@pytest.mark.parametrize("rating", [0, 5])
def test_it_refuses_a_rating_outside_the_scale(
    exercise: CalibrationExercise, interviewer: User, rating: int
) -> None:
    second = answers(exercise)[1]

    with pytest.raises(ApplicationError) as caught:
        services.exercise_rate(answer=second, by=interviewer, rating=rating)

    assert caught.value.message == f"answer 2: rating {rating} is outside the scale 1–4."
    assert stored() == []


def test_it_refuses_a_rubric_item_of_another_question(
    question: Question, answer: ReferenceAnswer, interviewer: User
) -> None:
    services.exercise_rate(answer=answer, by=interviewer, rating=2)
    foreign = rubric(make_question(title="Another question"))[1]

    with pytest.raises(ApplicationError) as caught:
        services.exercise_rate(
            answer=answer, by=interviewer, rating=4, checked=[rubric(question)[0].pk, foreign.pk]
        )

    assert caught.value.message == (
        f"answer 1: rubric item {foreign.pk} does not belong to this question."
    )
    assert stored() == [(answer.pk, interviewer.pk, 2, set())]
