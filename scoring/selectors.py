"""Reads for scorecards and debriefs, with the blind-feedback rule built in.

Blind feedback: an interviewer on a loop sees no other scorecard of that loop
until they have submitted every scorecard they owe in it; drafts are only ever
seen by their author; recruiters see all submitted scorecards.
"""

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, Level, Role, RubricItem
from kit.permissions import is_lead, is_recruiter
from scoring.models import (
    Amendment,
    CalibrationJob,
    CalibrationSnapshot,
    QuestionRating,
    Scorecard,
)

User = AbstractBaseUser | AnonymousUser


def _with_ratings(scorecards: QuerySet[Scorecard]) -> QuerySet[Scorecard]:
    return scorecards.select_related(
        "interviewer", "interview__loop__candidate", "interview__loop__role"
    ).prefetch_related(
        Prefetch(
            "ratings",
            queryset=QuestionRating.objects.select_related("item__question", "version")
            .prefetch_related("checked", "follow_ups_asked")
            .order_by("item__order"),
        ),
        Prefetch("amendments", queryset=Amendment.objects.select_related("by")),
    )


def owes_nothing(*, user: User, loop: Loop) -> bool:
    """Return whether the user has submitted a scorecard for every seat they hold in the loop."""
    seats = Panelist.objects.filter(interview__loop=loop, user=user)  # type: ignore[misc]
    if not seats.exists():
        return False
    submitted = Scorecard.objects.filter(
        interview__loop=loop, interviewer=user, status=Scorecard.Status.SUBMITTED
    ).count()
    return submitted >= seats.count()


def is_blind(*, user: User, loop: Loop) -> bool:
    """Return whether the user must not yet see the loop's other scorecards."""
    return not (is_recruiter(user) or owes_nothing(user=user, loop=loop))


def scorecards_visible_to(
    *, user: User, loop: Loop, blind: bool | None = None
) -> QuerySet[Scorecard]:
    """Return the loop's scorecards the user may read (the blind rule lives here)."""
    cards = Scorecard.objects.filter(interview__loop=loop)
    own = Q(interviewer=user) if user.is_authenticated else Q(pk__in=[])
    submitted = Q(status=Scorecard.Status.SUBMITTED)
    if blind is None:
        blind = is_blind(user=user, loop=loop)
    return _with_ratings(cards.filter(own if blind else own | submitted))


def own_scorecards(*, user: User) -> QuerySet[Scorecard]:
    return _with_ratings(Scorecard.objects.filter(interviewer=user))  # type: ignore[misc]


def scorecards_for_api(*, user: User) -> QuerySet[Scorecard]:
    """Return every scorecard the user may read across loops, for the API list."""
    if is_recruiter(user):
        cards = Scorecard.objects.filter(Q(status=Scorecard.Status.SUBMITTED) | Q(interviewer=user))
        return _with_ratings(cards)
    # Loops where the user owes nothing: no seat of theirs there lacks a submitted card.
    seats = Panelist.objects.filter(user=user)  # type: ignore[misc]
    unsubmitted = seats.exclude(
        Exists(
            Scorecard.objects.filter(
                interview=OuterRef("interview"),
                interviewer=OuterRef("user"),
                status=Scorecard.Status.SUBMITTED,
            )
        )
    )
    open_loops = unsubmitted.values("interview__loop")
    unblinded = seats.exclude(interview__loop__in=open_loops).values("interview__loop")
    cards = Scorecard.objects.filter(
        Q(interviewer=user) | Q(status=Scorecard.Status.SUBMITTED, interview__loop__in=unblinded)
    )
    return _with_ratings(cards)


def own_scorecard_get(*, user: User, pk: int) -> Scorecard:
    """Return the user's own scorecard; anyone else's is a 404."""
    return get_object_or_404(own_scorecards(user=user), pk=pk)


def scorecard_form_data(
    *, scorecard: Scorecard
) -> list[tuple[InterviewQuestion, QuestionRating | None]]:
    """Return each question of the interview (at its pinned version) with its rating, if any."""
    items = list(
        InterviewQuestion.objects.filter(interview_id=scorecard.interview_id)
        .select_related("question", "version")
        .prefetch_related(
            Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
            Prefetch("version__follow_ups", queryset=FollowUp.objects.order_by("order")),
        )
        .order_by("order")
    )
    ratings = {r.item_id: r for r in scorecard.ratings.all()}
    return [(item, ratings.get(item.pk)) for item in items]


def scorecard_as_dict(scorecard: Scorecard) -> dict[str, Any]:
    """Return the card's content in a stable shape (amendments keep it before and after)."""
    return {
        "recommendation": scorecard.recommendation,
        "summary": scorecard.summary,
        "ratings": [
            {
                "item": r.item_id,
                "rating": r.rating,
                "not_asked": r.not_asked,
                "not_asked_reason": r.not_asked_reason,
                "checked": sorted(c.pk for c in r.checked.all()),
                "follow_ups_asked": sorted(f.pk for f in r.follow_ups_asked.all()),
                "notes": r.notes,
            }
            for r in scorecard.ratings.all()
        ],
    }


# --- debrief ----------------------------------------------------------------------------


@dataclass
class Cell:
    rating: QuestionRating
    covered: int
    core_total: int
    strong_total: int
    strong_covered: int
    red_flags: list[RubricItem]


@dataclass
class DebriefRow:
    interview: Interview
    scorecard: Scorecard
    cells: list[Cell | None] = field(default_factory=list)


@dataclass
class Debrief:
    loop: Loop
    blind: bool
    owed: bool
    questions: list[InterviewQuestion]
    rows: list[DebriefRow]
    pending: list[Panelist]

    @property
    def scorecards(self) -> list[Scorecard]:
        return [row.scorecard for row in self.rows]


def loop_for_debrief(*, user: User, pk: int) -> Loop:
    """Return a loop the user may debrief: recruiters, and interviewers on it; else 404."""
    loops = Loop.objects.select_related("candidate", "role", "level", "decided_by")
    if not is_recruiter(user):
        loops = loops.filter(interviews__panel__user=user).distinct()  # type: ignore[misc]
    return get_object_or_404(loops, pk=pk)


def debrief(*, user: User, loop: Loop) -> Debrief:
    """Return the grid of interviewers by questions that the user may see."""
    interviews = list(
        loop.interviews.prefetch_related(
            Prefetch("panel", queryset=Panelist.objects.select_related("user")),
            Prefetch(
                "questions",
                queryset=InterviewQuestion.objects.select_related("question", "version")
                .prefetch_related("version__rubric")
                .order_by("order"),
            ),
        ).order_by("order")
    )
    blind = is_blind(user=user, loop=loop)
    cards = list(scorecards_visible_to(user=user, loop=loop, blind=blind))
    questions = [q for i in interviews for q in i.questions.all()]
    by_interview = {i.pk: i for i in interviews}
    rows = []
    for card in cards:
        if not card.is_submitted and card.interviewer_id != getattr(user, "pk", None):
            continue
        ratings = {r.item_id: r for r in card.ratings.all()}
        row = DebriefRow(interview=by_interview[card.interview_id], scorecard=card)
        for question in questions:
            rating = ratings.get(question.pk)
            row.cells.append(_cell(rating, question) if rating else None)
        rows.append(row)
    submitted = {(c.interview_id, c.interviewer_id) for c in cards if c.is_submitted}
    pending = [
        seat for i in interviews for seat in i.panel.all() if (i.pk, seat.user_id) not in submitted
    ]
    owed = any(seat.user_id == getattr(user, "pk", None) for seat in pending)
    return Debrief(
        loop=loop, blind=blind, owed=owed, questions=questions, rows=rows, pending=pending
    )


def _cell(rating: QuestionRating, question: InterviewQuestion) -> Cell:
    rubric = list(question.version.rubric.all())
    checked = {c.pk for c in rating.checked.all()}
    core = [r for r in rubric if r.kind == RubricItem.Kind.CORE]
    strong = [r for r in rubric if r.kind == RubricItem.Kind.STRONG]
    return Cell(
        rating=rating,
        covered=sum(r.pk in checked for r in core),
        core_total=len(core),
        strong_total=len(strong),
        strong_covered=sum(r.pk in checked for r in strong),
        red_flags=[r for r in rubric if r.kind == RubricItem.Kind.RED_FLAG and r.pk in checked],
    )


# --- calibration ----------------------------------------------------------------------------


def latest_snapshot(*, role: Role, level: Level | None = None) -> CalibrationSnapshot | None:
    return (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .first()
    )


def snapshot_history(
    *, role: Role, level: Level | None = None, limit: int = 50
) -> list[CalibrationSnapshot]:
    return list(
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .defer("result")[:limit]
    )


def trend(*, role: Role, level: Level | None = None, limit: int = 30) -> list[dict[str, Any]]:
    """Return the reliability figures of past snapshots, oldest first, for the trend chart."""
    rows = (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .values_list("computed_at", "result")[:limit]
    )
    points = []
    for computed_at, result in reversed(list(rows)):
        reliability = result.get("reliability", {})
        points.append(
            {
                "computed_at": computed_at.isoformat(),
                "alpha": (reliability.get("krippendorff_alpha") or {}).get("interval"),
                "g_qk": reliability.get("g_qk"),
                "ratings": result.get("inputs", {}).get("ratings"),
            }
        )
    return points


def result_visible_to(*, user: User, result: dict[str, Any]) -> dict[str, Any]:
    """Return what of a snapshot the user may see: all for leads, their own row for others."""
    if is_lead(user):
        return result
    username = user.get_username() if user.is_authenticated else None
    return {
        **{k: v for k, v in result.items() if k not in ("interviewers", "questions", "candidates")},
        "interviewers": [r for r in result.get("interviewers", []) if r["interviewer"] == username],
        "questions": [],
        "candidates": [],
    }


def calibration_job_get(*, pk: int) -> CalibrationJob:
    return get_object_or_404(CalibrationJob.objects.select_related("role"), pk=pk)
