"""What a training path may ask of calibration exercises (interviews.pools.evidence),
read here because interviews may not import scoring. Registered from ScoringConfig.ready.

* calibration: the trainee's best closed exercise on the pool's questions (the pool's
  role; its competency's, or its slot's competencies', when it names them), as the
  mean absolute distance of their ratings from the key (what the exercise report
  calls the gap to the key).
"""

from typing import Any

from django.db.models import Avg, F
from django.db.models.functions import Abs

from interviews.pools.models import Pool
from scoring.models import CalibrationExercise, ExerciseRating


def calibration(user_id: int, pool: Pool) -> dict[str, Any] | None:
    """Return the best closed exercise of the user on the pool's questions, or None."""
    ratings = ExerciseRating.objects.filter(
        interviewer_id=user_id, answer__exercise__status=CalibrationExercise.Status.CLOSED
    )
    if pool.role_id is not None:
        ratings = ratings.filter(answer__exercise__version__question__role_id=pool.role_id)
    if pool.competency_id is not None:
        ratings = ratings.filter(
            answer__exercise__version__question__competencies=pool.competency_id
        )
    elif pool.slot_id is not None:
        slugs = list(pool.slot.competencies.values_list("pk", flat=True)) if pool.slot else []
        if slugs:
            ratings = ratings.filter(answer__exercise__version__question__competencies__in=slugs)
    best = (
        ratings.values("answer__exercise_id")
        .annotate(gap=Avg(Abs(F("rating") - F("answer__key_rating"))))
        .order_by("gap", "answer__exercise_id")
        .first()
    )
    if best is None:
        return None
    return {"exercise_id": best["answer__exercise_id"], "gap": round(float(best["gap"]), 2)}


def register() -> None:
    from interviews.pools.evidence import provider_register

    provider_register("calibration", calibration)
