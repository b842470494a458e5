from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from core import selectors, services
from core.auth import signed_in
from core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: events are written by the services that make the changes they record."""

    list_display = ["at", "actor", "action", "target"]
    list_filter = ["action"]
    list_select_related = ["actor"]
    search_fields = ["target", "actor__username"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# Changes to what people may do are audited. The admin saves the form (flags) in
# save_model and its many-to-many fields (groups, permissions) in save_related,
# so the state before is read in the first and compared with the state after in
# the second. Both run in the admin's transaction, together with the event.
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class AuditedUserAdmin(UserAdmin):
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
