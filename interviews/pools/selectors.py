"""Reads for pools, limits, training and the panel proposal."""

import zoneinfo
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from core.permissions import Viewer, is_hiring_manager, is_lead, is_recruiter
from interviews import clashes
from interviews.models import Interview, Loop, Panelist
from interviews.pools import proposal
from interviews.pools.models import (
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from interviews.staffing import owned


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    """Return the zone of that IANA name, or the site's if it is empty or unknown."""
    try:
        return zoneinfo.ZoneInfo(name or settings.TIME_ZONE)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def zone_of_user(user: User) -> zoneinfo.ZoneInfo:
    """Return the user's zone from a select_related profile (no query)."""
    profile = user.profile if _has_profile(user) else None
    return zone_named(profile.time_zone if profile else "")


def _has_profile(user: User) -> bool:
    try:
        user.profile  # noqa: B018  # select_related filled it, or it does not exist
    except ObjectDoesNotExist:
        return False
    return True


def limits_of(user: User) -> InterviewerLimits:
    """Return the user's limits and working hours, the defaults (unsaved) if none are set:
    from a select_related row, else in one query."""
    try:
        return user.interviewer_limits
    except InterviewerLimits.DoesNotExist:
        return InterviewerLimits(user=user)


def limits_holder_get(*, pk: int) -> User:
    """Return the active user whose limits a page shows, with their profile (their
    zone); 404 if there is none. Who may read them is the page's to check (rules)."""
    return get_object_or_404(User.objects.select_related("profile"), pk=pk, is_active=True)


def person(user: User) -> proposal.Person:
    limits = limits_of(user)
    return proposal.Person(
        user_id=user.pk,
        name=user.get_full_name() or user.get_username(),
        zone=zone_of_user(user),
        per_day=limits.per_day,
        per_week=limits.per_week,
        day_start=limits.day_start,
        day_end=limits.day_end,
    )


# Pools ------------------------------------------------------------------------------


def pools_visible_to(user: Viewer) -> QuerySet[Pool]:
    """Keepers see the pools they keep (recruiters and leads all); anyone else the pools
    they are a current member of."""
    pools = Pool.objects.select_related("slot", "competency", "role", "level_min", "level_max")
    if is_recruiter(user) or is_lead(user):
        return pools
    member = PoolMembership.objects.filter(
        pool=OuterRef("pk"), user_id=user.pk or 0, removed_at=None
    )
    if is_hiring_manager(user):
        return pools.filter(Q(Exists(member)) | Q(owned(user, "role_id")))
    return pools.filter(Exists(member))


def pool_get(*, user: Viewer, pk: int) -> Pool:
    return pools_visible_to(user).get(pk=pk)


def memberships_of(pool: Pool) -> QuerySet[PoolMembership]:
    """The pool's memberships, current and past, with who and their graduation."""
    return pool.memberships.select_related("user", "added_by", "graduation").order_by(
        "removed_at", "status", "user__username", "id"
    )


def membership_of_pool_get(*, pool: Pool, pk: int) -> PoolMembership:
    """Return the pool's current membership `pk`, with its user; 404 otherwise."""
    return get_object_or_404(
        PoolMembership.objects.select_related("user", "pool"), pk=pk, pool=pool, removed_at=None
    )


def membership_qualified(pk: int) -> bool:
    """Return whether membership `pk` is qualified now (a sign-off may just have
    graduated it)."""
    return PoolMembership.objects.filter(pk=pk, status=PoolMembership.Status.QUALIFIED).exists()


def memberships_visible_to(user: Viewer) -> QuerySet[PoolMembership]:
    return PoolMembership.objects.filter(pool__in=pools_visible_to(user)).select_related(
        "user", "added_by", "graduation", "pool"
    )


def seats_visible_to(user: Viewer) -> QuerySet[TrainingSeat]:
    """Training seats of the pools the user sees (a trainee sees their own)."""
    seats = TrainingSeat.objects.select_related("membership__user", "membership__pool")
    mine = Q(membership__user_id=user.pk or 0)
    if is_recruiter(user) or is_lead(user):
        return seats
    if is_hiring_manager(user):
        return seats.filter(mine | Q(owned(user, "membership__pool__role_id")))
    # A trainer (a counted seat on that interview) sees the seat they sign off.
    trainer = Panelist.objects.filter(
        interview_id=OuterRef("interview_id"), user_id=user.pk or 0, is_shadow=False
    )
    return seats.filter(mine | Q(Exists(trainer)))


def progress(
    membership: PoolMembership, seats: Iterable[TrainingSeat] | None = None
) -> dict[str, Any]:
    """Return a trainee's steps: shadows and reverse shadows signed ready, pending,
    not yet, against the path's counts, and what they need next."""
    path = path_of(membership.pool)
    rows = list(seats if seats is not None else membership.training_seats.all())
    done = {kind: 0 for kind in TrainingSeat.Kind.values}
    pending = dict(done)
    retakes = dict(done)
    for seat in rows:
        if seat.outcome == TrainingSeat.Outcome.READY:
            done[seat.kind] += 1
        elif seat.outcome == TrainingSeat.Outcome.PENDING:
            pending[seat.kind] += 1
        else:
            retakes[seat.kind] += 1
    return {
        "shadows": {"ready": done["shadow"], "pending": pending["shadow"],
                    "not_yet": retakes["shadow"], "required": path.shadows},
        "reverse_shadows": {"ready": done["reverse_shadow"],
                            "pending": pending["reverse_shadow"],
                            "not_yet": retakes["reverse_shadow"],
                            "required": path.reverse_shadows},
        "needs": next_step(path, done, pending),
    }  # fmt: skip


def seats_awaiting_sign_off(pool: Pool) -> QuerySet[TrainingSeat]:
    """Return the pool's training seats whose trainer has not signed them off yet."""
    return (
        TrainingSeat.objects.filter(membership__pool=pool, outcome=TrainingSeat.Outcome.PENDING)
        .select_related("membership__user", "interview__loop__candidate")
        .order_by("created_at", "id")
    )


def path_of(pool: Pool) -> TrainingPath:
    try:
        return pool.path
    except TrainingPath.DoesNotExist:
        # No path set: the defaults (two shadows, one reverse shadow), unsaved.
        return TrainingPath(pool=pool)


def next_step(path: TrainingPath, done: dict[str, int], pending: dict[str, int]) -> str | None:
    """The seat a trainee needs next: shadows first, reverse shadows once every shadow is
    signed ready; None while a seat awaits its sign-off or no seat is left."""
    if done["shadow"] + pending["shadow"] < path.shadows:
        return "shadow"
    if done["shadow"] < path.shadows:
        return None
    if done["reverse_shadow"] + pending["reverse_shadow"] < path.reverse_shadows:
        return "reverse_shadow"
    return None


# The proposal -----------------------------------------------------------------------


def pool_for(interview: Interview, loop: Loop, pools: Sequence[Pool]) -> Pool | None:
    """The most specific pool of an interview: its slot's, else one of its competencies'
    (this role's before any role's), else its role's covering the loop's level."""
    for pool in pools:
        if interview.slot_id is not None and pool.slot_id == interview.slot_id:
            return pool
    by_competency = [
        pool
        for pool in pools
        if pool.competency is not None
        and pool.competency.slug in interview.competencies
        and pool.role_id in (None, loop.role_id)
    ]
    if by_competency:
        return sorted(by_competency, key=lambda p: (p.role_id is None, p.name, p.pk))[0]
    rank = loop.level.rank
    for pool in pools:
        if (
            pool.slot_id is None
            and pool.competency_id is None
            and pool.role_id == loop.role_id
            and (pool.level_min is None or pool.level_min.rank <= rank)
            and (pool.level_max is None or rank <= pool.level_max.rank)
        ):
            return pool
    return None


def pools_of(loop: Loop, interviews: Sequence[Interview]) -> dict[int, Pool | None]:
    """Return each interview's pool (pool_for), in one query."""
    slots = {i.slot_id for i in interviews if i.slot_id is not None}
    slugs = {slug for i in interviews for slug in i.competencies}
    candidates = list(
        Pool.objects.filter(
            Q(slot_id__in=slots)
            | Q(competency__slug__in=slugs, role_id=loop.role_id)
            | Q(competency__slug__in=slugs, role=None)
            | Q(slot=None, competency=None, role_id=loop.role_id)
        )
        .select_related("competency", "level_min", "level_max", "path")
        .order_by("name", "id")
    )
    return {i.pk: pool_for(i, loop, candidates) for i in interviews}


def loop_has_pool(loop: Loop) -> bool:
    """Whether some interview of the loop draws on a pool (a new loop's panels can be proposed)."""
    return any(pool is not None for pool in pools_of(loop, list(loop.interviews.all())).values())


def staffing_proposal(
    *, loop: Loop, viewer: User, avoid: Iterable[int] = (), now: datetime | None = None
) -> list[proposal.PanelPlan]:
    """Propose panels for the loop's interviews whose panel is not full.

    `loop` comes with its role, level and candidate (selectors.loop_get). The queries,
    whatever the size of the pools or the history:

    1. the loop's interviews, 2. their seats (prefetch), 3. the pools that may fit,
    4. their current members with user, profile and limits, 5. the trainees' seats,
    6. everyone's seats over the window, 7. the viewer's profile (their zone).
    """
    now = now or timezone.now()
    interviews = list(loop.interviews.prefetch_related("panel").order_by("order"))  # 1, 2
    to_staff = [i for i in interviews if i.interviewers_missing > 0]
    staffed = [i for i in interviews if i.interviewers_missing == 0]
    if not to_staff:
        return []
    chosen = pools_of(loop, to_staff)  # 3
    pool_ids = {pool.pk for pool in chosen.values() if pool is not None}
    members = list(
        PoolMembership.objects.filter(pool_id__in=pool_ids, removed_at=None, user__is_active=True)
        .select_related("user__profile", "user__interviewer_limits")
        .order_by("pool_id", "user_id")
    )  # 4
    trainee_ids = [m.pk for m in members if m.status == PoolMembership.Status.TRAINING]
    seats_by_membership: dict[int, list[TrainingSeat]] = defaultdict(list)
    if trainee_ids:
        for seat in TrainingSeat.objects.filter(membership_id__in=trainee_ids).only(
            "membership_id", "kind", "outcome"
        ):  # 5
            seats_by_membership[seat.membership_id].append(seat)
    by_pool: dict[int, list[PoolMembership]] = defaultdict(list)
    for member in members:
        by_pool[member.pool_id].append(member)
    views: dict[int, proposal.PoolView] = {}
    for pool in {p for p in chosen.values() if p is not None}:
        qualified, trainees = [], []
        for member in by_pool[pool.pk]:
            if member.status == PoolMembership.Status.QUALIFIED:
                qualified.append(person(member.user))
                continue
            member.pool = pool
            steps = progress(member, seats_by_membership[member.pk])
            needs = steps["needs"]
            key = "shadows" if needs == "shadow" else "reverse_shadows"
            done, required = steps[key]["ready"] + 1, steps[key]["required"]
            step = f"{(needs or '').replace('_', ' ')} {done} of {required}"
            trainees.append(proposal.Trainee(person(member.user), member.pk, needs, step))
        views[pool.pk] = proposal.PoolView(pool.pk, pool.name, tuple(qualified), tuple(trainees))
    # Everyone's seats over the window around the loop's times, this loop's interviews
    # being proposed left out (the proposal replaces their panels).
    times = [i.scheduled_start for i in to_staff if i.scheduled_start] or [now]
    low, high = min(times) - proposal.WINDOW, max(times) + proposal.WINDOW + timedelta(days=7)
    people = {m.user_id for m in members}
    diary = proposal.Diary(seats=defaultdict(list), on_loop=set(), now=now)
    for user_id, start, end in (
        clashes.seats_holding(user_ids=people, start=low, end=high)
        .exclude(interview_id__in=[i.pk for i in to_staff])
        .values_list("user_id", "interview__scheduled_start", "interview__scheduled_end")
    ):  # 6
        if start is not None and end is not None:  # filtered on both
            diary.seats[user_id].append((start, end))
    for interview in staffed:
        diary.on_loop.update(seat.user_id for seat in interview.panel.all())
    specs = [
        proposal.Spec(
            interview_id=i.pk,
            title=i.title,
            minutes=i.minutes,
            wanted=i.interviewers_wanted,
            start=i.scheduled_start,
            end=i.scheduled_end,
            pool=views.get(chosen[i.pk].pk) if chosen[i.pk] is not None else None,  # type: ignore[union-attr]  # checked
        )
        for i in to_staff
    ]
    viewer_zone = zone_named(getattr(_profile(viewer), "time_zone", ""))  # 7
    return proposal.plan_panels(specs, diary, viewer_zone=viewer_zone, avoid=avoid)


def _profile(user: User) -> Any:
    from core.accounts.models import Profile

    return Profile.objects.filter(user_id=user.pk).first()


def pool_of_interview(interview: Interview) -> Pool | None:
    """The pool an interview draws on (for the rules of a hand-chosen panel)."""
    loop = interview.loop
    pools = list(
        Pool.objects.filter(
            Q(slot_id=interview.slot_id)
            | Q(competency__slug__in=interview.competencies)
            | Q(slot=None, competency=None, role_id=loop.role_id)
        ).select_related("competency", "level_min", "level_max")
    )
    return pool_for(interview, loop, pools)


def diary_for(
    *, user_ids: Iterable[int], interview: Interview, now: datetime | None = None
) -> proposal.Diary:
    """The people's seats around an interview (itself left out), and who of them is on its loop."""
    now = now or timezone.now()
    at = interview.scheduled_start or now
    ids = set(user_ids)
    diary = proposal.Diary(seats=defaultdict(list), on_loop=set(), now=now)
    window = proposal.WINDOW + timedelta(days=7)
    for user_id, start, end, loop_id in (
        clashes.seats_holding(user_ids=ids, start=at - window, end=at + window)
        .exclude(interview=interview)
        .values_list(
            "user_id",
            "interview__scheduled_start",
            "interview__scheduled_end",
            "interview__loop_id",
        )
    ):
        if start is not None and end is not None:  # filtered on both
            diary.seats[user_id].append((start, end))
        if loop_id == interview.loop_id:
            diary.on_loop.add(user_id)
    # Seats on the loop's unscheduled interviews count as on the loop too.
    diary.on_loop.update(
        Panelist.objects.filter(interview__loop_id=interview.loop_id, user_id__in=ids)
        .exclude(interview=interview)
        .values_list("user_id", flat=True)
    )
    return diary


def users_with_limits(user_ids: Iterable[int]) -> list[User]:
    return list(
        User.objects.filter(pk__in=set(user_ids)).select_related("profile", "interviewer_limits")
    )


# Pages --------------------------------------------------------------------------------


def load_of(user_ids: Iterable[int], now: datetime | None = None) -> dict[int, dict[str, int]]:
    """Return each person's seats in the last and next four weeks and this week, in one
    query (cancelled seats and closed loops left out)."""
    now = now or timezone.now()
    ids = set(user_ids)
    load = {pk: {"last": 0, "next": 0, "week": 0} for pk in ids}
    if not ids:
        return load
    week_start = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0)
    for user_id, start in (
        Panelist.objects.filter(
            user_id__in=ids,
            cancelled_at=None,
            interview__scheduled_start__gte=now - proposal.WINDOW,
            interview__scheduled_start__lt=now + proposal.WINDOW,
        )
        .exclude(interview__loop__status__in=Loop.CLOSED)
        .values_list("user_id", "interview__scheduled_start")
    ):
        if start is None:  # filtered on it
            continue
        load[user_id]["last" if start < now else "next"] += 1
        load[user_id]["week"] += week_start <= start < week_start + timedelta(days=7)
    return load


def pool_overview(pools: Sequence[Pool], now: datetime | None = None) -> list[dict[str, Any]]:
    """Return, per pool, who is qualified and who is training (with their progress),
    each one's load over the last and next four weeks, and whether they are near or at
    their weekly limit. Three queries whatever the number of pools and people."""
    members = list(
        PoolMembership.objects.filter(pool__in=pools, removed_at=None)
        .select_related("user__interviewer_limits")
        .prefetch_related("training_seats")
        .order_by("status", "user__username")
    )
    load = load_of((m.user_id for m in members), now)
    by_pool: dict[int, list[dict[str, Any]]] = defaultdict(list)
    pools_by_id = {pool.pk: pool for pool in pools}
    for member in members:
        member.pool = pools_by_id[member.pool_id]
        limits = limits_of(member.user)
        week = load[member.user_id]["week"]
        by_pool[member.pool_id].append(
            {
                "membership": member,
                "name": member.user.get_full_name() or member.user.get_username(),
                "load": load[member.user_id],
                "per_week": limits.per_week,
                "limits": limits,
                "limit": "at"
                if week >= limits.per_week
                else "near"
                if week + 1 == limits.per_week
                else "",
                "progress": progress(member, member.training_seats.all())
                if member.status == PoolMembership.Status.TRAINING
                else None,
            }
        )
    return [{"pool": pool, "members": by_pool[pool.pk]} for pool in pools]


def my_pools(user: Viewer) -> list[dict[str, Any]]:
    """Return the user's current pools, each with their status and training progress."""
    members = list(
        PoolMembership.objects.filter(user_id=user.pk or 0, removed_at=None)
        .select_related("pool__path")
        .prefetch_related("training_seats")
        .order_by("pool__name")
    )
    return [
        {
            "membership": member,
            "progress": progress(member, member.training_seats.all())
            if member.status == PoolMembership.Status.TRAINING
            else None,
        }
        for member in members
    ]


def sign_offs_owed(user: Viewer) -> QuerySet[TrainingSeat]:
    """Training seats awaiting a sign-off from the user: they hold a counted seat on its
    interview (the trainer). Keepers find the rest on the pool's page."""
    trainer = Panelist.objects.filter(
        interview_id=OuterRef("interview_id"),
        user_id=user.pk or 0,
        is_shadow=False,
        cancelled_at=None,
    )
    return (
        TrainingSeat.objects.filter(Exists(trainer), outcome=TrainingSeat.Outcome.PENDING)
        .exclude(membership__user_id=user.pk or 0)
        .select_related("membership__user", "membership__pool", "interview__loop__candidate")
        .order_by("created_at", "id")
    )
