"""Writes for candidate data rights: the audited export and erasure."""

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from config.exceptions import Conflict
from core.services import audit_event_record as audit
from interviews.models import Candidate, Loop
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.rights import selectors


def candidate_export(*, candidate: Candidate, by: User) -> dict[str, Any]:
    """Return everything held about the candidate; the export is audited."""
    record = selectors.candidate_record(candidate=candidate)
    audit(actor=by, action="candidate.exported", target=f"candidate {candidate.pk}")
    return record


@transaction.atomic
def candidate_erase(*, candidate: Candidate, by: User) -> Candidate:
    """Erase a candidate's personal data and every free text written about them.

    Ratings, recommendations, rubric ticks and decisions stay, attached to an
    anonymous candidate, so calibration statistics do not change. What goes:
    name, contact details and notes; scorecard summaries, rating notes and
    not-asked reasons; decision rationales; amendment reasons and their
    before/after copies of the text. Erasing twice is refused.
    """
    candidate = Candidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.erased_at is not None:
        raise Conflict("This candidate's data was already erased.")
    candidate.name = f"Erased candidate {candidate.pk}"
    candidate.email = candidate.phone = candidate.notes = ""
    candidate.erased_at = timezone.now()
    candidate.save()
    Loop.objects.filter(candidate=candidate).exclude(decision_rationale="").update(
        decision_rationale="(erased)"
    )
    cards = Scorecard.objects.filter(interview__loop__candidate=candidate)
    cards.update(summary="")
    QuestionRating.objects.filter(scorecard__in=cards).update(notes="", not_asked_reason="")
    for amendment in Amendment.objects.filter(scorecard__in=cards):
        amendment.reason = "(erased)"
        amendment.before = _without_text(amendment.before)
        amendment.after = _without_text(amendment.after)
        amendment.save(update_fields=["reason", "before", "after"])
    audit(actor=by, action="candidate.erased", target=f"candidate {candidate.pk}")
    return candidate


def _without_text(card: dict[str, Any]) -> dict[str, Any]:
    ratings = [{**r, "notes": "", "not_asked_reason": ""} for r in card.get("ratings", [])]
    return {**card, "summary": "", "ratings": ratings}
