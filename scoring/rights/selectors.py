"""Reads for candidate data rights: everything held about a candidate."""

from typing import Any

from django.db.models import Prefetch

from interviews.models import Candidate, Interview, InterviewQuestion, Panelist
from scoring.models import QuestionRating, Scorecard

PANEL_USERS = Prefetch("panel", queryset=Panelist.objects.select_related("user"))


def candidate_record(*, candidate: Candidate) -> dict[str, Any]:
    """Return everything held about a candidate, for a data-access request."""
    loops = (
        candidate.loops.select_related("role", "level", "decided_by")
        .prefetch_related(
            Prefetch("interviews", queryset=Interview.objects.prefetch_related(PANEL_USERS)),
            Prefetch(
                "interviews__questions",
                queryset=InterviewQuestion.objects.select_related("question", "version"),
            ),
            Prefetch(
                "interviews__scorecards",
                queryset=Scorecard.objects.filter(status=Scorecard.Status.SUBMITTED)
                .select_related("interviewer")
                .prefetch_related(
                    Prefetch(
                        "ratings", queryset=QuestionRating.objects.select_related("item__question")
                    ),
                    "amendments",
                ),
            ),
        )
        .order_by("created_at", "id")
    )
    return {
        "candidate": {
            "id": candidate.pk,
            "name": candidate.name,
            "email": candidate.email,
            "phone": candidate.phone,
            "notes": candidate.notes,
            "created_at": candidate.created_at.isoformat(),
            "erased_at": candidate.erased_at.isoformat() if candidate.erased_at else None,
        },
        "loops": [
            {
                "role": loop.role.name,
                "level": loop.level.name,
                "status": loop.status,
                "decision": loop.decision,
                "decision_rationale": loop.decision_rationale,
                "decided_at": loop.decided_at.isoformat() if loop.decided_at else None,
                "interviews": [
                    {
                        "title": interview.title,
                        "scheduled_start": _iso(interview.scheduled_start),
                        "panel": [seat.user.get_username() for seat in interview.panel.all()],
                        "questions": [q.question.title for q in interview.questions.all()],
                        "scorecards": [
                            {
                                "interviewer": card.interviewer.get_username(),
                                "recommendation": card.recommendation,
                                "summary": card.summary,
                                "submitted_at": _iso(card.submitted_at),
                                "ratings": [
                                    {
                                        "question": r.item.question.title,
                                        "rating": r.rating,
                                        "not_asked": r.not_asked,
                                        "notes": r.notes,
                                    }
                                    for r in card.ratings.all()
                                ],
                                "amendments": [
                                    {"at": _iso(a.at), "reason": a.reason}
                                    for a in card.amendments.all()
                                ],
                            }
                            for card in interview.scorecards.all()
                        ],
                    }
                    for interview in loop.interviews.all()
                ],
            }
            for loop in loops
        ],
    }


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment else None
