"""Writes to the audit log: recording a sensitive action, and what changed when
someone's access did."""

from django.contrib.auth.models import Group, User
from django.db import transaction

from core.audit import selectors
from core.models import AuditEvent


def audit_event_record(
    *, actor: User | None, action: str, target: str, **data: object
) -> AuditEvent:
    """Record a sensitive action. Call it inside the transaction that makes the change,
    so a change that rolls back leaves no event and an event never lacks its change."""
    return AuditEvent.objects.create(actor=actor, action=action, target=target[:200], data=data)


def _access_changes(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    return {key: f"{before[key]} → {value}" for key, value in after.items() if before[key] != value}


def user_access_record(*, user: User, before: dict[str, str], by: User | None) -> AuditEvent | None:
    """Audit a change to what `user` may do, if there was one.

    `before` is `selectors.user_access` read before the change was saved; the
    event names each changed field (groups, flags, own permissions) as before → after.
    """
    changes = _access_changes(before, selectors.user_access(pk=user.pk))
    if not changes:
        return None
    return audit_event_record(
        actor=by,
        action="permissions.changed",
        target=f"user {user.username}",
        user=user.username,
        **changes,
    )


def group_access_record(
    *, group: Group, before: dict[str, str] | None, by: User | None
) -> AuditEvent | None:
    """Audit a change to a group's name or permissions, if there was one.

    `before` is `selectors.group_access` read before the change was saved, or
    None for a group just created (an empty new group changes nobody's access).
    """
    after = selectors.group_access(pk=group.pk)
    if before is None:
        before = {"name": after["name"], "permissions": "none"}
    changes = _access_changes(before, after)
    if not changes:
        return None
    return audit_event_record(
        actor=by,
        action="permissions.changed",
        target=f"group {group.name}",
        group=group.name,
        **changes,
    )


@transaction.atomic
def group_delete(*, group: Group, by: User | None) -> None:
    """Delete the group and audit what its members and permissions were."""
    access = selectors.group_access(pk=group.pk)
    members = ", ".join(sorted(group.user_set.values_list("username", flat=True))) or "none"
    audit_event_record(
        actor=by,
        action="permissions.changed",
        target=f"group {group.name}",
        group=group.name,
        name=f"{group.name} → deleted",
        members=f"{members} → none",
        permissions=f"{access['permissions']} → none",
    )
    group.delete()
