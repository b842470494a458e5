"""Filters of the loop, candidate and my-interviews pages (read with
core.http.params.valid_query_form: a value that does not validate is a 400 naming it, never
the unfiltered list)."""

from datetime import date

import django_filters
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q, QuerySet

from core.filters import DateRangeFilterSet, DateRangeForm, within
from interviews.models import Candidate, Interview, Loop, Panelist
from kit.models import Level, Role


def panel_people() -> QuerySet[User]:
    """Return everyone who sits or sat on a panel (shadows too), by username: people
    who left the interviewer group still find the loops they were on."""
    seated = Panelist.objects.filter(user=OuterRef("pk"))
    return User.objects.filter(Exists(seated)).order_by("username")


class LoopFilter(DateRangeFilterSet):
    q = django_filters.CharFilter(method="filter_search", label="Candidate", max_length=200)
    # The status the reader sees (scoring.visibility.status_seen), as the list shows it.
    status = django_filters.ChoiceFilter(
        field_name="status_seen", choices=Loop.Status.choices, empty_label="Any status"
    )
    role = django_filters.ModelChoiceFilter(queryset=Role.objects.all(), empty_label="All roles")
    level = django_filters.ModelChoiceFilter(queryset=Level.objects.all(), empty_label="All levels")
    interviewer = django_filters.ModelChoiceFilter(
        queryset=panel_people(), method="filter_interviewer", empty_label="Anyone"
    )
    dates = django_filters.ChoiceFilter(
        choices=[("created", "Created"), ("interviews", "Interviews on")],
        method="keep",
        empty_label=None,
        label="Dates",
    )

    class Meta:
        model = Loop
        fields = ["q", "status", "role", "level", "interviewer", "dates", "since", "until"]
        form = DateRangeForm

    def filter_search(self, queryset: QuerySet[Loop], name: str, value: str) -> QuerySet:
        words = value.strip()
        return queryset.filter(candidate__name__icontains=words) if words else queryset

    def filter_interviewer(self, queryset: QuerySet[Loop], name: str, value: User) -> QuerySet:
        # Exists, not a join: a person on three of a loop's interviews lists it once.
        seat = Panelist.objects.filter(interview__loop=OuterRef("pk"), user=value)
        return queryset.filter(Exists(seat))

    def filter_dates(self, queryset: QuerySet, since: date | None, until: date | None) -> QuerySet:
        if self.form.cleaned_data.get("dates") == "interviews":
            # One interview must fall in the range: not one after `since`, another before `until`.
            held = Interview.objects.filter(
                within("scheduled_start", since, until), loop=OuterRef("pk")
            )
            return queryset.filter(Exists(held))
        return queryset.filter(within("created_at", since, until))


class CandidateFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_search", label="Name or email", max_length=200)

    class Meta:
        model = Candidate
        fields = ["q"]

    def filter_search(self, queryset: QuerySet[Candidate], name: str, value: str) -> QuerySet:
        words = value.strip()
        if not words:
            return queryset
        return queryset.filter(Q(name__icontains=words) | Q(email__icontains=words))


class MyInterviewFilter(DateRangeFilterSet):
    q = django_filters.CharFilter(
        method="filter_search", label="Candidate or interview", max_length=200
    )

    class Meta:
        model = Interview
        fields = ["q", "since", "until"]
        form = DateRangeForm

    def filter_search(self, queryset: QuerySet[Interview], name: str, value: str) -> QuerySet:
        words = value.strip()
        if not words:
            return queryset
        return queryset.filter(
            Q(loop__candidate__name__icontains=words) | Q(title__icontains=words)
        )

    def filter_dates(self, queryset: QuerySet, since: date | None, until: date | None) -> QuerySet:
        # By the scheduled start: an interview with no time yet has no date to match.
        return queryset.filter(within("scheduled_start", since, until))
