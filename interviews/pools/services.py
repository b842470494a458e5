"""Writes for pools, memberships, limits, training paths, sign-offs and accepted panels.

Every write checks who may keep the pool (interviews.pools.rules), runs in one
transaction, and is audited; a refusal writes nothing.
"""

from collections.abc import Sequence
from datetime import time
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.api.exceptions import ApplicationError, Conflict
from core.audit.services import audit_event_record as audit
from core.webhooks.services import EventData, Payload, webhook_event_emit
from interviews import services as interview_services
from interviews.models import Interview
from interviews.pools import evidence, proposal, rules, selectors
from interviews.pools.models import (
    Graduation,
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from kit.models import Competency, Level, LoopSlot, Role


def _name(user: User) -> str:
    return user.get_full_name() or user.get_username()


@transaction.atomic
def pool_create(
    *,
    name: str,
    by: User,
    slot: LoopSlot | None = None,
    competency: Competency | None = None,
    role: Role | None = None,
    level_min: Level | None = None,
    level_max: Level | None = None,
) -> Pool:
    """Make a pool for a template slot, a competency (optionally of one role), or a
    role's levels (an optional range). A slot pool takes the slot's role."""
    if slot is not None and (competency is not None or level_min or level_max):
        raise ValidationError(
            {"slot": "A slot's pool names no competency or levels: the slot has both."},
            code="pool_target_ambiguous",
        )
    if slot is None and competency is None and role is None:
        raise ValidationError(
            {"role": "Name what the pool is for: a template slot, a competency or a role."},
            code="pool_target_missing",
        )
    if competency is not None and (level_min or level_max):
        raise ValidationError(
            {"level_min": "A competency's pool covers every level; give levels with a role only."},
            code="pool_target_ambiguous",
        )
    if level_min and level_max and level_min.rank > level_max.rank:
        raise ValidationError(
            {"level_max": f"{level_max} is below {level_min}: the range is reversed."},
            code="level_range_reversed",
        )
    if slot is not None:
        role = slot.template.role
    rules.keep_check(by, role.pk if role else None)
    pool = Pool(
        name=name.strip(),
        slot=slot,
        competency=competency,
        role=role,
        level_min=level_min,
        level_max=level_max,
        created_by=by,
    )
    pool.full_clean()
    pool.save()
    TrainingPath.objects.create(pool=pool)
    audit(actor=by, action="pool.created", target=f"pool {pool.pk}", name=pool.name)
    return pool


@transaction.atomic
def pool_rename(*, pool: Pool, name: str, by: User) -> Pool:
    rules.keep_check(by, pool.role_id)
    before = pool.name
    pool.name = name.strip()
    pool.full_clean()
    pool.save(update_fields=["name"])
    audit(actor=by, action="pool.renamed", target=f"pool {pool.pk}", before=before, after=pool.name)
    return pool


@transaction.atomic
def membership_add(
    *, pool: Pool, user: User, status: str = PoolMembership.Status.QUALIFIED, by: User
) -> PoolMembership:
    """Add someone to a pool, qualified or as a trainee. Only people who may sit on
    panels (interviews.services.panel_check) join; someone already in it is a 409."""
    rules.keep_check(by, pool.role_id)
    if status not in PoolMembership.Status.values:
        raise ValidationError({"status": f"{status!r} is not qualified or training."})
    interview_services.panel_check(interviewers=[user])
    # Lock the pool so two adds of one person are checked one after the other.
    Pool.objects.select_for_update().filter(pk=pool.pk).first()
    if pool.memberships.filter(user=user, removed_at=None).exists():
        raise Conflict(f"{_name(user)} is already in {pool.name}.", code="already_in_pool")
    membership = PoolMembership.objects.create(pool=pool, user=user, status=status, added_by=by)
    audit(
        actor=by, action="pool.member_added", target=f"pool {pool.pk}",
        user=user.pk, status=status,
    )  # fmt: skip
    return membership


@transaction.atomic
def membership_remove(*, membership: PoolMembership, by: User) -> PoolMembership:
    """Take someone out of a pool. Their seats, cards, ratings and training record stay."""
    rules.keep_check(by, membership.pool.role_id)
    if membership.removed_at is not None:
        raise Conflict(
            f"{_name(membership.user)} was already removed from {membership.pool.name}.",
            code="already_removed",
        )
    membership.removed_at = timezone.now()
    membership.save(update_fields=["removed_at"])
    audit(
        actor=by, action="pool.member_removed", target=f"pool {membership.pool_id}",
        user=membership.user_id, status=membership.status,
    )  # fmt: skip
    return membership


@transaction.atomic
def limits_set(
    *,
    user: User,
    by: User,
    per_day: int | None = None,
    per_week: int | None = None,
    day_start: time | None = None,
    day_end: time | None = None,
) -> InterviewerLimits:
    """Set someone's limits and working hours (in their own zone). Everyone sets their
    own; keepers (recruiters, leads, hiring managers) anyone's."""
    if by.pk != user.pk and not rules.is_keeper(by):
        raise rules.Forbidden(
            "You set only your own limits; recruiters, leads and hiring managers set anyone's.",
            code="limits_not_yours",
        )
    limits = InterviewerLimits.objects.select_for_update().filter(user=user).first()
    limits = limits or InterviewerLimits(user=user)
    before = {f: str(getattr(limits, f)) for f in ("per_day", "per_week", "day_start", "day_end")}
    given = {"per_day": per_day, "per_week": per_week, "day_start": day_start, "day_end": day_end}
    for field, value in given.items():
        if value is not None:
            setattr(limits, field, value)
    if limits.day_end <= limits.day_start:
        raise ValidationError(
            {"day_end": "The working day must end after it starts."}, code="hours_reversed"
        )
    if limits.per_week < limits.per_day:
        raise ValidationError(
            {"per_week": "The weekly limit cannot be below the daily one."},
            code="week_below_day",
        )
    limits.full_clean()
    limits.save()
    after = {f: str(getattr(limits, f)) for f in before}
    audit(
        actor=by, action="interviewer.limits_set", target=f"user {user.pk}",
        changes={k: f"{before[k]} → {v}" for k, v in after.items() if before[k] != v},
    )  # fmt: skip
    return limits


@transaction.atomic
def path_set(
    *,
    pool: Pool,
    by: User,
    shadows: int,
    reverse_shadows: int,
    calibration_max_gap: Decimal | None = None,
    no_severity_flag: bool = False,
    flag_min_ratings: int = 20,
) -> TrainingPath:
    """Set a pool's training path. Trainees already signed off keep their seats; the new
    counts apply to what they still need."""
    rules.keep_check(by, pool.role_id)
    if shadows + reverse_shadows == 0:
        raise ValidationError(
            {"shadows": "A path needs at least one shadow or reverse-shadow seat."},
            code="path_empty",
        )
    path, _ = TrainingPath.objects.select_for_update().get_or_create(pool=pool)
    path.shadows, path.reverse_shadows = shadows, reverse_shadows
    path.calibration_max_gap = calibration_max_gap
    path.no_severity_flag, path.flag_min_ratings = no_severity_flag, flag_min_ratings
    path.full_clean()
    path.save()
    audit(
        actor=by, action="pool.path_set", target=f"pool {pool.pk}",
        shadows=shadows, reverse_shadows=reverse_shadows,
        calibration_max_gap=str(calibration_max_gap) if calibration_max_gap is not None else None,
        no_severity_flag=no_severity_flag,
    )  # fmt: skip
    return path


def _may_sign_off(by: User, seat: TrainingSeat) -> bool:
    if rules.may_keep(by, seat.membership.pool.role_id):
        return True
    return seat.interview.panel.filter(user=by, is_shadow=False, cancelled_at=None).exists()


def seat_sign_off_check(*, seat: TrainingSeat, by: User) -> None:
    """Refuse a sign-off by the trainee, or by anyone but a trainer or keeper."""
    if by.pk == seat.membership.user_id:
        raise rules.Forbidden("A trainee cannot sign off their own seat.", code="own_sign_off")
    if not _may_sign_off(by, seat):
        raise rules.Forbidden(
            "Only a counted interviewer on that interview, or a keeper of the pool, signs it off.",
            code="not_trainer",
        )


@transaction.atomic
def seat_sign_off(*, seat: TrainingSeat, ready: bool, note: str = "", by: User) -> TrainingSeat:
    """Record the trainer's sign-off on a training seat: ready, or not yet (with a note:
    the trainee takes the step again). A ready sign-off may complete the path."""
    seat = (
        TrainingSeat.objects.select_for_update()
        .select_related("membership__pool", "membership__user", "interview")
        .get(pk=seat.pk)
    )
    seat_sign_off_check(seat=seat, by=by)
    if seat.outcome != TrainingSeat.Outcome.PENDING:
        raise Conflict("This seat is already signed off.", code="already_signed_off")
    if seat.membership.status != PoolMembership.Status.TRAINING or seat.membership.removed_at:
        raise Conflict(
            f"{_name(seat.membership.user)} is no longer training in {seat.membership.pool.name}.",
            code="not_training",
        )
    if not ready and not note.strip():
        raise ValidationError(
            {"note": "Say what is not there yet: the trainee reads it before the retake."},
            code="note_required",
        )
    seat.outcome = TrainingSeat.Outcome.READY if ready else TrainingSeat.Outcome.NOT_YET
    seat.note = note.strip()
    seat.signed_off_by, seat.signed_off_at = by, timezone.now()
    seat.save(update_fields=["outcome", "note", "signed_off_by", "signed_off_at"])
    audit(
        actor=by, action="training.signed_off", target=f"pool {seat.membership.pool_id}",
        seat=seat.pk, user=seat.membership.user_id, kind=seat.kind, outcome=seat.outcome,
    )  # fmt: skip
    if ready:
        membership_graduate_if_ready(membership=seat.membership, by=by)
    return seat


def graduation_evidence(membership: PoolMembership) -> tuple[dict[str, Any], list[str]]:
    """Return what the trainee's graduation would rest on, and what is still missing."""
    pool = membership.pool
    path = selectors.path_of(pool)
    seats = list(membership.training_seats.filter(outcome=TrainingSeat.Outcome.READY))
    steps = selectors.progress(membership)
    missing = []
    for key, label in (("shadows", "shadow"), ("reverse_shadows", "reverse-shadow")):
        step = steps[key]
        if step["ready"] < step["required"]:
            missing.append(f"{step['required'] - step['ready']} more {label} seat(s) signed ready")
    found: dict[str, Any] = {
        "seats": [{"id": s.pk, "interview": s.interview_id, "kind": s.kind} for s in seats],
    }
    if path.calibration_max_gap is not None:
        best = evidence.calibration(membership.user_id, pool)
        if best is None:
            missing.append("a closed calibration exercise on the pool's questions")
        elif Decimal(str(best["gap"])) > path.calibration_max_gap:
            missing.append(
                f"a calibration exercise within {path.calibration_max_gap} of the key "
                f"(best so far {best['gap']:.2f})"
            )
        else:
            found["calibration"] = best
    if path.no_severity_flag:
        read = evidence.severity(membership.user_id, pool, path.flag_min_ratings)
        if read is not None and read.get("ratings", 0) >= path.flag_min_ratings:
            if read.get("flag"):
                missing.append(f"no severity flag this period (flagged: {read['flag']})")
            else:
                found["severity"] = read
        else:
            # Not enough ratings yet: the rule applies once they have them.
            found["severity"] = read or {"ratings": 0, "flag": None, "note": "too few ratings"}
    return found, missing


def membership_graduate_if_ready(
    *, membership: PoolMembership, by: User | None
) -> Graduation | None:
    """Graduate a trainee whose path is complete: qualified, a Graduation with its
    evidence, audited, and an `interviewer.graduated` webhook event (ids only)."""
    if membership.status != PoolMembership.Status.TRAINING or membership.removed_at:
        return None
    found, missing = graduation_evidence(membership)
    if missing:
        return None
    membership.status = PoolMembership.Status.QUALIFIED
    membership.save(update_fields=["status"])
    graduation = Graduation.objects.create(
        membership=membership, graduated_at=timezone.now(), by=by, evidence=found
    )
    audit(
        actor=by, action="training.graduated", target=f"pool {membership.pool_id}",
        user=membership.user_id, graduation=graduation.pk,
    )  # fmt: skip
    webhook_event_emit(kind="interviewer.graduated", payload=_graduated(graduation))
    return graduation


@transaction.atomic
def membership_graduate(*, membership: PoolMembership, by: User) -> Graduation:
    """Graduate a trainee now if their path is complete (its calibration evidence may
    arrive after their last sign-off); say what is missing otherwise."""
    membership = (
        PoolMembership.objects.select_for_update()
        .select_related("pool", "user")
        .get(pk=membership.pk)
    )
    rules.keep_check(by, membership.pool.role_id)
    if membership.status != PoolMembership.Status.TRAINING or membership.removed_at:
        raise Conflict(
            f"{_name(membership.user)} is not training in {membership.pool.name}.",
            code="not_training",
        )
    _, missing = graduation_evidence(membership)
    if missing:
        raise Conflict(
            f"{_name(membership.user)} has not completed the path yet: {'; '.join(missing)}.",
            code="path_incomplete",
        )
    graduation = membership_graduate_if_ready(membership=membership, by=by)
    assert graduation is not None  # nothing was missing
    return graduation


def _graduated(graduation: Graduation) -> Payload:
    def build(details: bool) -> EventData:
        return EventData(
            ids={
                "graduation_id": graduation.pk,
                "pool_id": graduation.membership.pool_id,
                "user_id": graduation.membership.user_id,
            }
        )

    return build


# Accepting a panel --------------------------------------------------------------------

WARNINGS = {
    "busy": "is in another interview then",
    "hours": "is outside their working hours then",
    "day_limit": "is at their daily limit",
    "week_limit": "is at their weekly limit",
    "on_loop": "is already on this candidate's loop",
}


def panel_warnings(
    *, interview: Interview, people: Sequence[User], viewer_zone: Any = None
) -> list[str]:
    """Return the warnings for a panel chosen by hand (the proposal's rules, as sentences)."""
    users = selectors.users_with_limits(u.pk for u in people)
    diary = selectors.diary_for(user_ids=[u.pk for u in users], interview=interview)
    spec = proposal.Spec(
        interview_id=interview.pk,
        title=interview.title,
        minutes=interview.minutes,
        wanted=interview.interviewers_wanted,
        start=interview.scheduled_start,
        end=interview.scheduled_end,
        pool=None,
    )
    found = []
    zone = viewer_zone or timezone.get_current_timezone()
    length = proposal.length_warning(spec, zone)
    if length:
        found.append(length)
    for user in sorted(users, key=lambda u: u.pk):
        for problem in proposal.problems(selectors.person(user), spec, diary):
            found.append(f"{_name(user)} {WARNINGS[problem]}.")
    return found


def panel_hand_warnings(*, interviews: Sequence[Interview], by: User) -> list[str]:
    """Return the warnings for panels just chosen by hand (the loop page's picker) and
    keep them in the audit log: the proposal's rules, which a hand choice may break."""
    found = []
    for interview in interviews:
        seats = interview.panel.filter(cancelled_at=None).select_related("user")
        warnings = panel_warnings(interview=interview, people=[seat.user for seat in seats])
        if warnings:
            audit(
                actor=by, action="panel.warned", target=f"loop {interview.loop_id}",
                interview=interview.pk, warnings=warnings,
            )  # fmt: skip
        found += warnings
    return found


@transaction.atomic
def panel_accept(
    *,
    interview: Interview,
    interviewers: Sequence[User],
    by: User,
    shadow: User | None = None,
    shadow_kind: str | None = None,
) -> list[str]:
    """Seat a panel (proposed, or edited by hand) and return its warnings.

    1. Refuse a trainee in a counted seat, and a training seat for someone not
       training in the interview's pool (or a reverse shadow with nobody to sign off).
    2. Collect the warnings (over a limit, outside hours, already on the loop, busy,
       a booked length that is not the interview's): allowed, said to the caller and kept
       in the audit log.
    3. Seat them through interviews.services.interview_update (its own refusals apply),
       and open a training seat for a trainee shadow or reverse shadow.
    """
    rules.trainee_check(interview=interview, interviewers=interviewers)
    membership = None
    if shadow_kind is not None:
        if shadow is None:
            raise ValidationError({"shadow_kind": "A training seat needs a shadow."})
        if shadow_kind not in TrainingSeat.Kind.values:
            raise ValidationError(
                {"shadow_kind": f"{shadow_kind!r} is not shadow or reverse_shadow."}
            )
        pool = selectors.pool_of_interview(interview)
        membership = (
            pool.memberships.filter(user=shadow, removed_at=None, status="training").first()
            if pool
            else None
        )
        if membership is None:
            raise ApplicationError(
                f"{_name(shadow)} is not training for this interview's pool.",
                code="not_training",
            )
        steps = selectors.progress(membership)["shadows"]
        if shadow_kind == TrainingSeat.Kind.REVERSE_SHADOW and steps["ready"] < steps["required"]:
            raise ApplicationError(
                f"{_name(shadow)} has {steps['ready']} of {steps['required']} shadow seats "
                "signed ready: reverse shadows come after every shadow.",
                code="shadows_first",
            )
    warnings = panel_warnings(
        interview=interview, people=[*interviewers, *([shadow] if shadow else [])]
    )
    interview_services.interview_update(
        interview=interview,
        interviewers=interviewers,
        shadow=shadow,
        scheduled_start=interview.scheduled_start,
        scheduled_end=interview.scheduled_end,
    )
    if membership is not None:
        assert shadow_kind is not None
        TrainingSeat.objects.get_or_create(
            membership=membership, interview=interview, defaults={"kind": shadow_kind}
        )
    audit(
        actor=by, action="panel.accepted", target=f"loop {interview.loop_id}",
        interview=interview.pk, interviewers=[u.pk for u in interviewers],
        shadow=shadow.pk if shadow else None, shadow_kind=shadow_kind, warnings=warnings,
    )  # fmt: skip
    return warnings
