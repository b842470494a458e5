"""services.exercise_close: the lead ends scoring; closing is audited and happens once."""

import pytest
from django.contrib.auth.models import User

from core.api.exceptions import Conflict
from core.models import AuditEvent
from kit.models import Question
from scoring.exercises import services
from scoring.models import CalibrationExercise
from tests.scoring.exercises.helpers import create


@pytest.fixture
def exercise(question: Question, lead: User, interviewer: User) -> CalibrationExercise:
    return create(question, lead, [interviewer], 4, 1, title="November calibration")


def closes() -> list[tuple[int | None, str, str]]:
    return list(
        AuditEvent.objects.filter(action="exercise.closed").values_list(
            "actor_id", "action", "target"
        )
    )


def test_it_closes_the_exercise_and_audits_it(exercise: CalibrationExercise, lead: User) -> None:
    services.exercise_close(exercise=exercise, by=lead)

    exercise.refresh_from_db()
    assert exercise.status == CalibrationExercise.Status.CLOSED
    assert closes() == [(lead.pk, "exercise.closed", "November calibration")]


def test_it_refuses_to_close_twice(exercise: CalibrationExercise, lead: User) -> None:
    services.exercise_close(exercise=exercise, by=lead)

    with pytest.raises(Conflict) as caught:
        services.exercise_close(exercise=CalibrationExercise.objects.get(pk=exercise.pk), by=lead)

    assert caught.value.status_code == 409
    assert caught.value.message == "This exercise is already closed."
    assert len(closes()) == 1


def test_it_closes_once_when_two_requests_race(exercise: CalibrationExercise, lead: User) -> None:
    # Two close requests (a double click) each read the exercise while it was open.
    first = CalibrationExercise.objects.get(pk=exercise.pk)
    second = CalibrationExercise.objects.get(pk=exercise.pk)
    services.exercise_close(exercise=first, by=lead)

    with pytest.raises(Conflict) as caught:
        services.exercise_close(exercise=second, by=lead)

    assert caught.value.message == "This exercise is already closed."
    assert len(closes()) == 1
