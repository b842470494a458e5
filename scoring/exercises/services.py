"""Writes for calibration exercises: create one, score its answers, close it."""

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from core.accounts.models import Notice
from core.api.exceptions import ApplicationError, Conflict
from core.audit.services import audit_event_record as audit
from core.outbox.services import email_queue
from core.validators import validate_one_line
from interviews.pools.models import Pool
from kit import services as kit_services
from kit.models import Question, QuestionVersion
from scoring.exercises import selectors
from scoring.exercises.limits import ANSWERS_MAX, ANSWERS_MIN
from scoring.models import CalibrationExercise, ExerciseRating, ReferenceAnswer


@dataclass(frozen=True)
class AnswerInput:
    transcript: str
    key_rating: int
    key_checked: tuple[int, ...] = ()


def _check_rubric(version: QuestionVersion, ids: Sequence[int], where: str) -> None:
    foreign = sorted(set(ids) - {r.pk for r in version.rubric.all()})
    if foreign:
        raise ApplicationError(
            f"{where}: rubric item {foreign[0]} does not belong to this question.",
            code="rubric_item_foreign",
        )


@transaction.atomic
def exercise_create(
    *,
    title: str,
    question: Question,
    answers: Sequence[AnswerInput],
    participants: Sequence[User],
    by: User,
    pool: Pool | None = None,
    trainees: bool = False,
) -> CalibrationExercise:
    """Create an exercise on the question's current version, its answers keyed by the lead.

    1. Invite the `participants`, and, given a `pool`, every current qualified member
       of it (and its trainees if `trainees`); a pool that adds nobody is refused, as
       the lead meant to invite someone through it.
    2. Queue each invitee one invitation email, and audit who was invited and through
       which pool.
    """
    if not title.strip():
        raise ApplicationError("Give the exercise a title.", code="exercise_title_missing")
    try:
        # The title goes into each invitation's subject, and reads in headings.
        validate_one_line(title.strip())
    except ValidationError as exc:
        raise ApplicationError(
            f"title: {exc.messages[0]}", code="exercise_title_not_one_line"
        ) from None
    version = question.current
    assert version is not None
    if len(answers) < ANSWERS_MIN:
        raise ApplicationError(
            "An exercise needs at least two reference answers.", code="exercise_too_few_answers"
        )
    if len(answers) > ANSWERS_MAX:
        # The page's form offers no more; this guards any other caller. A generic code:
        # the page-only codes are listed in core/api/openapi_docs.py (PAGE_ONLY_CODES).
        raise ApplicationError(
            f"An exercise takes at most {ANSWERS_MAX} reference answers, not {len(answers)}.",
            code="validation_error",
        )
    invited = _invitees(participants, pool, trainees)
    for n, answer in enumerate(answers, start=1):
        if not answer.transcript.strip():
            raise ApplicationError(
                f"answer {n}: the transcript is empty.", code="exercise_answer_empty"
            )
        if not 1 <= answer.key_rating <= version.scale_max:
            raise ApplicationError(
                f"answer {n}: key rating {answer.key_rating} is outside the scale "
                f"1–{version.scale_max}.",
                code="rating_out_of_scale",
            )
        _check_rubric(version, answer.key_checked, f"answer {n}")
    exercise = CalibrationExercise.objects.create(
        title=title.strip(), version=version, created_by=by
    )
    exercise.participants.set(invited)
    for n, answer in enumerate(answers, start=1):
        reference = ReferenceAnswer.objects.create(
            exercise=exercise, order=n, transcript=answer.transcript.strip(),
            key_rating=answer.key_rating,
        )  # fmt: skip
        reference.key_checked.set(answer.key_checked)
    kit_services.question_version_mark_used(version=version)
    audit(
        actor=by, action="exercise.invited", target=str(exercise), exercise=exercise.pk,
        invited=[person.pk for person in invited], pool=pool.pk if pool else None,
        trainees=trainees if pool else False,
    )  # fmt: skip
    for person in invited:
        email_queue(
            user=person,
            kind=Notice.EXERCISE_INVITED,
            template=Notice.EXERCISE_INVITED.value,
            context={"exercise": exercise, "answers": len(answers)},
        )
    return exercise


def _invitees(participants: Sequence[User], pool: Pool | None, trainees: bool) -> list[User]:
    """Return the people chosen one by one, then the pool's, each once."""
    invited = {person.pk: person for person in participants}
    if pool is not None:
        members = selectors.pool_invitees(pool=pool, trainees=trainees)
        if not members:
            whom = "qualified members or trainees" if trainees else "qualified members"
            raise ApplicationError(
                f"The pool {pool.name} has no {whom} to invite.", code="exercise_no_invitees"
            )
        for person in members:
            invited.setdefault(person.pk, person)
    if not invited:
        raise ApplicationError("Invite at least one interviewer.", code="exercise_no_invitees")
    return list(invited.values())


@transaction.atomic
def exercise_rate(
    *,
    answer: ReferenceAnswer,
    by: User,
    rating: int,
    checked: Sequence[int] = (),
) -> ExerciseRating:
    """Record (or change, while the exercise is open) a participant's score of one answer."""
    # Read the status under a lock: the lead may have closed it since `answer` was loaded.
    exercise = (
        CalibrationExercise.objects.select_for_update()
        .select_related("version")
        .get(pk=answer.exercise_id)
    )
    if not exercise.participants.filter(pk=by.pk).exists():
        raise ApplicationError("You are not invited to this exercise.", code="exercise_not_invited")
    if exercise.status != CalibrationExercise.Status.OPEN:
        raise Conflict(
            "This exercise is closed; its scores can no longer change.", code="exercise_closed"
        )
    scale = exercise.version.scale_max
    if not 1 <= rating <= scale:
        raise ApplicationError(
            f"answer {answer.order}: rating {rating} is outside the scale 1–{scale}.",
            code="rating_out_of_scale",
        )
    _check_rubric(exercise.version, checked, f"answer {answer.order}")
    score, _ = ExerciseRating.objects.update_or_create(
        answer=answer, interviewer=by, defaults={"rating": rating}
    )
    score.checked.set(checked)
    return score


@transaction.atomic
def exercise_score(
    *,
    exercise: CalibrationExercise,
    by: User,
    scores: Sequence[tuple[int, int, Sequence[int]]],
) -> None:
    """Record a participant's scores, (answer id, rating, rubric ids) each: all or none."""
    answers = {a.pk: a for a in exercise.answers.all()}
    for answer_id, rating, checked in scores:
        if answer_id not in answers:
            raise ApplicationError(
                f"answer {answer_id} is not in this exercise.", code="exercise_answer_unknown"
            )
        exercise_rate(answer=answers[answer_id], by=by, rating=rating, checked=checked)


@transaction.atomic
def exercise_close(*, exercise: CalibrationExercise, by: User) -> CalibrationExercise:
    # A conditional update: of two closes racing (a double click), one wins.
    closed = CalibrationExercise.objects.filter(
        pk=exercise.pk, status=CalibrationExercise.Status.OPEN
    ).update(status=CalibrationExercise.Status.CLOSED)
    if not closed:
        raise Conflict("This exercise is already closed.", code="exercise_already_closed")
    exercise.status = CalibrationExercise.Status.CLOSED
    audit(actor=by, action="exercise.closed", target=str(exercise))
    return exercise
