"""The admin's two kinds of page, for every app: read-only, or audited.

A row that records what happened (a decision, a rating, a scorecard, a snapshot, an
audit event) or that the product changes through a service of its own is shown by a
ReadOnlyAdmin: it may be read, never added, changed or deleted here. Reference data
without such a service (the bank's roles, levels, competencies and loop templates)
uses an AuditedAdmin: every add, change and delete made on it is recorded in the
audit log, inside the admin's own transaction, naming each field as before → after.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import Group, User
from django.core.exceptions import FieldDoesNotExist
from django.db import models, transaction
from django.db.models import QuerySet
from django.forms import BaseModelFormSet, ModelForm
from django.http import HttpRequest
from rest_framework.authtoken.models import TokenProxy

from core.accounts import services as account_services
from core.accounts.models import ExternalIdentity, Profile
from core.api.idempotency import IdempotentRequest
from core.audit import selectors, services
from core.auth import signed_in
from core.models import ApiToken, AuditEvent
from core.outbox.models import OutgoingEmail
from core.validators import validate_one_line

# Never written to the log, whatever form they are on.
_SECRET_FIELDS = frozenset({"password"})


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shows rows; adds, changes and deletes none (the change form is view-only, a POST is 403)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.options.InlineModelAdmin):
    """An inline of a read-only page: its rows are shown, never added, changed or deleted."""

    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyTabularInline(ReadOnlyInline, admin.TabularInline):
    pass


class ReadOnlyStackedInline(ReadOnlyInline, admin.StackedInline):
    pass


def _shown(obj: models.Model, name: str) -> str:
    """Return the value of `obj`'s field as the audit log writes it."""
    field = obj._meta.get_field(name)
    if field.many_to_many:
        value: Any = ", ".join(sorted(str(related) for related in getattr(obj, name).all()))
    else:
        value = getattr(obj, name)
    if isinstance(value, datetime):
        # The admin's date and time inputs drop the microseconds: not a change to record.
        value = value.replace(microsecond=0)
    return "none" if value is None or value == "" else str(value)


def _audited_fields(
    obj: models.Model, names: Iterable[str], skip: Iterable[str] = ()
) -> dict[str, str]:
    """Return the model fields among `names` (a form's changed_data), shown, but for `skip`."""
    shown = {}
    for name in names:
        if name in _SECRET_FIELDS or name in skip:
            continue
        try:
            obj._meta.get_field(name)
        except FieldDoesNotExist:  # a form-only field (a password's confirmation, say)
            continue
        shown[name] = _shown(obj, name)
    return shown


def _target(obj: models.Model) -> str:
    return f"{obj._meta.verbose_name} {obj}"


def _changes(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    return {
        name: f"{before[name]} → {after[name]}" for name in before if before[name] != after[name]
    }


class AuditedAdmin(admin.ModelAdmin):
    """Saves and deletes made here are audited: `admin.added`, `admin.changed`, `admin.deleted`.

    1. save_model reads the changed fields as stored, before the form overwrites them.
    2. save_formset does the same for each inline row, and describes what its formset
       added, changed and deleted.
    3. save_related (after the many-to-many fields and inlines are saved) records one
       event naming each field as before → after, and each inline change; a save that
       changed nothing records nothing.
    4. delete_model records the deletion, then deletes, in one transaction.

    The admin runs a change form's save in one transaction, so a save that fails
    leaves no event, and an event never lacks its change.
    """

    # Fields another service audits already (their own events), left out of ours.
    audit_skip: tuple[str, ...] = ()

    def get_audit_skip(self, stored: Any, obj: Any) -> tuple[str, ...]:
        """Return the fields to leave out of this save's event (`stored` is None on an add)."""
        return self.audit_skip

    def save_model(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        stored = type(obj)._default_manager.get(pk=obj.pk) if change else None
        skip = self.get_audit_skip(stored, obj)
        before = _audited_fields(stored, form.changed_data, skip) if stored else {}
        form.audit_before = before  # type: ignore[attr-defined]  # ours, read in save_related
        form.audit_skip = skip  # type: ignore[attr-defined]  # ours, read in save_related
        form.audit_inlines = {}  # type: ignore[attr-defined]  # ours, filled by save_formset
        self.save_object(request, obj, form, change)

    def save_object(self, request: HttpRequest, obj: Any, form: ModelForm, change: bool) -> None:
        """Write the form's row (the admin's own save unless a service does it)."""
        super().save_model(request, obj, form, change)

    def save_formset(
        self, request: HttpRequest, form: ModelForm, formset: BaseModelFormSet, change: bool
    ) -> None:
        deleted = {id(f) for f in formset.deleted_forms}
        before = {
            f.instance.pk: _audited_fields(
                type(f.instance)._default_manager.get(pk=f.instance.pk), f.changed_data
            )
            for f in formset.initial_forms
            if f.has_changed() and id(f) not in deleted
        }
        super().save_formset(request, form, formset, change)
        done = [f"added {obj}" for obj in formset.new_objects]
        for obj, names in formset.changed_objects:
            fields = _changes(before[obj.pk], _audited_fields(obj, names))
            if fields:
                listed = ", ".join(f"{name}: {value}" for name, value in fields.items())
                done.append(f"changed {obj} ({listed})")
        done += [f"deleted {obj}" for obj in formset.deleted_objects]
        if done:
            assert formset.model is not None  # a model formset's, always set
            inlines = form.audit_inlines  # type: ignore[attr-defined]  # ours, set in save_model
            inlines[str(formset.model._meta.verbose_name_plural)] = "; ".join(done)

    def save_related(
        self, request: HttpRequest, form: ModelForm, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        obj = form.instance
        before = form.audit_before  # type: ignore[attr-defined]  # ours, set in save_model
        if change:
            fields = _changes(before, _audited_fields(obj, before))
        else:
            fields = _audited_fields(obj, form.changed_data, form.audit_skip)  # type: ignore[attr-defined]  # ours, see save_model
        fields.update(form.audit_inlines)  # type: ignore[attr-defined]  # ours, see save_model
        if change and not fields:
            return
        services.audit_event_record(
            actor=signed_in(request),
            action="admin.changed" if change else "admin.added",
            target=_target(obj),
            model=obj._meta.label_lower,
            id=obj.pk,
            **fields,
        )

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        with transaction.atomic():
            services.audit_event_record(
                actor=signed_in(request),
                action="admin.deleted",
                target=_target(obj),
                model=obj._meta.label_lower,
                id=obj.pk,
            )
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        # One by one, so each deletion is recorded; all or none (the action is not atomic).
        with transaction.atomic():
            for obj in queryset:
                self.delete_model(request, obj)


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """Read-only: events are written by the services that make the changes they record."""

    list_display = ["at", "actor", "action", "target"]
    list_filter = ["action"]
    list_select_related = ["actor"]
    search_fields = ["target", "actor__username"]


# Changes to what people may do are audited. The admin saves the form (flags) in
# save_model and its many-to-many fields (groups, permissions) in save_related,
# so the state before is read in the first and compared with the state after in
# the second. Both run in the admin's transaction, together with the event.
# Everything else about a user (name, email: where a password reset goes) is
# audited as any admin change is; the password itself never is.
admin.site.unregister(User)
admin.site.unregister(Group)

_ACCESS_FIELDS = ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")


class OneLineNamesUserChangeForm(UserChangeForm):
    """Django's user form, refusing a first or last name that is not one line of plain
    text (core/validators.py): auth.User's own fields carry no such validator, and
    adding one to them would be a migration of Django's auth app."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("first_name", "last_name"):
            if name in self.fields:
                self.fields[name].validators.append(validate_one_line)


@admin.register(User)
class AuditedUserAdmin(AuditedAdmin, UserAdmin):
    audit_skip = _ACCESS_FIELDS  # recorded as permissions.changed by user_access_record
    form = OneLineNamesUserChangeForm

    def save_model(self, request: HttpRequest, obj: User, form: ModelForm, change: bool) -> None:
        # From the database: `obj` already carries the submitted flags.
        form.access_before = selectors.user_access(pk=obj.pk) if change else None  # type: ignore[attr-defined]  # ours, read in save_related
        super().save_model(request, obj, form, change)

    def save_related(
        self, request: HttpRequest, form: ModelForm, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        # A user just added has no access to change yet: the add form asks for a name
        # and a password only, and its groups and flags are set on the change form.
        before = form.access_before  # type: ignore[attr-defined]  # ours, set in save_model
        if before is not None:
            services.user_access_record(user=form.instance, before=before, by=signed_in(request))


@admin.register(Group)
class AuditedGroupAdmin(GroupAdmin):
    def save_model(self, request: HttpRequest, obj: Group, form: ModelForm, change: bool) -> None:
        form.access_before = selectors.group_access(pk=obj.pk) if change else None  # type: ignore[attr-defined]  # ours, read in save_related
        super().save_model(request, obj, form, change)

    def save_related(
        self, request: HttpRequest, form: ModelForm, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        services.group_access_record(
            group=form.instance,
            before=form.access_before,  # type: ignore[attr-defined]  # ours, set in save_model
            by=signed_in(request),
        )

    def delete_model(self, request: HttpRequest, obj: Group) -> None:
        services.group_delete(group=obj, by=signed_in(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Group]) -> None:
        for group in queryset:
            services.group_delete(group=group, by=signed_in(request))


# API tokens: issued only by core.accounts.tokens and stored as a hash of their key, so the
# admin shows whose tokens exist, their prefix and when they were made (never the
# digest), and adds, edits and deletes none. A token is revoked by its client (DELETE
# /api/v1/auth/token/), on the account page, or by a change of its user's password.
# DRF's own Token table is empty since migration core 0005; its admin goes.
admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ("user", "prefix", "created")
    fields = ("user", "prefix", "created")  # never the digest


@admin.register(IdempotentRequest)
class IdempotentRequestAdmin(ReadOnlyAdmin):
    """Retried API POSTs and the answers kept for them (24 hours; core/api/idempotency.py)."""

    list_display = ("key", "status", "created_at")
    list_filter = ("status",)
    # The answer may hold a candidate's details: the list shows only the key and status.
    exclude = ("body", "caller", "fingerprint")


@admin.register(Profile)
class ProfileAdmin(ReadOnlyAdmin):
    """People's own settings; each person changes theirs on their account page."""

    list_display = ("user", "time_zone")
    search_fields = ("user__username",)
    # The feed's digest is no use to read and nobody's business.
    exclude = ("calendar_token_hash",)


@admin.register(ExternalIdentity)
class ExternalIdentityAdmin(admin.ModelAdmin):
    """Provider identities and the accounts they sign in as (core/accounts/oidc.py). Adding one
    links an existing account, deleting one unlinks it; both are audited
    (core.accounts.services). A link is never edited: unlink, then link again."""

    list_display = ("subject", "issuer", "user", "created_at", "linked_by")
    list_select_related = ("user", "linked_by")
    search_fields = ("subject", "issuer", "user__username")
    fields = ("issuer", "subject", "user")
    raw_id_fields = ("user",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(
        self, request: HttpRequest, obj: ExternalIdentity, form: ModelForm, change: bool
    ) -> None:
        # The form has checked that neither the identity nor the account is linked yet.
        saved = account_services.external_identity_link(
            user=obj.user,
            issuer=obj.issuer,
            subject=obj.subject,
            by=signed_in(request),
            via="admin",
        )
        obj.pk = saved.pk

    def delete_model(self, request: HttpRequest, obj: ExternalIdentity) -> None:
        account_services.external_identity_unlink(identity=obj, by=signed_in(request), via="admin")

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ExternalIdentity]) -> None:
        with transaction.atomic():
            for identity in queryset.select_related("user"):
                self.delete_model(request, identity)


@admin.register(OutgoingEmail)
class OutgoingEmailAdmin(ReadOnlyAdmin):
    """Emails queued and sent (core/outbox): kind, recipient, when. A sent one keeps no text."""

    list_display = ("kind", "user", "created_at", "sent_at")
    list_filter = ("kind",)
    # An unsent email names a candidate: the page shows what it is, not what it says.
    exclude = ("subject", "text", "html", "ics")


# Webhooks register their pages there (it needs ReadOnlyAdmin from here).
import core.webhooks.admin  # noqa: E402, F401
