from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from config.auth import signed_in
from kit import selectors, services
from kit.models import (
    AuditEvent,
    Competency,
    FollowUp,
    Level,
    LoopSlot,
    LoopTemplate,
    Question,
    QuestionVersion,
    Role,
    RubricItem,
)


@admin.register(Role)
class RoleAdmin(admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]


@admin.register(Level)
class LevelAdmin(admin.ModelAdmin):
    list_display = ["name", "rank", "title"]


@admin.register(Competency)
class CompetencyAdmin(admin.ModelAdmin):
    list_display = ["slug", "name"]
    search_fields = ["slug", "name"]


class RubricInline(admin.TabularInline):
    model = RubricItem
    extra = 0


class FollowUpInline(admin.TabularInline):
    model = FollowUp
    extra = 0


@admin.register(QuestionVersion)
class QuestionVersionAdmin(admin.ModelAdmin):
    list_display = ["question", "number", "minutes", "scale_max", "in_use", "created_at"]
    list_filter = ["in_use"]
    list_select_related = ["question"]
    search_fields = ["question__title", "prompt"]
    inlines = [RubricInline, FollowUpInline]

    def has_change_permission(
        self, request: HttpRequest, obj: QuestionVersion | None = None
    ) -> bool:
        # A version in use is a record of what was asked; edits make a new version elsewhere.
        return not (obj and obj.in_use) and super().has_change_permission(request, obj)


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["title", "role", "status", "min_level", "max_level"]
    list_filter = ["role", "status", "competencies"]
    list_select_related = ["role", "min_level", "max_level"]
    search_fields = ["title", "current__prompt"]
    filter_horizontal = ["competencies"]
    readonly_fields = ["current"]

    def save_model(
        self, request: HttpRequest, obj: Question, form: ModelForm, change: bool
    ) -> None:
        # The form can retire a question too; read the stored status before it is overwritten.
        before = Question.objects.get(pk=obj.pk).status if change else None
        super().save_model(request, obj, form, change)
        if before is not None:
            services.question_status_record(question=obj, before=before, by=signed_in(request))


@admin.register(RubricItem)
class RubricItemAdmin(admin.ModelAdmin):
    list_display = ["text", "kind", "version"]
    list_filter = ["kind"]
    list_select_related = ["version__question"]


@admin.register(FollowUp)
class FollowUpAdmin(admin.ModelAdmin):
    list_display = ["text", "version"]
    list_select_related = ["version__question"]


class LoopSlotInline(admin.StackedInline):
    model = LoopSlot
    extra = 0
    filter_horizontal = ["competencies"]


@admin.register(LoopTemplate)
class LoopTemplateAdmin(admin.ModelAdmin):
    list_display = ["name", "role", "level"]
    list_filter = ["role"]
    list_select_related = ["role", "level"]
    inlines = [LoopSlotInline]


@admin.register(LoopSlot)
class LoopSlotAdmin(admin.ModelAdmin):
    list_display = ["template", "order", "title", "minutes", "question_count", "interviewer_count"]
    list_select_related = ["template"]
    filter_horizontal = ["competencies"]


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
