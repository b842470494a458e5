"""Helpers for the scorecard tests: filled cards, their API and form bodies, state.

The loops they fill are built by tests.support.loops.build_loop.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import AuditEvent
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, RubricItem
from scoring.models import Amendment, CalibrationJob, QuestionRating, Scorecard
from scoring.scorecards import services
from tests.support.api import iso


def rubric(item: InterviewQuestion, kind: str | None = None) -> list[RubricItem]:
    items = RubricItem.objects.filter(version_id=item.version_id).order_by("order")
    return list(items.filter(kind=kind) if kind else items)


def follow_ups(item: InterviewQuestion) -> list[FollowUp]:
    return list(FollowUp.objects.filter(version_id=item.version_id).order_by("order"))


def ratings_for(
    interview: Interview, *, rating: int = 3, notes: str = ""
) -> list[services.RatingInput]:
    """Every question of the interview rated `rating`, its core points checked."""
    return [
        services.RatingInput(
            item=item.pk,
            rating=rating,
            checked=tuple(r.pk for r in rubric(item, RubricItem.Kind.CORE)),
            follow_ups_asked=tuple(f.pk for f in follow_ups(item)),
            notes=f"{notes} (question {item.order})" if notes else "",
        )
        for item in interview.questions.order_by("order")
    ]


def payload(
    interview: Interview,
    *,
    rating: int | None = 3,
    notes: str = "",
    recommendation: str = "yes",
    summary: str = "",
    **extra: Any,
) -> dict[str, Any]:
    """The API body of a complete card for the interview (PUT, or amend with `reason`)."""
    return {
        "recommendation": recommendation,
        "summary": summary,
        "ratings": [
            {
                "item": r.item,
                "rating": rating,
                "checked": list(r.checked),
                "follow_ups_asked": list(r.follow_ups_asked),
                "notes": r.notes,
            }
            for r in ratings_for(interview, rating=rating or 1, notes=notes)
        ],
        **extra,
    }


def draft(
    user: User,
    interview: Interview,
    *,
    rating: int = 3,
    notes: str = "",
    summary: str = "",
    recommendation: str = "yes",
) -> Scorecard:
    """Start the user's card and save a complete draft of it."""
    card = services.scorecard_start(interview=interview, by=user)
    return services.scorecard_save_draft(
        scorecard=card,
        by=user,
        recommendation=recommendation,
        summary=summary,
        ratings=ratings_for(interview, rating=rating, notes=notes),
    )


def submitted(
    user: User,
    interview: Interview,
    *,
    rating: int = 3,
    notes: str = "",
    summary: str = "",
    recommendation: str = "yes",
) -> Scorecard:
    """Start, fill in and submit the user's card."""
    card = draft(
        user, interview, rating=rating, notes=notes, summary=summary, recommendation=recommendation
    )
    return services.scorecard_submit(scorecard=card, by=user)


def state() -> dict[str, list[dict[str, Any]]]:
    """Every row a scorecard, decision or reminder write could touch, so any write shows."""
    checked = QuestionRating.checked.through.objects.order_by("pk").values()
    asked = QuestionRating.follow_ups_asked.through.objects.order_by("pk").values()
    return {
        "scorecards": list(Scorecard.objects.order_by("pk").values()),
        "ratings": list(QuestionRating.objects.order_by("pk").values()),
        "checked": list(checked),
        "follow_ups_asked": list(asked),
        "amendments": list(Amendment.objects.order_by("pk").values()),
        "audit": list(AuditEvent.objects.order_by("pk").values()),
        "jobs": list(CalibrationJob.objects.order_by("pk").values()),
        "loops": list(Loop.objects.order_by("pk").values()),
        "panelists": list(Panelist.objects.order_by("pk").values()),
        "candidates": list(Candidate.objects.order_by("pk").values()),
    }


def ended(interview: Interview) -> datetime:
    assert interview.scheduled_end is not None
    return interview.scheduled_end


def card_json(card: Scorecard) -> dict[str, Any]:
    """What the API should say about a scorecard, read straight from the tables."""
    card = Scorecard.objects.select_related("interviewer", "interview").get(pk=card.pk)
    ratings = QuestionRating.objects.filter(scorecard=card).select_related(
        "item__question", "version"
    )
    return {
        "id": card.pk,
        "interview": card.interview_id,
        "loop": card.interview.loop_id,
        "interviewer": card.interviewer.username,
        "is_shadow": card.is_shadow,
        "status": card.status,
        "recommendation": card.recommendation or None,
        "summary": card.summary,
        "submitted_at": iso(card.submitted_at),
        "updated_at": iso(card.updated_at),
        "ratings": [
            {
                "id": r.pk,
                "item": r.item_id,
                "question": r.item.question_id,
                "title": r.item.question.title,
                "version": r.version.number,
                "rating": r.rating,
                "not_asked": r.not_asked,
                "not_asked_reason": r.not_asked_reason,
                "checked": sorted(r.checked.values_list("pk", flat=True)),
                "follow_ups_asked": sorted(r.follow_ups_asked.values_list("pk", flat=True)),
                "notes": r.notes,
            }
            for r in sorted(ratings, key=lambda r: r.item.order)
        ],
        "amendments": [
            {
                "id": a.pk,
                "by": a.by.username,
                "at": iso(a.at),
                "reason": a.reason,
                "before": a.before,
                "after": a.after,
                "after_reading": a.after_reading,
            }
            for a in Amendment.objects.filter(scorecard=card).select_related("by")
        ],
    }


def form_data(
    interview: Interview,
    *,
    rating: int | None = 3,
    notes: str = "",
    recommendation: str = "yes",
    summary: str = "",
    **extra: str,
) -> dict[str, Any]:
    """The scorecard page's POST for a complete card: `q<item id>-...` fields per question."""
    data: dict[str, Any] = {"recommendation": recommendation, "summary": summary, **extra}
    for entry in ratings_for(interview, rating=rating or 1, notes=notes):
        prefix = f"q{entry.item}-"
        data[prefix + "rating"] = "" if rating is None else str(rating)
        data[prefix + "checked"] = [str(pk) for pk in entry.checked]
        data[prefix + "follow_ups"] = [str(pk) for pk in entry.follow_ups_asked]
        data[prefix + "notes"] = entry.notes
    return data


def count_queries(call: Callable[[], Any]) -> int:
    """Run `call` and return how many queries it made."""
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)
