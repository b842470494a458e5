"""Pools, memberships, limits and paths: who keeps them, what they refuse, the audit."""

import re
from datetime import time

import pytest
from django.core.exceptions import ValidationError

from core.api.exceptions import Conflict
from core.models import AuditEvent
from core.permissions import HIRING_MANAGER, INTERVIEWER
from interviews.models import Panelist
from interviews.pools import services
from interviews.pools.models import InterviewerLimits, Pool, PoolMembership, TrainingPath
from interviews.pools.rules import Forbidden
from interviews.services import interview_update
from tests.conftest import make_user
from tests.interviews.pools.conftest import END, START


def test_it_makes_a_slot_pool_with_the_slots_role_a_default_path_and_an_audit(
    pool, world, recruiter
):
    assert pool.role == world.role
    assert (pool.path.shadows, pool.path.reverse_shadows) == (2, 1)
    event = AuditEvent.objects.get(action="pool.created")
    assert (event.actor, event.target, event.data) == (
        recruiter,
        f"pool {pool.pk}",
        {"name": "Serving"},
    )


def test_a_hiring_manager_keeps_pools_of_the_roles_they_own_only(world, lead):
    manager = make_user("hana", HIRING_MANAGER)
    with pytest.raises(Forbidden, match="kept by recruiters, calibration leads and the role's"):
        services.pool_create(name="All serving", role=world.role, by=manager)
    assert not Pool.objects.exists()
    world.role.owners.add(manager)
    pool = services.pool_create(name="All serving", role=world.role, by=manager)
    assert pool.role == world.role
    # A lead keeps any pool, across roles too.
    services.pool_create(
        name="Networking", competency=world.q["networking-1"].competencies.get(), by=lead
    )


def test_an_interviewer_keeps_no_pool(world, interviewer):
    with pytest.raises(Forbidden) as refusal:
        services.pool_create(name="Mine", role=world.role, by=interviewer)
    assert refusal.value.code == "pool_not_kept"
    assert not Pool.objects.exists() and not AuditEvent.objects.exists()


@pytest.mark.parametrize(
    ("what", "field", "message"),
    [
        ({}, "role", "Name what the pool is for: a template slot, a competency or a role."),
        (
            {"level_min": "L6", "level_max": "L4"},
            "level_max",
            "L4 is below L6: the range is reversed.",
        ),
        (
            {"competency": True, "level_min": "L4"},
            "level_min",
            "A competency's pool covers every level; give levels with a role only.",
        ),
    ],
)  # fmt: skip
def test_it_refuses_a_pool_for_nothing_or_a_bad_range(world, recruiter, what, field, message):
    from kit.models import Competency, Level

    kwargs = {k: Level.objects.get(name=v) for k, v in what.items() if k.startswith("level")}
    if "level_min" in what and "competency" not in what:
        kwargs["role"] = world.role
    if "competency" in what:
        kwargs["competency"] = Competency.objects.get(slug="serving")
    with pytest.raises(ValidationError) as refusal:
        services.pool_create(name="Bad", by=recruiter, **kwargs)
    assert refusal.value.message_dict == {field: [message]}
    assert not Pool.objects.exists() and not TrainingPath.objects.exists()


def test_it_adds_people_once_and_only_those_who_may_sit_on_panels(pool, recruiter, interviewer):
    services.membership_add(pool=pool, user=interviewer, by=recruiter)
    with pytest.raises(Conflict, match=re.escape("Ines is already in Serving.")):
        services.membership_add(pool=pool, user=interviewer, status="training", by=recruiter)
    outsider = make_user("olga")
    with pytest.raises(ValidationError, match="olga is not in the Interviewers group"):
        services.membership_add(pool=pool, user=outsider, by=recruiter)
    assert list(pool.memberships.values_list("user__username", "status")) == [("ines", "qualified")]
    assert AuditEvent.objects.filter(action="pool.member_added").count() == 1


def test_removing_someone_keeps_their_past_seats_and_lets_them_rejoin(
    pool, recruiter, interviewer, interviews
):
    membership = services.membership_add(pool=pool, user=interviewer, by=recruiter)
    interview_update(
        interview=interviews[0],
        interviewers=[interviewer],
        scheduled_start=START,
        scheduled_end=END,
    )
    services.membership_remove(membership=membership, by=recruiter)
    assert Panelist.objects.filter(user=interviewer).count() == 1
    membership.refresh_from_db()
    assert membership.removed_at is not None
    with pytest.raises(Conflict, match=re.escape("Ines was already removed from Serving.")):
        services.membership_remove(membership=membership, by=recruiter)
    again = services.membership_add(pool=pool, user=interviewer, by=recruiter)
    assert PoolMembership.objects.filter(user=interviewer).count() == 2
    assert again.removed_at is None


def test_everyone_sets_their_own_limits_and_keepers_anyones(
    interviewer, other_interviewer, recruiter
):
    limits = services.limits_set(user=interviewer, by=interviewer, per_week=6, day_start=time(8))
    assert (limits.per_day, limits.per_week, limits.day_start) == (2, 6, time(8))
    event = AuditEvent.objects.get(action="interviewer.limits_set")
    assert event.data == {"changes": {"per_week": "4 → 6", "day_start": "09:00:00 → 08:00:00"}}
    with pytest.raises(Forbidden, match="You set only your own limits"):
        services.limits_set(user=interviewer, by=other_interviewer, per_week=1)
    services.limits_set(user=interviewer, by=recruiter, per_day=3)
    assert InterviewerLimits.objects.get(user=interviewer).per_day == 3


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"day_start": time(18)}, "day_end", "The working day must end after it starts."),
        (
            {"per_day": 5, "per_week": 3},
            "per_week",
            "The weekly limit cannot be below the daily one.",
        ),
        ({"per_day": 0}, "per_day", "Ensure this value is greater than or equal to 1."),
    ],
)  # fmt: skip
def test_it_refuses_bad_limits_and_writes_nothing(interviewer, change, field, message):
    with pytest.raises(ValidationError) as refusal:
        services.limits_set(user=interviewer, by=interviewer, **change)
    assert refusal.value.message_dict[field] == [message]
    assert not InterviewerLimits.objects.exists() and not AuditEvent.objects.exists()


def test_it_sets_a_path_and_refuses_an_empty_one(pool, recruiter, interviewer):
    services.path_set(pool=pool, by=recruiter, shadows=1, reverse_shadows=2)
    pool.path.refresh_from_db()
    assert (pool.path.shadows, pool.path.reverse_shadows) == (1, 2)
    with pytest.raises(ValidationError, match="at least one shadow or reverse-shadow seat"):
        services.path_set(pool=pool, by=recruiter, shadows=0, reverse_shadows=0)
    with pytest.raises(Forbidden):
        services.path_set(pool=pool, by=interviewer, shadows=5, reverse_shadows=5)
    pool.path.refresh_from_db()
    assert (pool.path.shadows, pool.path.reverse_shadows) == (1, 2)
    assert AuditEvent.objects.filter(action="pool.path_set").count() == 1


def test_a_member_of_another_group_is_named(pool, recruiter):
    lead_only = make_user("lena")
    with pytest.raises(ValidationError) as refusal:
        services.membership_add(pool=pool, user=lead_only, by=recruiter)
    assert refusal.value.message_dict == {
        "interviewers": [
            f"lena is not in the {INTERVIEWER} group: "
            f"only active members of the {INTERVIEWER} group sit on panels."
        ]
    }
