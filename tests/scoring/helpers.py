"""Helpers for the scorecard tests: loops built through the real services, filled cards, state.

A loop here has one interview per slot, four questions per interview (15 minutes
each, the default outline: two core points, one strong, one red flag; one
follow-up), interviews that ended days ago, and the panels given.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import serializers

from core.models import AuditEvent
from interviews import services as interview_services
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, Level, Role, RubricItem
from kit.services import SlotData, loop_template_save
from scoring.models import Amendment, CalibrationJob, QuestionRating, Scorecard
from scoring.scorecards import services
from tests.factories import CompetencyFactory, make_question

# Every interview of a built loop starts this long before the test runs, one hour apart.
STARTED_AGO = timedelta(days=3)


@dataclass
class Seat:
    interviewers: list[User]
    shadow: User | None = None


@dataclass
class Built:
    loop: Loop
    interviews: list[Interview]
    items: dict[int, list[InterviewQuestion]] = field(default_factory=dict)

    def questions(self, interview: Interview) -> list[InterviewQuestion]:
        return self.items[interview.pk]


def build_loop(
    *,
    seats: list[Seat],
    role_name: str = "AI Infrastructure Engineer",
    candidate_name: str = "Casey Quinn",
    recruiter: User | None = None,
    questions_per_interview: int = 4,
) -> Built:
    """Build a loop of len(seats) interviews with the real services and seat the panels.

    1. A competency and four questions per slot, made with kit.services.question_create.
    2. The role's L5 template (one slot per interview) with loop_template_save.
    3. The loop with interviews.services.loop_create, then each panel and time with
       interview_update (so the loop is scheduled).
    """
    role, _ = Role.objects.get_or_create(name=role_name)
    level = Level.objects.get(name="L5")
    slots = []
    for n in range(1, len(seats) + 1):
        slug = f"{role.pk}-slot-{n}"
        CompetencyFactory(slug=slug)
        for q in range(1, questions_per_interview + 1):
            make_question(
                role=role,
                title=f"Slot {n} question {q}",
                prompt=f"Slot {n}, question {q}: how would you design it?",
                competencies=[slug],
            )
        slots.append(
            SlotData(
                title=f"Interview {n}",
                minutes=15 * questions_per_interview,
                competencies=(slug,),
                question_count=questions_per_interview,
                interviewer_count=len(seats[n - 1].interviewers),
            )
        )
    loop_template_save(role=role, level=level, name=f"{role_name} L5", slots=slots)
    candidate = interview_services.candidate_create(name=candidate_name, email="c@example.com")
    loop = interview_services.loop_create(candidate=candidate, role=role, level=level, by=recruiter)
    interviews = list(loop.interviews.order_by("order"))
    assert len(interviews) == len(seats)
    base = timezone.now().replace(microsecond=0) - STARTED_AGO
    for n, (interview, seat) in enumerate(zip(interviews, seats, strict=True)):
        start = base + timedelta(hours=n)
        interview_services.interview_update(
            interview=interview,
            interviewers=seat.interviewers,
            shadow=seat.shadow,
            scheduled_start=start,
            scheduled_end=start + timedelta(minutes=15 * questions_per_interview),
        )
    loop.refresh_from_db()
    interviews = list(loop.interviews.order_by("order"))
    built = Built(loop=loop, interviews=interviews)
    for interview in interviews:
        items = list(interview.questions.select_related("question", "version").order_by("order"))
        assert len(items) == questions_per_interview, loop.warnings
        built.items[interview.pk] = items
    return built


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


def iso(value: datetime | None) -> str | None:
    """A datetime as the API writes it."""
    return serializers.DateTimeField().to_representation(value) if value else None


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
