"""Writes for candidate data rights: the audited export and erasure."""

import json
from collections.abc import Callable, Iterator
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.db import models, transaction
from django.utils import timezone

from core.api.exceptions import Conflict
from core.api.idempotency import idempotent_requests_about_delete
from core.audit.services import audit_event_record as audit
from core.models import AuditEvent
from core.outbox.services import emails_about_loops_delete
from core.webhooks.services import webhook_event_details_erase
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from scoring.models import Amendment, CalibrationSnapshot
from scoring.rights import inventory, selectors, traces
from scoring.rights.inventory import Treatment
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

    1. in their own rows (every table with a chain of foreign keys to them),
       each text column as inventory.OWN_ROWS says: name, contact details and
       notes; scorecard summaries (drafts too), rating notes and not-asked
       reasons; decision rationales and cancel reasons; the loop's warnings;
       why each question was picked or swapped in; amendment reasons and their
       before/after copies of the text; interview titles go back to their slot's;
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
    # Their loops before any of their rows below: a cancel or an interview's removal
    # locks the loop first too, so none of them waits on a row this erasure holds.
    list(Loop.objects.select_for_update().filter(candidate=candidate).values_list("pk"))
    loops = selectors.candidate_loops(candidate=candidate)
    found = traces.footprint(
        candidate=candidate, loops=loops, names=traces.earlier_names(candidate=candidate)
    )
    texts = _free_texts(candidate)
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
    _own_rows_erase(candidate, redactor)
    Candidate.objects.filter(pk=candidate.pk).update(erased_at=timezone.now())
    candidate.refresh_from_db()
    audit(actor=by, action="candidate.erased", target=f"candidate {candidate.pk}", **copies)
    return candidate


def _own_rows() -> Iterator[tuple[type[models.Model], str, dict[str, inventory.Column]]]:
    """Yield each table of the candidate's own rows, its lookup to them and its columns.

    Questions of their interviews come before the interviews and scorecards: a swap
    locks its item first, then the interview and its cards, so an erasure that
    changes them in the same order (their loops locked before all) cannot deadlock
    with it.
    """
    paths = inventory.own_row_paths()
    for model in sorted(paths, key=lambda m: m is not InterviewQuestion):
        yield model, paths[model], inventory.OWN_ROWS[model._meta.label]


def _free_texts(candidate: Candidate) -> Iterator[str]:
    """Yield every free text held about the candidate (the inventory's searched
    columns of their own rows), to find where it was copied."""
    for model, path, columns in _own_rows():
        searched = [name for name, column in columns.items() if column.searched]
        if not searched:
            continue
        rows = model._default_manager.filter(**{path: candidate.pk})
        if model is Interview:
            rows = rows.select_related("slot")
        for row in rows:
            for name in searched:
                value = getattr(row, name)
                if isinstance(row, Interview) and value == _slot_title(row):
                    continue  # the template's words, not theirs
                if isinstance(value, str):
                    yield value
                else:
                    yield from _texts_in(value)


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


Rows = models.QuerySet[Any]


def _own_rows_erase(candidate: Candidate, redactor: Redactor) -> None:
    """Treat each text column of their own rows as the inventory says: ERASED ones
    here, REWRITTEN ones by their step (REWRITES)."""
    for model, path, columns in _own_rows():
        rows = model._default_manager.filter(**{path: candidate.pk})
        for name, column in columns.items():
            if column.treatment is Treatment.ERASED:
                # Blank text stays blank: "(erased)" says there was something.
                changed = rows.exclude(**{name: ""}) if column.to == ERASED else rows
                changed.update(**{name: column.to})
            elif column.treatment is Treatment.REWRITTEN:
                REWRITES[(model._meta.label, name)](rows, redactor)


def _name_replace(rows: Rows, redactor: Redactor) -> None:
    rows.update(name=redactor.replacement)


def _slot_title(interview: Interview) -> str:
    return interview.slot.title if interview.slot is not None else f"Interview {interview.order}"


def _interview_titles_reset(rows: Rows, redactor: Redactor) -> None:
    changed = [i for i in rows.select_related("slot") if i.title != _slot_title(i)]
    for interview in changed:
        interview.title = _slot_title(interview)
    Interview.objects.bulk_update(changed, ["title"], batch_size=500)


def _amendment_copies_rewrite(name: str) -> Callable[[Rows, Redactor], None]:
    def rewrite(rows: Rows, redactor: Redactor) -> None:
        amendments = list(rows)
        for amendment in amendments:
            copy = _without_text(getattr(amendment, name))
            setattr(amendment, name, redactor.value(copy, about_them=True))
        Amendment.objects.bulk_update(amendments, [name], batch_size=500)

    return rewrite


# The step that rewrites each REWRITTEN column (tests/scoring/rights/test_inventory.py
# checks there is one for each).
REWRITES: dict[tuple[str, str], Callable[[Rows, Redactor], None]] = {
    ("interviews.Candidate", "name"): _name_replace,
    ("interviews.Interview", "title"): _interview_titles_reset,
    ("scoring.Amendment", "before"): _amendment_copies_rewrite("before"),
    ("scoring.Amendment", "after"): _amendment_copies_rewrite("after"),
}


def _without_text(card: dict[str, Any]) -> dict[str, Any]:
    ratings = [{**r, "notes": "", "not_asked_reason": ""} for r in card.get("ratings", [])]
    return {**card, "summary": "", "ratings": ratings}
