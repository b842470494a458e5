"""Candidates, loops and interviews in the admin: read-only.

Each changes through the product's services, which audit what must be: a decision
(loop_decide records who decided, when and why), an erasure, a panel or a question
swap. A loop holds a decision and its interviews hold the ratings, so none of them
is deleted here either.
"""

from django.contrib import admin

from core.admin import ReadOnlyAdmin, ReadOnlyTabularInline
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist


@admin.register(Candidate)
class CandidateAdmin(ReadOnlyAdmin):
    list_display = ["name", "email", "phone", "created_at"]
    search_fields = ["name", "email"]


class InterviewInline(ReadOnlyTabularInline):
    model = Interview
    fields = ["order", "title", "minutes", "scheduled_start", "scheduled_end"]


@admin.register(Loop)
class LoopAdmin(ReadOnlyAdmin):
    list_display = ["candidate", "role", "level", "status", "decision", "created_at"]
    list_filter = ["status", "role", "level"]
    list_select_related = ["candidate", "role", "level"]
    inlines = [InterviewInline]


class PanelistInline(ReadOnlyTabularInline):
    model = Panelist


class InterviewQuestionInline(ReadOnlyTabularInline):
    model = InterviewQuestion
    fields = ["order", "question", "version", "reason"]
    readonly_fields = ["question", "version"]


@admin.register(Interview)
class InterviewAdmin(ReadOnlyAdmin):
    list_display = ["title", "loop", "order", "scheduled_start"]
    list_select_related = ["loop__candidate", "loop__role", "loop__level"]
    inlines = [PanelistInline, InterviewQuestionInline]


@admin.register(Panelist)
class PanelistAdmin(ReadOnlyAdmin):
    list_display = ["interview", "user", "is_shadow"]
    list_select_related = ["interview__loop__candidate", "interview__loop__role", "user"]


@admin.register(InterviewQuestion)
class InterviewQuestionAdmin(ReadOnlyAdmin):
    list_display = ["interview", "order", "question", "version"]
    list_select_related = ["interview__loop__candidate", "question", "version__question"]


# Pools and training (interviews.pools): read-only too; they change through the API
# and pages, which audit every change.
from interviews.pools.models import (  # noqa: E402
    Graduation,
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)


@admin.register(Pool)
class PoolAdmin(ReadOnlyAdmin):
    list_display = ["name", "role", "slot", "competency", "created_at"]
    list_select_related = ["role", "slot", "competency"]


@admin.register(PoolMembership)
class PoolMembershipAdmin(ReadOnlyAdmin):
    list_display = ["pool", "user", "status", "added_at", "removed_at"]
    list_select_related = ["pool", "user"]
    list_filter = ["status"]


@admin.register(InterviewerLimits)
class InterviewerLimitsAdmin(ReadOnlyAdmin):
    list_display = ["user", "per_day", "per_week", "day_start", "day_end"]
    list_select_related = ["user"]


@admin.register(TrainingPath)
class TrainingPathAdmin(ReadOnlyAdmin):
    list_display = ["pool", "shadows", "reverse_shadows", "calibration_max_gap"]
    list_select_related = ["pool"]


@admin.register(TrainingSeat)
class TrainingSeatAdmin(ReadOnlyAdmin):
    list_display = ["membership", "interview", "kind", "outcome", "signed_off_at"]
    list_select_related = ["membership__user", "membership__pool", "interview__loop__candidate"]


@admin.register(Graduation)
class GraduationAdmin(ReadOnlyAdmin):
    list_display = ["membership", "graduated_at", "by"]
    list_select_related = ["membership__user", "membership__pool", "by"]
