"""Reads for the audit log, and what a user or group may do, as the log records it."""

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import Group, User
from django.db.models import Exists, OuterRef, QuerySet

from core.models import AuditEvent


def audit_events(*, action: str = "") -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.select_related("actor").order_by("-at", "-id")
    return events.filter(action=action) if action else events


def audit_actions() -> list[str]:
    return list(AuditEvent.objects.order_by("action").values_list("action", flat=True).distinct())


def audit_actors() -> QuerySet[User]:
    """Return the people the audit log names as actors, by username."""
    acted = AuditEvent.objects.filter(actor=OuterRef("pk"))
    return User.objects.filter(Exists(acted)).order_by("username")


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _listing(names: Iterable[str]) -> str:
    return ", ".join(sorted(names)) or "none"


def _permission_names(permissions: QuerySet[Any]) -> str:
    return _listing(
        f"{app}.{codename}"
        for app, codename in permissions.values_list("content_type__app_label", "codename")
    )


def user_access(*, pk: int) -> dict[str, str]:
    """Return what the stored user may do, as text for the audit log's before and after."""
    user = User.objects.get(pk=pk)
    return {
        "is_active": _yes_no(user.is_active),
        "is_staff": _yes_no(user.is_staff),
        "is_superuser": _yes_no(user.is_superuser),
        "groups": _listing(user.groups.values_list("name", flat=True)),
        "user_permissions": _permission_names(user.user_permissions.all()),
    }


def group_access(*, pk: int) -> dict[str, str]:
    """Return the stored group's name and permissions, as text for the audit log.

    The name counts: personas are found by group name, so renaming a persona's
    group takes the persona away from all its members.
    """
    group = Group.objects.get(pk=pk)
    return {"name": group.name, "permissions": _permission_names(group.permissions.all())}
