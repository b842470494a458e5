from django.contrib import admin
from django.forms import ModelForm
from django.http import HttpRequest

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
