"""Who keeps pools, and who may sit where while training.

=============================== ========================= ===========================
caller                          a pool of role R (or none) a pool they may not keep
=============================== ========================= ===========================
recruiter, calibration lead     keeps it (create, members, limits, path, sign-offs)
hiring manager who owns R       keeps it                  403 ``pool_not_kept``
hiring manager, not owner       403 ``pool_not_kept``
interviewer                     reads pools they are in   403 ``pool_not_kept`` on writes
=============================== ========================= ===========================

A pool without a role (a competency pool across roles) is kept by recruiters and
leads only. Everyone may set their own limits; keepers set anyone's.

A trainee (a current training membership of the interview's pool, no qualified one)
sits only as a shadow: never in a counted seat before they graduate (seat_check).
Their trainer signs their seat off: a qualified interviewer seated on that interview,
or a keeper of the pool.
"""

from collections.abc import Sequence

from django.contrib.auth.models import User

from core.api.exceptions import ApplicationError
from core.permissions import Viewer, is_hiring_manager, is_lead, is_recruiter
from interviews.models import Interview
from interviews.pools.models import PoolMembership
from interviews.pools.selectors import pool_of_interview
from kit.models import Role

NOT_KEPT = "Pools are kept by recruiters, calibration leads and the role's hiring managers."


class Forbidden(ApplicationError):
    """The caller may see the object but not change it (HTTP 403)."""

    status_code = 403


def may_keep(user: Viewer, role_id: int | None) -> bool:
    """Whether the user keeps pools of this role (None: a pool across roles)."""
    if is_recruiter(user) or is_lead(user):
        return True
    if role_id is None or not is_hiring_manager(user):
        return False
    return Role.owners.through.objects.filter(role_id=role_id, user_id=user.pk or 0).exists()


def keep_check(user: Viewer, role_id: int | None) -> None:
    if not may_keep(user, role_id):
        raise Forbidden(NOT_KEPT, code="pool_not_kept")


def is_keeper(user: Viewer) -> bool:
    """Whether the user keeps some pool (the pools page's and the list's first gate)."""
    return is_recruiter(user) or is_lead(user) or is_hiring_manager(user)


def trainee_check(*, interview: Interview, interviewers: Sequence[User]) -> None:
    """Refuse a trainee of the interview's pool in a counted seat before they graduate."""
    pool = pool_of_interview(interview)
    if pool is None or not interviewers:
        return
    members = pool.memberships.filter(
        removed_at=None, user__in=interviewers, status=PoolMembership.Status.TRAINING
    ).select_related("user")
    trainees = [m.user for m in members]
    if trainees:
        names = ", ".join(u.get_full_name() or u.get_username() for u in trainees)
        raise ApplicationError(
            f"{names} is still training for {pool.name}: a trainee sits only as a shadow "
            "until they graduate.",
            code="trainee_not_counted",
        )
