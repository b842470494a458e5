"""Helpers for exercise tests: build exercises through the service, read them back."""

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.test import Client

from kit.models import Question, RubricItem
from scoring.exercises import services
from scoring.models import CalibrationExercise, ReferenceAnswer


def rubric(question: Question) -> list[RubricItem]:
    """The current version's rubric items, in order."""
    assert question.current is not None
    return list(question.current.rubric.order_by("order"))


def keyed(*keys: int, checked: Sequence[Sequence[int]] = ()) -> list[services.AnswerInput]:
    """One answer per key rating, transcripts "Transcript 1", "Transcript 2"..."""
    ticks = list(checked) or [()] * len(keys)
    return [
        services.AnswerInput(
            transcript=f"Transcript {n}", key_rating=key, key_checked=tuple(ticks[n - 1])
        )
        for n, key in enumerate(keys, start=1)
    ]


def create(
    question: Question,
    by: User,
    participants: Sequence[User],
    *keys: int,
    checked: Sequence[Sequence[int]] = (),
    title: str = "November calibration",
) -> CalibrationExercise:
    return services.exercise_create(
        title=title,
        question=question,
        answers=keyed(*(keys or (3, 2)), checked=checked),
        participants=list(participants),
        by=by,
    )


def answers(exercise: CalibrationExercise) -> list[ReferenceAnswer]:
    return list(ReferenceAnswer.objects.filter(exercise=exercise).order_by("order"))


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
