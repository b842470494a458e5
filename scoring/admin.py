"""Scorecards, ratings and calibration in the admin: read-only.

A scorecard changes through the product (draft, submit, amend: an amendment records
the card before and after, and is audited); snapshots and jobs are written by the
calibration job; exercises by their lead and participants. None of it is added,
changed or deleted here.
"""

from django.contrib import admin

from core.admin import ReadOnlyAdmin, ReadOnlyStackedInline, ReadOnlyTabularInline
from scoring.models import (
    Amendment,
    CalibrationExercise,
    CalibrationJob,
    CalibrationSnapshot,
    ExerciseRating,
    FeedbackRead,
    QuestionRating,
    ReferenceAnswer,
    Scorecard,
)


class RatingInline(ReadOnlyTabularInline):
    model = QuestionRating
    # A tuple, so that it types as both `fields` and `readonly_fields` (lists are invariant).
    readonly_fields = ("item", "version", "rating", "not_asked", "not_asked_reason", "notes")
    fields = readonly_fields


class AmendmentInline(ReadOnlyTabularInline):
    model = Amendment
    readonly_fields = ("by", "at", "reason", "before", "after")
    fields = readonly_fields


@admin.register(Scorecard)
class ScorecardAdmin(ReadOnlyAdmin):
    list_display = ["interview", "interviewer", "status", "recommendation", "submitted_at"]
    list_filter = ["status", "recommendation", "is_shadow"]
    list_select_related = ["interview__loop__candidate", "interviewer"]
    search_fields = ["interviewer__username", "interview__loop__candidate__name"]
    inlines = [RatingInline, AmendmentInline]


@admin.register(QuestionRating)
class QuestionRatingAdmin(ReadOnlyAdmin):
    list_display = ["scorecard", "item", "rating", "not_asked"]
    list_select_related = ["scorecard__interviewer", "scorecard__interview__loop__candidate",
                           "item__question"]  # fmt: skip


@admin.register(Amendment)
class AmendmentAdmin(ReadOnlyAdmin):
    list_display = ["scorecard", "by", "at", "reason"]
    list_select_related = ["scorecard__interviewer", "scorecard__interview__loop__candidate", "by"]


@admin.register(FeedbackRead)
class FeedbackReadAdmin(ReadOnlyAdmin):
    """Read-only: when a panelist first read the others' cards marks later amendments."""

    list_display = ["loop", "user", "at"]
    list_select_related = ["loop__candidate", "loop__role", "loop__level", "user"]


@admin.register(CalibrationJob)
class CalibrationJobAdmin(ReadOnlyAdmin):
    list_display = ["role", "status", "progress", "stage", "requested_at", "finished_at"]
    list_filter = ["status", "role"]
    list_select_related = ["role"]


@admin.register(CalibrationSnapshot)
class CalibrationSnapshotAdmin(ReadOnlyAdmin):
    list_display = ["role", "level", "computed_at", "watermark"]
    list_filter = ["role", "level"]
    list_select_related = ["role", "level"]


class ReferenceAnswerInline(ReadOnlyStackedInline):
    model = ReferenceAnswer


@admin.register(CalibrationExercise)
class CalibrationExerciseAdmin(ReadOnlyAdmin):
    list_display = ["title", "version", "status", "created_by", "created_at"]
    list_select_related = ["version__question", "created_by"]
    inlines = [ReferenceAnswerInline]


@admin.register(ExerciseRating)
class ExerciseRatingAdmin(ReadOnlyAdmin):
    list_display = ["answer", "interviewer", "rating", "rated_at"]
    list_select_related = ["answer__exercise", "interviewer"]


@admin.register(ReferenceAnswer)
class ReferenceAnswerAdmin(ReadOnlyAdmin):
    list_display = ["exercise", "order", "key_rating"]
    list_select_related = ["exercise"]
