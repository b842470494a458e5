"""Filters for the site's list pages: a date range every list shares, and the audit log's.

A range is two days, `since` and `until`, both included, read in the current time
zone (a day is the reader's midnight to midnight, not UTC's). Its refusals are the
filter form's, so core.http.params.valid_query_form turns them into a 400 naming the field:

* a value that is not a date (``2026-02-30``, ``yesterday``);
* a year outside MIN_YEAR..MAX_YEAR (``9999-12-31`` would overflow the day after it,
  and no interview or audit event is dated year 1);
* `until` before `since`.
"""

from datetime import date, datetime, time, timedelta
from typing import Any

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.audit.selectors import audit_actors
from core.models import AuditEvent

MIN_YEAR, MAX_YEAR = 1900, 2999


def day_start(day: date) -> datetime:
    """Return the reader's midnight at the start of `day`, as an aware datetime."""
    return timezone.make_aware(datetime.combine(day, time.min))


def within(field: str, since: date | None, until: date | None) -> Q:
    """Return the condition that `field` (a datetime) falls on `since`..`until`, both
    days included; an open end when a day is None."""
    condition = Q()
    if since is not None:
        condition &= Q(**{f"{field}__gte": day_start(since)})
    if until is not None:
        condition &= Q(**{f"{field}__lt": day_start(until + timedelta(days=1))})
    return condition


class DateRangeForm(forms.Form):
    """The filter form of a DateRangeFilterSet: refuses a day out of range or a
    range that ends before it starts."""

    def clean(self) -> dict[str, Any]:
        super().clean()
        for name in ("since", "until"):
            day = self.cleaned_data.get(name)
            if day is not None and not MIN_YEAR <= day.year <= MAX_YEAR:
                self.add_error(name, f"Enter a date from {MIN_YEAR} to {MAX_YEAR}.")
        since, until = self.cleaned_data.get("since"), self.cleaned_data.get("until")
        if since and until and until < since:
            self.add_error("until", f"Enter a date on or after {since:%Y-%m-%d} (From).")
        return self.cleaned_data


DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class DateRangeFilterSet(django_filters.FilterSet):
    """A FilterSet with `since` and `until`; subclasses say what the range applies to in
    `filter_dates`, which sees both days at once (a range on a related row must hold
    for one row, not `since` for one and `until` for another)."""

    since = django_filters.DateFilter(label="From", method="keep", widget=DATE_INPUT)
    until = django_filters.DateFilter(label="To", method="keep", widget=DATE_INPUT)

    class Meta:
        form = DateRangeForm

    def keep(self, queryset: QuerySet, name: str, value: object) -> QuerySet:
        return queryset  # applied by filter_queryset, with the other end of the range

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        since, until = self.form.cleaned_data.get("since"), self.form.cleaned_data.get("until")
        if since is None and until is None:
            return queryset
        return self.filter_dates(queryset, since, until)

    def filter_dates(self, queryset: QuerySet, since: date | None, until: date | None) -> QuerySet:
        raise NotImplementedError


class AuditFilter(DateRangeFilterSet):
    actor = django_filters.ModelChoiceFilter(
        queryset=audit_actors(), empty_label="Anyone", label="Who"
    )
    # Any text: an action no event has (yet) lists nothing rather than being refused.
    action = django_filters.CharFilter(max_length=200)

    class Meta:
        model = AuditEvent
        fields = ["actor", "action", "since", "until"]
        form = DateRangeForm

    def filter_dates(self, queryset: QuerySet, since: date | None, until: date | None) -> QuerySet:
        return queryset.filter(within("at", since, until))
