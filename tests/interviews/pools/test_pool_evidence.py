"""What a training path reads of calibration: the best closed exercise's gap to the key
(scoring.exercises.pool_evidence) and the severity flag of the newest snapshot
(scoring.calibration.pool_evidence)."""

from decimal import Decimal

from interviews.pools import services
from interviews.pools.models import PoolMembership, TrainingSeat
from scoring.calibration import pool_evidence
from scoring.exercises import pool_evidence as exercise_evidence
from scoring.models import CalibrationExercise, CalibrationSnapshot, ExerciseRating, ReferenceAnswer
from tests.interviews.pools.conftest import interviewer_in


def exercise(world, lead, ratings: dict[int, int], *, closed: bool = True):  # type: ignore[no-untyped-def]
    """An exercise on serving-1 whose answers are keyed 2 and 4; `ratings` by key."""
    made = CalibrationExercise.objects.create(
        title="Serving", version=world.q["serving-1"].current, created_by=lead,
        status="closed" if closed else "open",
    )  # fmt: skip
    answers = {
        key: ReferenceAnswer.objects.create(
            exercise=made, order=n, transcript="...", key_rating=key
        )
        for n, key in enumerate((2, 4), start=1)
    }
    return made, answers


def test_the_best_closed_exercise_on_the_pools_role_is_read_as_its_gap(pool, world, lead):
    trainee = interviewer_in("theo")
    assert exercise_evidence.calibration(trainee.pk, pool) is None
    far, answers = exercise(world, lead, {})
    ExerciseRating.objects.create(answer=answers[2], interviewer=trainee, rating=4)
    ExerciseRating.objects.create(answer=answers[4], interviewer=trainee, rating=3)
    near, answers = exercise(world, lead, {})
    ExerciseRating.objects.create(answer=answers[2], interviewer=trainee, rating=2)
    ExerciseRating.objects.create(answer=answers[4], interviewer=trainee, rating=3)
    still_open, answers = exercise(world, lead, {}, closed=False)
    ExerciseRating.objects.create(answer=answers[2], interviewer=trainee, rating=2)
    ExerciseRating.objects.create(answer=answers[4], interviewer=trainee, rating=4)
    assert exercise_evidence.calibration(trainee.pk, pool) == {"exercise_id": near.pk, "gap": 0.5}
    assert far.pk != near.pk != still_open.pk


def test_a_path_asking_for_an_exercise_graduates_on_it_with_the_evidence(
    pool, world, lead, recruiter, scheduled
):
    trainer, trainee = interviewer_in("tara"), interviewer_in("theo")
    services.membership_add(pool=pool, user=trainer, by=recruiter)
    membership = services.membership_add(pool=pool, user=trainee, status="training", by=recruiter)
    services.path_set(
        pool=pool, by=recruiter, shadows=1, reverse_shadows=0, calibration_max_gap=Decimal("0.5")
    )
    services.panel_accept(
        interview=scheduled[0], interviewers=[trainer], shadow=trainee, shadow_kind="shadow",
        by=recruiter,
    )  # fmt: skip
    seat = TrainingSeat.objects.get()
    services.seat_sign_off(seat=seat, ready=True, by=trainer)
    assert PoolMembership.objects.get(pk=membership.pk).status == "training"
    made, answers = exercise(world, lead, {})
    ExerciseRating.objects.create(answer=answers[2], interviewer=trainee, rating=2)
    ExerciseRating.objects.create(answer=answers[4], interviewer=trainee, rating=3)
    membership = PoolMembership.objects.get(pk=membership.pk)
    graduation = services.membership_graduate_if_ready(membership=membership, by=lead)
    assert graduation is not None
    assert graduation.evidence == {
        "seats": [{"id": seat.pk, "interview": scheduled[0].pk, "kind": "shadow"}],
        "calibration": {"exercise_id": made.pk, "gap": 0.5},
    }


def test_severity_reads_the_newest_role_wide_snapshot(pool, world):
    trainee = interviewer_in("theo")
    assert pool_evidence.severity(trainee.pk, pool, 20) is None
    snapshot = CalibrationSnapshot.objects.create(
        role=world.role, watermark="w1",
        result={"interviewers": [{"interviewer": "theo", "ratings": 25, "flag": "harsh"}]},
    )  # fmt: skip
    assert pool_evidence.severity(trainee.pk, pool, 20) == {
        "snapshot_id": snapshot.pk, "ratings": 25, "flag": "harsh", "period": None,
    }  # fmt: skip
