"""Reads for candidate data rights: everything held about a candidate.

The export holds every row that references the candidate, directly or
through a loop, interview or scorecard (drafts included), each with every
column of its table; foreign keys as ``{"id": ..}`` plus a readable label
where one was read with the row; who first read each loop's other cards
(FeedbackRead). Then what is held about them elsewhere
(see traces): their rows of the latest calibration snapshots, the audit
events and admin log entries that name or target them, the webhook events
about them, and the kept answers to keyed POSTs that show them
(core.api.idempotency: the answer as it was sent, not whose credentials asked).
"""

import datetime
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Prefetch

from core.api.idempotency import IdempotentRequest, idempotent_requests_about
from core.models import AuditEvent
from core.webhooks.selectors import webhook_events_about
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from interviews.pools.models import TrainingSeat
from kit.models import QuestionVersion
from scoring.models import Amendment, FeedbackRead, QuestionRating, Scorecard
from scoring.rights import traces
from scoring.rights.redaction import Redactor


def candidate_loops(*, candidate: Candidate) -> list[Loop]:
    """Return the candidate's loops with their interviews, panels, questions, every
    scorecard (drafts too), ratings, rubric ticks, follow-ups and amendments: nine
    queries, however many rows."""
    ratings = QuestionRating.objects.select_related("version").prefetch_related(
        "checked", "follow_ups_asked"
    )
    cards = Scorecard.objects.select_related("interviewer").prefetch_related(
        Prefetch("ratings", queryset=ratings),
        Prefetch("amendments", queryset=Amendment.objects.select_related("by")),
    )
    interviews = Interview.objects.select_related("slot").prefetch_related(
        Prefetch("panel", queryset=Panelist.objects.select_related("user")),
        Prefetch("training_seats", queryset=TrainingSeat.objects.select_related("signed_off_by")),
        Prefetch(
            "questions", queryset=InterviewQuestion.objects.select_related("question", "version")
        ),
        Prefetch("scorecards", queryset=cards),
    )
    loops = (
        Loop.objects.filter(candidate=candidate)
        .select_related("role", "level", "template", "decided_by", "created_by")
        .prefetch_related(Prefetch("interviews", queryset=interviews))
        .order_by("created_at", "id")
    )
    return list(loops)


def candidate_record(*, candidate: Candidate) -> dict[str, Any]:
    """Return everything held about a candidate, for a data-access request."""
    loops = candidate_loops(candidate=candidate)
    found = traces.footprint(
        candidate=candidate, loops=loops, names=traces.earlier_names(candidate=candidate)
    )
    by_name = Redactor.of(names=found.names, texts=(), replacement="")
    reads: dict[int, list[dict[str, Any]]] = {}
    for read in FeedbackRead.objects.filter(loop__in=loops).select_related("user").order_by("id"):
        reads.setdefault(read.loop_id, []).append(row(read))
    return {
        "candidate": row(candidate),
        "loops": [
            {
                **row(loop),
                "interviews": [_interview(interview) for interview in loop.interviews.all()],
                "feedback_reads": reads.get(loop.pk, []),
            }
            for loop in loops
        ],
        "calibration": _calibration(found),
        "audit_events": [row(event) for event, _ in traces.audit_events(found, by_name)],
        "admin_log": [row(entry) for entry, _ in traces.log_entries(found, by_name)],
        "webhook_events": [
            {
                "event_id": event.event_id,
                "kind": event.kind,
                "created_at": event.created_at.isoformat(),
                "payload": event.payload,
                "details": event.details,
            }
            for event in webhook_events_about(candidate_id=candidate.pk)
        ],
        "kept_answers": [
            _kept_answer(kept)
            for kept in idempotent_requests_about(
                candidate_id=candidate.pk, mentions=by_name.mentions
            )
        ],
    }


def _kept_answer(kept: IdempotentRequest) -> dict[str, Any]:
    # Not the caller and fingerprint: hashes of a colleague's credentials and request.
    return {
        "id": kept.pk,
        "key": kept.key,
        "created_at": kept.created_at.isoformat(),
        "status": kept.status,
        "content_type": kept.content_type,
        "location": kept.location,
        "body": bytes(kept.body).decode("utf-8", "replace"),
    }


def _interview(interview: Interview) -> dict[str, Any]:
    return {
        **row(interview),
        "panel": [row(seat) for seat in interview.panel.all()],
        "training_seats": [row(seat) for seat in interview.training_seats.all()],
        "questions": [row(item) for item in interview.questions.all()],
        "scorecards": [
            {
                **row(card),
                "ratings": [
                    {
                        **row(rating),
                        "checked": [
                            {"id": r.pk, "kind": r.kind, "text": r.text}
                            for r in rating.checked.all()
                        ],
                        "follow_ups_asked": [
                            {"id": f.pk, "text": f.text} for f in rating.follow_ups_asked.all()
                        ],
                    }
                    for rating in card.ratings.all()
                ],
                "amendments": [row(amendment) for amendment in card.amendments.all()],
            }
            for card in interview.scorecards.all()
        ],
    }


def _calibration(found: traces.Footprint) -> list[dict[str, Any]]:
    out = []
    for snapshot in traces.latest_snapshots(found):
        rows = [r for r in snapshot.result.get("candidates", []) if traces.is_their_row(r, found)]
        if rows:
            out.append(
                {
                    "snapshot": snapshot.pk,
                    "scope": snapshot.result.get("scope"),
                    "computed_at": snapshot.computed_at.isoformat(),
                    "rows": rows,
                }
            )
    return out


def row(obj: models.Model) -> dict[str, Any]:
    """Return every column of the row: plain values, times as ISO 8601, foreign keys
    as {"id": ..} with a label when the related row was read with it."""
    out: dict[str, Any] = {}
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if isinstance(f, models.ForeignKey):
            ref = None if value is None else {"id": value}
            # Only what was read with the row: a label must not cost a query.
            if ref is not None and f.is_cached(obj):
                ref.update(_label(getattr(obj, f.name)))
            out[f.name] = ref
        elif isinstance(value, datetime.date):
            out[f.name] = value.isoformat()
        else:
            out[f.name] = value
    return out


def _label(obj: models.Model) -> dict[str, Any]:
    if isinstance(obj, AbstractBaseUser):
        return {"username": obj.get_username()}
    if isinstance(obj, QuestionVersion):
        return {"number": obj.number}
    if isinstance(obj, ContentType):
        return {"name": f"{obj.app_label}.{obj.model}"}
    if isinstance(obj, LogEntry | AuditEvent):
        return {}
    for attr in ("name", "title", "model"):
        if isinstance(getattr(obj, attr, None), str):
            return {attr: getattr(obj, attr)}
    return {}
