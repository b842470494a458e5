"""Who may do what. People get a persona through group membership."""

from django.contrib.auth.models import AnonymousUser, User
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from core import queries

# The persona groups every installation starts with (kit's data migration makes them).
GROUPS = ["Recruiters", "Calibration leads", "Interviewers", "Hiring managers"]
RECRUITER, LEAD, INTERVIEWER, HIRING_MANAGER = GROUPS
# A hiring manager builds and staffs loops for the roles they own (kit.Role.owners);
# the rule is interviews/staffing.py.
PERSONAS = (RECRUITER, LEAD, INTERVIEWER, HIRING_MANAGER)


def _groups(user: User | AnonymousUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_persona_groups", None)
    if cached is None:
        # Once a request: every API request that asks lands here.
        cached = queries.group_names(user.pk)
        user._persona_groups = cached  # type: ignore[attr-defined]  # a cache on the request's user
    return cached


def is_recruiter(user: User | AnonymousUser) -> bool:
    return user.is_superuser or RECRUITER in _groups(user)


def is_lead(user: User | AnonymousUser) -> bool:
    return user.is_superuser or LEAD in _groups(user)


def is_hiring_manager(user: User | AnonymousUser) -> bool:
    return HIRING_MANAGER in _groups(user)


class IsLeadOrReadOnly(BasePermission):
    """Everyone signed in reads the bank; calibration leads edit it."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not request.user.is_authenticated:
            return False
        return request.method in SAFE_METHODS or is_lead(request.user)


class IsPlannerOrReadOnly(BasePermission):
    """Everyone signed in reads loop templates; recruiters and leads edit them."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not request.user.is_authenticated:
            return False
        user = request.user
        return request.method in SAFE_METHODS or is_recruiter(user) or is_lead(user)


# Whoever is looking at something: a signed-in user or an anonymous visitor. Selectors
# that scope what someone may see take a Viewer; services that record who acted take a
# User (the model).
Viewer = User | AnonymousUser
