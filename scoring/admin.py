from django.contrib import admin
from django.http import HttpRequest

from scoring.models import (
    Amendment,
    CalibrationExercise,
    CalibrationJob,
    CalibrationSnapshot,
    ExerciseRating,
    QuestionRating,
    ReferenceAnswer,
    Scorecard,
)


class RatingInline(admin.TabularInline):
    model = QuestionRating
    extra = 0
    # A tuple, so that it types as both `fields` and `readonly_fields` (lists are invariant).
    readonly_fields = ("item", "version", "rating", "not_asked", "not_asked_reason", "notes")
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest, obj: Scorecard | None = None) -> bool:
        return False


class AmendmentInline(admin.TabularInline):
    model = Amendment
    extra = 0
    readonly_fields = ["by", "at", "reason", "before", "after"]

    def has_add_permission(self, request: HttpRequest, obj: Scorecard | None = None) -> bool:
        return False


@admin.register(Scorecard)
class ScorecardAdmin(admin.ModelAdmin):
    """Read-only: scorecards change through the product, where amendments are recorded."""

    list_display = ["interview", "interviewer", "status", "recommendation", "submitted_at"]
    list_filter = ["status", "recommendation", "is_shadow"]
    list_select_related = ["interview__loop__candidate", "interviewer"]
    search_fields = ["interviewer__username", "interview__loop__candidate__name"]
    inlines = [RatingInline, AmendmentInline]

    def has_change_permission(self, request: HttpRequest, obj: Scorecard | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Scorecard | None = None) -> bool:
        return False


@admin.register(QuestionRating)
class QuestionRatingAdmin(admin.ModelAdmin):
    list_display = ["scorecard", "item", "rating", "not_asked"]
    list_select_related = ["scorecard__interviewer", "scorecard__interview__loop__candidate",
                           "item__question"]  # fmt: skip

    def has_change_permission(
        self, request: HttpRequest, obj: QuestionRating | None = None
    ) -> bool:
        return False


@admin.register(Amendment)
class AmendmentAdmin(admin.ModelAdmin):
    list_display = ["scorecard", "by", "at", "reason"]
    list_select_related = ["scorecard__interviewer", "scorecard__interview__loop__candidate", "by"]

    # Amendments are made by their author through the scorecard (which records the
    # card before and after, and audits it); the admin only reads them.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Amendment | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Amendment | None = None) -> bool:
        return False


@admin.register(CalibrationJob)
class CalibrationJobAdmin(admin.ModelAdmin):
    list_display = ["role", "status", "progress", "stage", "requested_at", "finished_at"]
    list_filter = ["status", "role"]
    list_select_related = ["role"]


@admin.register(CalibrationSnapshot)
class CalibrationSnapshotAdmin(admin.ModelAdmin):
    list_display = ["role", "level", "computed_at", "watermark"]
    list_filter = ["role", "level"]
    list_select_related = ["role", "level"]


class ReferenceAnswerInline(admin.StackedInline):
    model = ReferenceAnswer
    extra = 0


@admin.register(CalibrationExercise)
class CalibrationExerciseAdmin(admin.ModelAdmin):
    list_display = ["title", "version", "status", "created_by", "created_at"]
    list_select_related = ["version__question", "created_by"]
    inlines = [ReferenceAnswerInline]


@admin.register(ExerciseRating)
class ExerciseRatingAdmin(admin.ModelAdmin):
    list_display = ["answer", "interviewer", "rating", "rated_at"]
    list_select_related = ["answer__exercise", "interviewer"]


@admin.register(ReferenceAnswer)
class ReferenceAnswerAdmin(admin.ModelAdmin):
    list_display = ["exercise", "order", "key_rating"]
    list_select_related = ["exercise"]
