"""Reads from the question bank."""

from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from kit.models import (
    Competency,
    FollowUp,
    Level,
    Question,
    QuestionVersion,
    Role,
    RubricItem,
)


def _with_current(questions: QuerySet[Question]) -> QuerySet[Question]:
    return questions.select_related("role", "current", "min_level", "max_level").prefetch_related(
        "competencies"
    )


def asked_since(since: datetime, prefix: str = "") -> Q:
    """Select interview assignments asked since `since`.

    An assignment counts as asked at its interview's scheduled start, or when
    it was made if the interview has no time yet; interviews scheduled ahead
    count too, since their questions are as good as asked. `prefix` reaches the
    assignment from another model ("assignments__" from Question).
    """
    return Q(**{f"{prefix}interview__scheduled_start__gte": since}) | Q(
        **{f"{prefix}interview__scheduled_start__isnull": True, f"{prefix}assigned_at__gte": since}
    )


def with_exposure(questions: QuerySet[Question]) -> QuerySet[Question]:
    """Annotate how often each question was asked in the last 30 and 90 days (same query)."""
    now = timezone.now()
    return questions.annotate(
        asked_30=Count(
            "assignments", filter=asked_since(now - timedelta(days=30), "assignments__"),
            distinct=True,
        ),
        asked_90=Count(
            "assignments", filter=asked_since(now - timedelta(days=90), "assignments__"),
            distinct=True,
        ),
    )  # fmt: skip


def question_list(
    *,
    role: Role | None = None,
    level: Level | None = None,
    competency: Competency | None = None,
    status: str | None = None,
    search: str = "",
) -> QuerySet[Question]:
    """Return the bank filtered as asked, by role and title, with each question's exposure."""
    questions = with_exposure(_with_current(Question.objects.all()))
    if role is not None:
        questions = questions.filter(role=role)
    if level is not None:
        questions = questions.filter(covers_level(level))
    if competency is not None:
        questions = questions.filter(competencies=competency)
    if status:
        questions = questions.filter(status=status)
    if search.strip():
        questions = question_search(questions, search)
    return questions.order_by("role__name", "title")


def covers_level(level: Level) -> Q:
    """Return a filter for questions whose level range includes `level`."""
    return (Q(min_level__isnull=True) | Q(min_level__rank__lte=level.rank)) & (
        Q(max_level__isnull=True) | Q(max_level__rank__gte=level.rank)
    )


def question_search(questions: QuerySet[Question], text: str) -> QuerySet[Question]:
    """Filter by free text: PostgreSQL full-text search, or a substring match on SQLite."""
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        vector = (
            SearchVector("title", weight="A", config="english")
            + SearchVector("current__prompt", weight="B", config="english")
            + SearchVector("current__outline", weight="C", config="english")
        )
        query = SearchQuery(text, search_type="websearch", config="english")
        return questions.annotate(search=vector).filter(search=query)
    match = Q()
    for word in text.split():
        match &= (
            Q(title__icontains=word)
            | Q(current__prompt__icontains=word)
            | Q(current__outline__icontains=word)
        )
    return questions.filter(match)


def question_get(*, pk: int) -> Question:
    return get_object_or_404(with_exposure(_with_current(Question.objects.all())), pk=pk)


def version_detail(*, question: Question, number: int | None = None) -> QuestionVersion:
    """Return a version of the question (by default the current one) with rubric and follow-ups."""
    versions = QuestionVersion.objects.prefetch_related(
        Prefetch("rubric", queryset=RubricItem.objects.order_by("order")),
        Prefetch("follow_ups", queryset=FollowUp.objects.order_by("order")),
    ).filter(question=question)
    if number is None:
        return get_object_or_404(versions, pk=question.current_id)
    return get_object_or_404(versions, number=number)


def question_versions(*, question: Question) -> QuerySet[QuestionVersion]:
    return question.versions.select_related("created_by").order_by("-number")


def questions_for_export(*, role: Role | None = None) -> QuerySet[Question]:
    questions = Question.objects.select_related(
        "role", "min_level", "max_level", "current"
    ).prefetch_related(
        "competencies",
        Prefetch("current__rubric", queryset=RubricItem.objects.order_by("order")),
        Prefetch("current__follow_ups", queryset=FollowUp.objects.order_by("order")),
    )
    if role is not None:
        questions = questions.filter(role=role)
    return questions.order_by("role__name", "id")


def question_as_dict(question: Question) -> dict[str, Any]:
    """Return the question in the import/export contract's shape."""
    version = question.current
    assert version is not None
    return {
        "role": question.role.name,
        "title": question.title,
        "prompt": version.prompt,
        "outline": version.outline,
        "follow_ups": [f.text for f in version.follow_ups.all()],
        "rubric": [{"text": r.text, "kind": r.kind} for r in version.rubric.all()],
        "competencies": [c.slug for c in question.competencies.all()],
        "levels": {
            "min": question.min_level.name if question.min_level else None,
            "max": question.max_level.name if question.max_level else None,
        },
        "minutes": version.minutes,
        "scale_max": version.scale_max,
        "status": question.status,
    }


def role_by_name(name: str) -> Role | None:
    return Role.objects.filter(name__iexact=name).first()
