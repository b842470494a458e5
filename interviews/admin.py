from django.contrib import admin

from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ["name", "email", "phone", "created_at"]
    search_fields = ["name", "email"]


class InterviewInline(admin.TabularInline):
    model = Interview
    extra = 0
    fields = ["order", "title", "minutes", "scheduled_start", "scheduled_end"]


@admin.register(Loop)
class LoopAdmin(admin.ModelAdmin):
    list_display = ["candidate", "role", "level", "status", "decision", "created_at"]
    list_filter = ["status", "role", "level"]
    list_select_related = ["candidate", "role", "level"]
    inlines = [InterviewInline]


class PanelistInline(admin.TabularInline):
    model = Panelist
    extra = 0


class InterviewQuestionInline(admin.TabularInline):
    model = InterviewQuestion
    extra = 0
    fields = ["order", "question", "version", "reason"]
    readonly_fields = ["question", "version"]


@admin.register(Interview)
class InterviewAdmin(admin.ModelAdmin):
    list_display = ["title", "loop", "order", "scheduled_start"]
    list_select_related = ["loop__candidate", "loop__role", "loop__level"]
    inlines = [PanelistInline, InterviewQuestionInline]


@admin.register(Panelist)
class PanelistAdmin(admin.ModelAdmin):
    list_display = ["interview", "user", "is_shadow"]
    list_select_related = ["interview__loop__candidate", "interview__loop__role", "user"]


@admin.register(InterviewQuestion)
class InterviewQuestionAdmin(admin.ModelAdmin):
    list_display = ["interview", "order", "question", "version"]
    list_select_related = ["interview__loop__candidate", "question", "version__question"]
