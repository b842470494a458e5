"""The bank's filters, shared by the question list page and the API."""

import django_filters
from django.db.models import QuerySet

from kit.models import Competency, Level, Question, Role
from kit.selectors import covers_level, question_search


class QuestionFilter(django_filters.FilterSet):
    role = django_filters.ModelChoiceFilter(queryset=Role.objects.all(), empty_label="All roles")
    level = django_filters.ModelChoiceFilter(
        queryset=Level.objects.all(),
        to_field_name="name",
        method="filter_level",
        empty_label="All levels",
        help_text="Level name, e.g. L5: questions whose level range covers it.",
    )
    competency = django_filters.ModelChoiceFilter(
        queryset=Competency.objects.all(),
        to_field_name="slug",
        field_name="competencies",
        empty_label="All competencies",
        help_text="Competency slug, e.g. distributed-training.",
    )
    status = django_filters.ChoiceFilter(choices=Question.Status.choices, empty_label="Any status")
    q = django_filters.CharFilter(
        method="filter_search",
        label="Search",
        help_text="Words in the title, prompt or outline (at most 200 characters).",
        max_length=200,  # refused as a 400 naming `q` before the database sees it
    )

    class Meta:
        model = Question
        fields = ["role", "level", "competency", "status", "q"]

    def filter_level(self, queryset: QuerySet[Question], name: str, value: Level) -> QuerySet:
        return queryset.filter(covers_level(value))

    def filter_search(self, queryset: QuerySet[Question], name: str, value: str) -> QuerySet:
        return question_search(queryset, value) if value.strip() else queryset
