"""Training through shadow and reverse-shadow sign-offs, retakes, and graduation."""

import re
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase

from core.api.exceptions import ApplicationError, Conflict
from core.models import AuditEvent
from core.webhooks.models import WebhookEvent, WebhookSubscription
from interviews.models import Interview, Loop, Panelist
from interviews.pools import evidence, services
from interviews.pools.models import Graduation, PoolMembership, TrainingSeat
from interviews.pools.rules import Forbidden
from tests.interviews.pools.conftest import END, START, interviewer_in


def another_interview(interview: Interview, days: int) -> Interview:
    """A copy of the loop's Serving interview in a new loop, `days` later."""
    loop = Loop.objects.create(
        candidate=interview.loop.candidate, role=interview.loop.role, level=interview.loop.level
    )
    return Interview.objects.create(
        loop=loop, order=1, title=interview.title, minutes=45, slot=interview.slot,
        scheduled_start=START + timedelta(days=days), scheduled_end=END + timedelta(days=days),
    )  # fmt: skip


@pytest.fixture
def people(pool, recruiter):  # type: ignore[no-untyped-def]
    trainer = interviewer_in("tara")
    trainee = interviewer_in("theo")
    services.membership_add(pool=pool, user=trainer, by=recruiter)
    membership = services.membership_add(pool=pool, user=trainee, status="training", by=recruiter)
    return trainer, trainee, membership


def seat(
    interview: Interview, trainer: Any, trainee: Any, kind: str, recruiter: Any
) -> TrainingSeat:
    services.panel_accept(
        interview=interview, interviewers=[trainer], shadow=trainee, shadow_kind=kind, by=recruiter
    )
    return TrainingSeat.objects.get(interview=interview, membership__user=trainee)


def test_a_trainee_shadows_twice_reverse_shadows_and_graduates(pool, people, recruiter, scheduled):
    trainer, trainee, membership = people
    subscription = WebhookSubscription.objects.create(
        url="https://example.com/hook", event_types=["interviewer.graduated"], created_by=recruiter
    )
    first = scheduled[0]
    seats = [
        seat(first, trainer, trainee, "shadow", recruiter),
        seat(another_interview(first, 1), trainer, trainee, "shadow", recruiter),
    ]
    assert Panelist.objects.get(interview=first, user=trainee).is_shadow
    for each in seats:
        services.seat_sign_off(seat=each, ready=True, note="Good notes.", by=trainer)
    membership.refresh_from_db()
    assert membership.status == "training"
    last = seat(another_interview(first, 2), trainer, trainee, "reverse_shadow", recruiter)
    with TestCase.captureOnCommitCallbacks(execute=False):
        services.seat_sign_off(seat=last, ready=True, by=trainer)
    membership.refresh_from_db()
    assert membership.status == "qualified"
    graduation = Graduation.objects.get(membership=membership)
    assert graduation.by == trainer
    assert graduation.evidence == {
        "seats": [{"id": s.pk, "interview": s.interview_id, "kind": s.kind} for s in [*seats, last]]
    }
    event = WebhookEvent.objects.get(kind="interviewer.graduated")
    assert event.payload == {
        "graduation_id": graduation.pk, "pool_id": pool.pk, "user_id": trainee.pk,
    }  # fmt: skip
    assert subscription.pk
    assert AuditEvent.objects.filter(action="training.graduated").count() == 1


def test_not_yet_needs_a_note_and_the_step_is_taken_again(pool, people, recruiter, scheduled):
    from interviews.pools.selectors import progress

    trainer, trainee, membership = people
    first = seat(scheduled[0], trainer, trainee, "shadow", recruiter)
    with pytest.raises(ValidationError, match="Say what is not there yet"):
        services.seat_sign_off(seat=first, ready=False, note="  ", by=trainer)
    first.refresh_from_db()
    assert (
        first.outcome == "pending"
        and not AuditEvent.objects.filter(action="training.signed_off").exists()
    )
    services.seat_sign_off(seat=first, ready=False, note="Let the candidate talk.", by=trainer)
    assert progress(membership)["shadows"] == {
        "ready": 0,
        "pending": 0,
        "not_yet": 1,
        "required": 2,
    }
    assert progress(membership)["needs"] == "shadow"
    with pytest.raises(Conflict, match=re.escape("This seat is already signed off.")):
        services.seat_sign_off(seat=first, ready=True, by=trainer)


def test_only_a_trainer_on_that_interview_or_a_keeper_signs_off(
    pool, people, recruiter, scheduled, other_interviewer
):
    trainer, trainee, _ = people
    first = seat(scheduled[0], trainer, trainee, "shadow", recruiter)
    with pytest.raises(Forbidden, match=re.escape("A trainee cannot sign off their own seat.")):
        services.seat_sign_off(seat=first, ready=True, by=trainee)
    with pytest.raises(Forbidden, match="Only a counted interviewer on that interview"):
        services.seat_sign_off(seat=first, ready=True, by=other_interviewer)
    first.refresh_from_db()
    assert first.outcome == "pending"
    services.seat_sign_off(seat=first, ready=True, by=recruiter)


def test_a_trainee_never_sits_in_a_counted_seat_before_graduating(
    pool, people, recruiter, scheduled
):
    trainer, trainee, _ = people
    for call in (
        lambda: services.panel_accept(interview=scheduled[0], interviewers=[trainee], by=recruiter),
        lambda: services.panel_accept(
            interview=scheduled[0], interviewers=[trainer, trainee], by=recruiter
        ),
    ):
        with pytest.raises(ApplicationError) as refusal:
            call()
        assert refusal.value.code == "trainee_not_counted"
        assert refusal.value.message == (
            "Theo is still training for Serving: "
            "a trainee sits only as a shadow until they graduate."
        )
    assert not Panelist.objects.exists() and not TrainingSeat.objects.exists()


def test_a_training_seat_is_only_for_someone_training_in_the_pool(
    pool, people, recruiter, scheduled
):
    trainer, _, _ = people
    other = interviewer_in("ursula")
    with pytest.raises(
        ApplicationError, match=re.escape("Ursula is not training for this interview's pool.")
    ):
        services.panel_accept(
            interview=scheduled[0], interviewers=[trainer], shadow=other,
            shadow_kind="shadow", by=recruiter,
        )  # fmt: skip
    assert not Panelist.objects.exists() and not TrainingSeat.objects.exists()


@pytest.fixture
def calibration_evidence():  # type: ignore[no-untyped-def]
    found: dict[int, dict[str, Any]] = {}
    real = evidence._providers.get("calibration")
    evidence.provider_register("calibration", lambda user_id, pool: found.get(user_id))
    yield found
    if real is not None:  # scoring's, registered at start-up
        evidence.provider_register("calibration", real)


def test_a_path_asking_for_calibration_graduates_only_within_the_distance(
    pool, people, recruiter, scheduled, calibration_evidence
):
    trainer, trainee, membership = people
    services.path_set(
        pool=pool, by=recruiter, shadows=1, reverse_shadows=0, calibration_max_gap=Decimal("0.5")
    )
    pool.path.refresh_from_db()
    only = seat(scheduled[0], trainer, trainee, "shadow", recruiter)
    services.seat_sign_off(seat=only, ready=True, by=trainer)
    membership = PoolMembership.objects.get(pk=membership.pk)
    assert membership.status == "training"
    assert services.graduation_evidence(membership)[1] == [
        "a closed calibration exercise on the pool's questions"
    ]
    calibration_evidence[trainee.pk] = {"exercise_id": 9, "gap": 0.8}
    assert services.graduation_evidence(membership)[1] == [
        "a calibration exercise within 0.50 of the key (best so far 0.80)"
    ]
    assert services.membership_graduate_if_ready(membership=membership, by=recruiter) is None
    calibration_evidence[trainee.pk] = {"exercise_id": 10, "gap": 0.4}
    graduation = services.membership_graduate_if_ready(membership=membership, by=recruiter)
    assert graduation is not None
    assert graduation.evidence["calibration"] == {"exercise_id": 10, "gap": 0.4}


def test_a_reverse_shadow_comes_after_every_shadow_is_signed_ready(
    pool, people, recruiter, scheduled
):
    trainer, trainee, _ = people
    with pytest.raises(ApplicationError) as refusal:
        services.panel_accept(
            interview=scheduled[0], interviewers=[trainer], shadow=trainee,
            shadow_kind="reverse_shadow", by=recruiter,
        )  # fmt: skip
    assert refusal.value.code == "shadows_first"
    assert refusal.value.message == (
        "Theo has 0 of 2 shadow seats signed ready: reverse shadows come after every shadow."
    )
    assert not Panelist.objects.exists() and not TrainingSeat.objects.exists()


def test_a_graduation_is_heard_only_by_owners_who_see_its_pool(pool, people, recruiter):
    from interviews.pools.webhooks import read_graduation

    _, trainee, _ = people
    ids = {"graduation_id": 1, "pool_id": pool.pk, "user_id": trainee.pk}
    assert read_graduation(recruiter, ids, {}) == ids
    assert read_graduation(trainee, ids, {}) == ids  # a member of the pool
    assert read_graduation(interviewer_in("olga"), ids, {}) is None
