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
