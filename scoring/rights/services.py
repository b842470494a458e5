"""Writes for candidate data rights: the audited export and erasure."""

import json
from collections.abc import Iterator, Sequence
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from config.exceptions import Conflict
from core.idempotency import idempotent_requests_about_delete
from core.models import AuditEvent
from core.outbox.services import emails_about_loops_delete
from core.services import audit_event_record as audit
from core.webhooks.services import webhook_event_details_erase
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from scoring.models import Amendment, CalibrationSnapshot, QuestionRating, Scorecard
from scoring.rights import selectors, traces
from scoring.rights.redaction import ERASED, FREE_TEXT_KEYS, Redactor, erased_name


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

    1. in their own rows: name, contact details and notes; scorecard summaries
       (drafts too), rating notes and not-asked reasons; decision rationales;
       amendment reasons and their before/after copies of the text; the name
       where an interview title or assignment reason repeats it;
    2. in copies elsewhere (see traces and redaction): their name and free text
       in audit events (each kept, with its actor and time), admin log
       entries and every stored calibration snapshot's candidate rows (the kept
       answers to keyed POSTs that show them are deleted outright). The
       snapshots are rewritten in place: erasing changes no rating, so the
       watermark stays and a recalculation would store nothing new.

    Erasing twice is refused. The erasure's own audit event counts the copies redacted.
    """
    candidate = Candidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.erased_at is not None:
        raise Conflict("This candidate's data was already erased.", code="candidate_already_erased")
    loops = selectors.candidate_loops(candidate=candidate)
    found = traces.footprint(
        candidate=candidate, loops=loops, names=traces.earlier_names(candidate=candidate)
    )
    texts = _free_texts(candidate, loops)
    redactor = Redactor.of(names=found.names, texts=texts, replacement=erased_name(candidate.pk))
    # The copies first: they are found by what they say, which step 1 erases.
    copies = {
        "audit_events": _audit_events_redact(found, redactor),
        "admin_log": _log_entries_redact(found, redactor),
        "snapshots": _snapshots_redact(found, redactor),
        # Events sent to subscriptions allowed details keep their ids, not the person.
        "webhook_events": webhook_event_details_erase(candidate_id=candidate.pk),
        # Kept answers to keyed POSTs (a create, a decision) copy what they showed.
        "idempotent_requests": idempotent_requests_about_delete(
            candidate_id=candidate.pk, mentions=redactor.mentions
        ),
        # Emails not sent yet name the candidate (a sent one keeps no text).
        "unsent_emails": emails_about_loops_delete(loop_ids=[loop.pk for loop in loops]),
    }
    candidate.name = redactor.replacement
    candidate.email = candidate.phone = candidate.notes = ""
    candidate.erased_at = timezone.now()
    candidate.save()
    _own_rows_erase(candidate, loops, redactor)
    audit(actor=by, action="candidate.erased", target=f"candidate {candidate.pk}", **copies)
    return candidate


def _free_texts(candidate: Candidate, loops: Sequence[Loop]) -> Iterator[str]:
    """Yield every free text held about the candidate, to find where it was copied."""
    yield from (candidate.email, candidate.phone, candidate.notes)
    for loop in loops:
        yield loop.decision_rationale
        for interview in loop.interviews.all():
            for card in interview.scorecards.all():
                yield card.summary
                for rating in card.ratings.all():
                    yield from (rating.notes, rating.not_asked_reason)
                for amendment in card.amendments.all():
                    yield amendment.reason
                    yield from _texts_in(amendment.before)
                    yield from _texts_in(amendment.after)


def _texts_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in FREE_TEXT_KEYS and isinstance(inner, str):
                yield inner
            else:
                yield from _texts_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _texts_in(inner)


def _audit_events_redact(found: traces.Footprint, redactor: Redactor) -> int:
    changed: list[AuditEvent] = []
    for event, about in traces.audit_events(found, redactor):
        target = redactor.text(event.target)[:200]
        data = redactor.value(event.data, about_them=about)
        if (target, data) != (event.target, event.data):
            event.target, event.data = target, data
            changed.append(event)
    AuditEvent.objects.bulk_update(changed, ["target", "data"], batch_size=500)
    return len(changed)


def _log_entries_redact(found: traces.Footprint, redactor: Redactor) -> int:
    changed: list[LogEntry] = []
    for entry, about in traces.log_entries(found, redactor):
        is_candidate = (
            about
            and entry.content_type is not None
            and (entry.content_type.model_class() is Candidate)
        )
        # An entry about the candidate row is named after them, whatever name it recorded.
        shown = redactor.replacement if is_candidate else redactor.text(entry.object_repr)[:200]
        message = _message_redact(entry.change_message, redactor)
        if (shown, message) != (entry.object_repr, entry.change_message):
            entry.object_repr, entry.change_message = shown, message
            changed.append(entry)
    LogEntry.objects.bulk_update(changed, ["object_repr", "change_message"], batch_size=500)
    return len(changed)


def _message_redact(message: str, redactor: Redactor) -> str:
    # The admin stores its change messages as JSON (a list of changes); others write text.
    try:
        parsed = json.loads(message)
    except ValueError:
        return redactor.text(message)
    redacted = redactor.value(parsed)
    return message if redacted == parsed else json.dumps(redacted)


def _snapshots_redact(found: traces.Footprint, redactor: Redactor) -> int:
    snapshots = traces.snapshots_naming(found)
    for snapshot in snapshots:
        result = snapshot.result
        result["candidates"] = [
            {**row, "candidate": redactor.replacement} if traces.is_their_row(row, found) else row
            for row in result.get("candidates", [])
        ]
        # update(), not save(): the snapshot keeps its computed_at and watermark.
        CalibrationSnapshot.objects.filter(pk=snapshot.pk).update(result=result)
    return len(snapshots)


def _own_rows_erase(candidate: Candidate, loops: Sequence[Loop], redactor: Redactor) -> None:
    Loop.objects.filter(candidate=candidate).exclude(decision_rationale="").update(
        decision_rationale=ERASED
    )
    interviews = [i for loop in loops for i in loop.interviews.all()]
    titled = [i for i in interviews if redactor.mentions(i.title)]
    for interview in titled:
        interview.title = redactor.text(interview.title)[:120]
    Interview.objects.bulk_update(titled, ["title"], batch_size=500)
    items = [q for i in interviews for q in i.questions.all() if redactor.mentions(q.reason)]
    for item in items:
        item.reason = redactor.text(item.reason)[:300]
    InterviewQuestion.objects.bulk_update(items, ["reason"], batch_size=500)
    cards = Scorecard.objects.filter(interview__loop__candidate=candidate)
    cards.update(summary="")
    QuestionRating.objects.filter(scorecard__in=cards).update(notes="", not_asked_reason="")
    cards_read = [card for i in interviews for card in i.scorecards.all()]
    amendments = [a for card in cards_read for a in card.amendments.all()]
    for amendment in amendments:
        amendment.reason = ERASED
        amendment.before = redactor.value(_without_text(amendment.before), about_them=True)
        amendment.after = redactor.value(_without_text(amendment.after), about_them=True)
    Amendment.objects.bulk_update(amendments, ["reason", "before", "after"], batch_size=500)


def _without_text(card: dict[str, Any]) -> dict[str, Any]:
    ratings = [{**r, "notes": "", "not_asked_reason": ""} for r in card.get("ratings", [])]
    return {**card, "summary": "", "ratings": ratings}
