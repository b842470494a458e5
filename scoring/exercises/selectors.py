"""Reads for calibration exercises: who sees which, the blind scoring, the report."""

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db.models import Count, F, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from core.permissions import Viewer, is_lead
from interviews.pools.models import Pool, PoolMembership
from interviews.pools.selectors import pools_visible_to
from kit.models import Role, RubricItem
from scoring.calibration import stats
from scoring.exercises.limits import ANSWERS_FOR_ICC
from scoring.models import CalibrationExercise, ExerciseRating, ReferenceAnswer


def exercises_for(*, user: User) -> QuerySet[CalibrationExercise]:
    """Return the exercises a lead runs (all) or an interviewer is invited to."""
    exercises = CalibrationExercise.objects.select_related(
        "version__question", "created_by"
    ).annotate(n_answers=Count("answers", distinct=True))
    if is_lead(user):
        return exercises
    return exercises.filter(participants=user)


def exercises_waiting_for(*, user: User) -> list[CalibrationExercise]:
    """Return the open exercises the user is invited to and has answers left to score in,
    oldest first, each with `n_answers` and `n_scored` (one query)."""
    scored = Count("answers__ratings", filter=Q(answers__ratings__interviewer=user), distinct=True)
    waiting = (
        CalibrationExercise.objects.filter(
            participants=user, status=CalibrationExercise.Status.OPEN
        )
        .annotate(n_answers=Count("answers", distinct=True), n_scored=scored)
        .filter(n_scored__lt=F("n_answers"))
        .order_by("created_at", "id")
    )
    return list(waiting)


def exercise_get(*, user: User, pk: int) -> CalibrationExercise:
    """Return the exercise for a lead or a participant; 404 for anyone else."""
    return get_object_or_404(
        exercises_for(user=user).prefetch_related(
            Prefetch("answers", queryset=ReferenceAnswer.objects.prefetch_related("key_checked")),
            Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
            "participants",
        ),
        pk=pk,
    )


def pools_to_invite(*, user: Viewer) -> list[Pool]:
    """Return the pools the user sees, each with its current `n_qualified` and
    `n_training` members, for the new-exercise form (one query)."""
    current = Q(memberships__removed_at=None)
    qualified = current & Q(memberships__status=PoolMembership.Status.QUALIFIED)
    training = current & Q(memberships__status=PoolMembership.Status.TRAINING)
    return list(
        pools_visible_to(user).annotate(
            n_qualified=Count("memberships", filter=qualified),
            n_training=Count("memberships", filter=training),
        )
    )


def pool_invitees(*, pool: Pool, trainees: bool) -> list[User]:
    """Return the pool's current qualified members, and its trainees if asked, who are
    active, by username (one query)."""
    statuses = [PoolMembership.Status.QUALIFIED]
    if trainees:
        statuses.append(PoolMembership.Status.TRAINING)
    return list(
        User.objects.filter(
            is_active=True,
            pool_memberships__pool=pool,
            pool_memberships__removed_at=None,
            pool_memberships__status__in=statuses,
        )
        .distinct()
        .order_by("username")
    )


def own_exercise_ratings(*, user: User, exercise: CalibrationExercise) -> dict[int, ExerciseRating]:
    """Return the user's scores in the exercise by answer id (no one else's: scoring is blind)."""
    scores = ExerciseRating.objects.filter(
        answer__exercise=exercise,
        interviewer=user,
    ).prefetch_related("checked")
    return {score.answer_id: score for score in scores}


@dataclass(frozen=True)
class OwnGap:
    """One answer of a closed exercise as a participant reads it: the key and their own
    score against it (positive gap = more generous than the key)."""

    answer: ReferenceAnswer
    key: int
    rating: int | None  # None: they did not score this answer
    gap: int | None
    missed: list[str]  # the key's rubric items they did not tick
    extra: list[str]  # items they ticked that the key does not


def own_exercise_gaps(
    *, exercise: CalibrationExercise, mine: dict[int, ExerciseRating]
) -> list[OwnGap] | None:
    """Return, once the exercise is closed, each answer's key with the participant's
    own score and gap to it (`mine`: own_exercise_ratings); None while it is open,
    when the key would steer the scores. Nothing of anyone else's scores."""
    if exercise.status != CalibrationExercise.Status.CLOSED:
        return None
    rows = []
    for answer in exercise.answers.all():
        key_items = list(answer.key_checked.all())
        score = mine.get(answer.pk)
        ticked = list(score.checked.all()) if score else []
        ticked_ids = {item.pk for item in ticked}
        key_ids = {item.pk for item in key_items}
        rows.append(
            OwnGap(
                answer=answer,
                key=answer.key_rating,
                rating=score.rating if score else None,
                gap=score.rating - answer.key_rating if score else None,
                missed=[i.text for i in key_items if i.pk not in ticked_ids] if score else [],
                extra=[i.text for i in ticked if i.pk not in key_ids],
            )
        )
    return rows


@dataclass
class ParticipantRow:
    user: Any
    rated: int
    vs_median: float | None
    vs_key: float | None
    abs_vs_key: float | None
    missed: list[tuple[str, int]]


@dataclass
class AnswerRow:
    answer: ReferenceAnswer
    key: int
    median: float | None
    low: int | None
    high: int | None
    n: int


@dataclass
class ExerciseReport:
    exercise: CalibrationExercise
    answers: list[AnswerRow]
    participants: list[ParticipantRow]
    icc: dict[str, Any] | None
    complete: list[Any]


def exercise_report(*, exercise: CalibrationExercise) -> ExerciseReport:
    """Return how each participant scored against the panel median and the lead's key.

    1. The complete grid is the answers by the participants who scored all of them;
       the six Shrout and Fleiss ICCs are computed on it when it has 2+ of each.
    2. Per participant: mean signed gap to each answer's panel median and to
       the key (positive = more generous), mean absolute gap to the key, and
       the key's rubric items they did not tick, most missed first.
    """
    answers = list(exercise.answers.all())
    scores = list(
        ExerciseRating.objects.filter(answer__exercise=exercise)
        .select_related("interviewer")
        .prefetch_related("checked")
    )
    by_answer: dict[int, list[ExerciseRating]] = {a.pk: [] for a in answers}
    for score in scores:
        by_answer[score.answer_id].append(score)
    # The answers someone scored have a panel median; the others, None.
    scored = {
        pk: float(np.median([s.rating for s in group])) for pk, group in by_answer.items() if group
    }
    medians = {pk: scored.get(pk) for pk in by_answer}
    key = {a.pk: a for a in answers}
    answer_rows = [
        AnswerRow(
            answer=a,
            key=a.key_rating,
            median=medians[a.pk],
            low=min((s.rating for s in by_answer[a.pk]), default=None),
            high=max((s.rating for s in by_answer[a.pk]), default=None),
            n=len(by_answer[a.pk]),
        )
        for a in answers
    ]
    people = sorted(exercise.participants.all(), key=lambda u: u.username)
    rows = []
    for person in people:
        mine = [s for s in scores if s.interviewer_id == person.pk]
        missed: dict[str, int] = {}
        for score in mine:
            ticked = {c.pk for c in score.checked.all()}
            for item in key[score.answer_id].key_checked.all():
                if item.pk not in ticked:
                    missed[item.text] = missed.get(item.text, 0) + 1
        gaps_median = [s.rating - scored[s.answer_id] for s in mine]
        gaps_key = [s.rating - key[s.answer_id].key_rating for s in mine]
        rows.append(
            ParticipantRow(
                user=person,
                rated=len(mine),
                vs_median=round(float(np.mean(gaps_median)), 3) if mine else None,
                vs_key=round(float(np.mean(gaps_key)), 3) if mine else None,
                abs_vs_key=round(float(np.mean(np.abs(gaps_key))), 3) if mine else None,
                missed=sorted(missed.items(), key=lambda kv: (-kv[1], kv[0])),
            )
        )
    complete = [row.user for row in rows if row.rated == len(answers)]
    icc = None
    if len(answers) >= 2 and len(complete) >= 2:
        lookup = {(s.answer_id, s.interviewer_id): s.rating for s in scores}
        grid = np.array(
            [[lookup[(a.pk, u.pk)] for u in complete] for a in answers], dtype=np.float64
        )
        result = stats.icc(grid)
        icc = {
            "values": stats.to_jsonable(result.values, 3),
            "ci95": stats.to_jsonable(result.ci95, 3),
        }
    return ExerciseReport(
        exercise=exercise, answers=answer_rows, participants=rows, icc=icc, complete=complete
    )


@dataclass(frozen=True)
class ExerciseIcc:
    """The ICC of a role's newest closed calibration exercise, for the dashboard."""

    exercise: CalibrationExercise
    answers: int
    icc: dict[str, Any] | None  # None under ANSWERS_FOR_ICC answers


def latest_exercise_icc(*, role: Role) -> ExerciseIcc | None:
    """Return the ICC of the role's newest closed exercise (None without one).

    An exercise is a complete grid by design, so it feeds the dashboard's ICC card
    when the ratings themselves hold no grid of stats.ICC_MIN_CANDIDATES candidates.
    """
    exercise = (
        CalibrationExercise.objects.filter(
            status=CalibrationExercise.Status.CLOSED, version__question__role=role
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if exercise is None:
        return None
    report = exercise_report(exercise=exercise)
    enough = len(report.answers) >= ANSWERS_FOR_ICC
    return ExerciseIcc(exercise, len(report.answers), report.icc if enough else None)
