"""The bank in the admin.

Roles, levels, competencies and loop templates are edited here, each add, change
and delete audited (core.admin.AuditedAdmin). A question's filing (title, status,
levels, competencies) is saved through kit.services.question_update, as the bank's
pages save it, and audited too. What was asked and rated against (versions, their
rubric and follow-ups) is read-only: a content edit goes through the question's page,
which makes a new version once one is in use. Nothing that anchors ratings or
decisions (a role, a level, a question) can be deleted here; retire a question instead.
"""

from typing import Any

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms import ModelForm
from django.http import HttpRequest

from core.admin import AuditedAdmin, ReadOnlyAdmin, ReadOnlyTabularInline
from core.auth import signed_in
from kit import services
from kit.models import (
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
class RoleAdmin(AuditedAdmin):
    list_display = ["name"]
    search_fields = ["name"]

    def has_delete_permission(self, request: HttpRequest, obj: Role | None = None) -> bool:
        # Its questions, loops (and their decisions) and calibration snapshots hang on it.
        return False


@admin.register(Level)
class LevelAdmin(AuditedAdmin):
    list_display = ["name", "rank", "title"]

    def has_delete_permission(self, request: HttpRequest, obj: Level | None = None) -> bool:
        # Loops (and their decisions), templates and snapshots hang on it.
        return False


@admin.register(Competency)
class CompetencyAdmin(AuditedAdmin):
    list_display = ["slug", "name"]
    search_fields = ["slug", "name"]


class RubricInline(ReadOnlyTabularInline):
    model = RubricItem


class FollowUpInline(ReadOnlyTabularInline):
    model = FollowUp


@admin.register(QuestionVersion)
class QuestionVersionAdmin(ReadOnlyAdmin):
    """Read-only: ratings, interviews and exercises point at versions and their rubric."""

    list_display = ["question", "number", "minutes", "scale_max", "in_use", "created_at"]
    list_filter = ["in_use"]
    list_select_related = ["question"]
    search_fields = ["question__title", "prompt"]
    inlines = [RubricInline, FollowUpInline]


class QuestionAdminForm(ModelForm):
    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        services.check_level_range(data.get("min_level"), data.get("max_level"))
        return data

    def validate_unique(self) -> None:
        super().validate_unique()
        # The role is read-only on the change form, so Django skips the constraints
        # naming it (a title is unique per role); check them, or the save would fail.
        try:
            self.instance.validate_constraints()
        except ValidationError as exc:
            self.add_error(None, exc)


@admin.register(Question)
class QuestionAdmin(AuditedAdmin):
    list_display = ["title", "role", "status", "min_level", "max_level"]
    list_filter = ["role", "status", "competencies"]
    list_select_related = ["role", "min_level", "max_level"]
    search_fields = ["title", "current__prompt"]
    filter_horizontal = ["competencies"]
    form = QuestionAdminForm
    # question_update files a question; it does not move it to another role.
    readonly_fields = ["role", "current"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A question is made with its first version (prompt, outline, rubric): on the bank's pages.
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Question | None = None) -> bool:
        # Its versions carry ratings and interviews; retire it instead.
        return False

    def get_audit_skip(self, stored: Question | None, obj: Question) -> tuple[str, ...]:
        # A retirement or restoration is question_update's own event (question.retired,
        # question.restored); other moves of the status are in the admin's.
        retired = Question.Status.RETIRED
        return ("status",) if stored and retired in (stored.status, obj.status) else ()

    def save_object(
        self, request: HttpRequest, obj: Question, form: ModelForm, change: bool
    ) -> None:
        data = form.cleaned_data
        services.question_update(
            question=Question.objects.get(pk=obj.pk),
            meta=services.Meta(
                title=data["title"],
                status=data["status"],
                competencies=list(data["competencies"]),
                min_level=data["min_level"],
                max_level=data["max_level"],
            ),
            by=signed_in(request),
        )


@admin.register(RubricItem)
class RubricItemAdmin(ReadOnlyAdmin):
    """Read-only: ratings record which items were checked; edit the question instead."""

    list_display = ["text", "kind", "version"]
    list_filter = ["kind"]
    list_select_related = ["version__question"]


@admin.register(FollowUp)
class FollowUpAdmin(ReadOnlyAdmin):
    """Read-only: ratings record which follow-ups were asked; edit the question instead."""

    list_display = ["text", "version"]
    list_select_related = ["version__question"]


class LoopSlotInline(admin.StackedInline):
    model = LoopSlot
    extra = 0
    filter_horizontal = ["competencies"]


@admin.register(LoopTemplate)
class LoopTemplateAdmin(AuditedAdmin):
    list_display = ["name", "role", "level"]
    list_filter = ["role"]
    list_select_related = ["role", "level"]
    inlines = [LoopSlotInline]


@admin.register(LoopSlot)
class LoopSlotAdmin(AuditedAdmin):
    list_display = ["template", "order", "title", "minutes", "question_count", "interviewer_count"]
    list_select_related = ["template"]
    filter_horizontal = ["competencies"]
