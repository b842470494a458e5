"""Who may build loops and staff their interviews (panels, times, questions): by role.

A hiring manager is an interviewer who also builds and staffs the loops of the
roles they own (kit.Role.owners); a recruiter does it for every role.

=========================== ===================== ===================================
caller                      build a loop for R    a loop of role R: its page, panels,
                                                  times, questions
=========================== ===================== ===================================
recruiter                   yes                   yes
hiring manager, owns R      yes                   yes
hiring manager, not owner   403 role_not_owned    404
anyone else                 403 (API), 404 (page) 404
=========================== ===================== ===================================

A hiring manager seated on a loop of a role they do not own keeps what every
panelist has there (their own interview's kit and scorecard, its questions as
interviews.editing says), nothing more. Owning a role gives no candidate contact
details and no one's scorecards: those stay with recruiters and the seat rule
(scoring.visibility).

Everything that builds or staffs asks this module: the API (interviews.api), the
pages (interviews.views), the selectors' scoping and interviews.editing.
"""

from django.db.models import Exists, OuterRef, Q, QuerySet

from core.permissions import Viewer, is_hiring_manager, is_recruiter
from kit.models import Role

ROLE_NOT_OWNED = "You build and staff loops only for the roles you own."


def is_staffer(user: Viewer) -> bool:
    """Whether the user builds or staffs loops for some role (the pages' first gate)."""
    return is_recruiter(user) or is_hiring_manager(user)


def owned(user: Viewer, role_field: str = "role_id") -> Exists:
    """Return an Exists that is true on rows whose `role_field` is a role the user owns."""
    # An anonymous visitor has no pk and owns nothing: 0 matches no row.
    owner = Role.owners.through.objects.filter(role_id=OuterRef(role_field), user_id=user.pk or 0)
    return Exists(owner)


def scope(user: Viewer, role_field: str = "role_id") -> Q | Exists:
    """Return the filter of rows (loops by default) whose role the user may staff."""
    if is_recruiter(user):
        return Q()
    if is_hiring_manager(user):
        return owned(user, role_field)
    return Q(pk__in=[])


def may_staff(user: Viewer, role_id: int) -> bool:
    """Whether the user may build and staff loops of this role."""
    if is_recruiter(user):
        return True
    if not is_hiring_manager(user):
        return False
    return Role.owners.through.objects.filter(role_id=role_id, user_id=user.pk or 0).exists()


def roles_for(user: Viewer) -> QuerySet[Role]:
    """Return the roles the user may build loops for."""
    return Role.objects.filter(scope(user, "pk"))
