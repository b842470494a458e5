"""Reads of what is held about a candidate outside their own rows.

Audit events, admin log entries and calibration snapshots copy a candidate's
name (``str(loop)`` starts with it) and sometimes free text (an amendment's
reason). None of them has a foreign key to the candidate, so they are found
by what they say:

* an audit event is about the candidate when its target or data names them,
  its target reads ``candidate <id>`` (or loop, interview, scorecard,
  amendment with one of theirs), or its data carries one of those ids under
  that key (``{"loop": 12}``) or as the admin's events do
  (``{"model": "interviews.loop", "id": 12}``);
* an admin log entry is about them when it is about one of their rows
  (content type and object id) or names them;
* a snapshot row is theirs when its ``candidate_id`` is theirs or, in rows
  stored without ids, its ``candidate`` is their name.

Each search first narrows the table in the database with substring filters
(in every form the text takes in a column, see redaction.needles), then
checks each row found exactly.
"""

import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, TypeVar

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection, models
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from core.models import AuditEvent
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from scoring.models import Amendment, CalibrationSnapshot, QuestionRating, Scorecard
from scoring.rights.redaction import Redactor, needles

M = TypeVar("M", bound=models.Model)
# Substring filters per query: SQLite parses a chain of ORs as a tree as deep as it
# is long, and refuses one deeper than 1,000.
TERMS_PER_QUERY = 200
TARGET_KINDS = ("candidate", "loop", "interview", "scorecard", "amendment")
TARGET_ID = re.compile(rf"\b({'|'.join(TARGET_KINDS)}) (\d+)\b")


@dataclass
class Footprint:
    """A candidate's rows by kind (ids), and the names they were known by."""

    candidate: int
    names: tuple[str, ...]
    ids: dict[str, set[int]] = field(default_factory=dict)
    scopes: set[tuple[int, int | None]] = field(default_factory=set)

    @property
    def roles(self) -> set[int]:
        return {role for role, _ in self.scopes}

    def owns(self, kind: str, pk: object) -> bool:
        return isinstance(pk, int) and pk in self.ids.get(kind, set())


ROW_MODELS: dict[str, type[models.Model]] = {
    "candidate": Candidate, "loop": Loop, "interview": Interview, "panelist": Panelist,
    "interviewquestion": InterviewQuestion, "scorecard": Scorecard,
    "questionrating": QuestionRating, "amendment": Amendment,
}  # fmt: skip
KIND_OF_LABEL = {model._meta.label_lower: kind for kind, model in ROW_MODELS.items()}


def footprint(
    *, candidate: Candidate, loops: Sequence[Loop], names: Iterable[str] = ()
) -> Footprint:
    """Return the candidate's rows by kind, from their loops as selectors.candidate_loops
    reads them (no query)."""
    found = Footprint(candidate=candidate.pk, names=tuple(dict.fromkeys([candidate.name, *names])))
    ids: dict[str, set[int]] = {kind: set() for kind in ROW_MODELS}
    ids["candidate"].add(candidate.pk)
    for loop in loops:
        ids["loop"].add(loop.pk)
        found.scopes |= {(loop.role_id, None), (loop.role_id, loop.level_id)}
        for interview in loop.interviews.all():
            ids["interview"].add(interview.pk)
            ids["panelist"].update(seat.pk for seat in interview.panel.all())
            ids["interviewquestion"].update(item.pk for item in interview.questions.all())
            for card in interview.scorecards.all():
                ids["scorecard"].add(card.pk)
                ids["questionrating"].update(r.pk for r in card.ratings.all())
                ids["amendment"].update(a.pk for a in card.amendments.all())
    found.ids = ids
    return found


def earlier_names(*, candidate: Candidate) -> list[str]:
    """Return the names admin log entries knew the candidate by (their object_repr)."""
    entries = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Candidate), object_id=str(candidate.pk)
    )
    return sorted(set(entries.values_list("object_repr", flat=True)) - {""})


def _contains(fields: Sequence[str], texts: Iterable[str]) -> list[Q]:
    return [Q(**{f"{f}__contains": n}) for t in texts for n in sorted(needles(t)) for f in fields]


def _matching(queryset: models.QuerySet[M], terms: list[Q]) -> list[M]:
    """Return the rows matching any of the terms, in as few queries as SQLite allows."""
    if not terms:
        return []
    if len(terms) <= TERMS_PER_QUERY:
        return list(queryset.filter(reduce(operator.or_, terms)))
    pks: set[int] = set()
    for start in range(0, len(terms), TERMS_PER_QUERY):
        chunk = reduce(operator.or_, terms[start : start + TERMS_PER_QUERY])
        pks.update(queryset.filter(chunk).values_list("pk", flat=True))
    return list(queryset.filter(pk__in=pks))


def _audit_terms(found: Footprint) -> list[Q]:
    terms: list[Q] = []
    for kind, model in ROW_MODELS.items():
        ids = sorted(found.ids.get(kind, ()))
        if not ids:
            continue
        terms += [Q(**{f"data__{kind}__in": ids}), Q(**{f"data__{kind}_id__in": ids})]
        # The admin's events: {"model": "interviews.loop", "id": 12, ...}.
        terms.append(Q(data__model=model._meta.label_lower, data__id__in=ids))
        if kind in TARGET_KINDS:
            terms += [Q(target__contains=f"{kind} {pk}") for pk in ids]
    return terms


def _is_about(event: AuditEvent, found: Footprint, by_name: Redactor) -> bool:
    """Whether the event names the candidate or one of their rows (not only their text)."""
    data = event.data if isinstance(event.data, dict) else {}
    if any(found.owns(kind, data.get(kind, data.get(f"{kind}_id"))) for kind in ROW_MODELS):
        return True
    labelled = KIND_OF_LABEL.get(str(data.get("model", "")))
    if labelled is not None and found.owns(labelled, data.get("id")):
        return True
    if any(found.owns(kind, int(pk)) for kind, pk in TARGET_ID.findall(event.target)):
        return True
    return by_name.mentions(event.target) or by_name.mentions(event.data)


def audit_events(found: Footprint, redactor: Redactor) -> list[tuple[AuditEvent, bool]]:
    """Return each audit event about the candidate or quoting their text, and which it is.

    The redactor's names and texts are searched for; pass one with names only
    for the events that name or target them.
    """
    events = AuditEvent.objects.select_related("actor").annotate(
        data_text=Cast("data", TextField())
    )
    terms = _audit_terms(found) + _contains(["target", "data_text"], redactor.searched)
    by_name = Redactor.of(names=found.names, texts=(), replacement=redactor.replacement)
    out: list[tuple[AuditEvent, bool]] = []
    for event in sorted(_matching(events, terms), key=lambda e: (e.at, e.pk)):
        about = _is_about(event, found, by_name)
        if about or redactor.mentions(event.target) or redactor.mentions(event.data):
            out.append((event, about))
    return out


def log_entries(found: Footprint, redactor: Redactor) -> list[tuple[LogEntry, bool]]:
    """Return each admin log entry about one of the candidate's rows or quoting them."""
    types = ContentType.objects.get_for_models(*ROW_MODELS.values())
    terms = [
        Q(content_type=types[model], object_id__in=[str(pk) for pk in found.ids.get(kind, ())])
        for kind, model in ROW_MODELS.items()
        if found.ids.get(kind)
    ]
    terms += _contains(["object_repr", "change_message"], redactor.searched)
    entries = LogEntry.objects.select_related("user", "content_type")
    out = []
    for entry in sorted(_matching(entries, terms), key=lambda e: (e.action_time, e.pk)):
        kind = entry.content_type.model if entry.content_type else ""
        about = kind in ROW_MODELS and found.owns(kind, _int(entry.object_id))
        if about or redactor.mentions(entry.object_repr) or redactor.mentions(entry.change_message):
            out.append((entry, about))
    return out


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def is_their_row(row: dict[str, Any], found: Footprint) -> bool:
    """Whether a snapshot's candidate row is theirs: by id if stored, else by name."""
    if "candidate_id" in row:
        return bool(row["candidate_id"] == found.candidate)
    return row.get("candidate") in found.names


def snapshots_naming(found: Footprint) -> list[CalibrationSnapshot]:
    """Return the stored snapshots with a candidate row of theirs (the result read)."""
    if not found.roles:
        return []
    snapshots = CalibrationSnapshot.objects.filter(role__in=sorted(found.roles))
    if connection.vendor == "postgresql":
        # jsonb containment, in the database, without printing megabytes as text.
        wanted = [{"candidate_id": found.candidate}] + [{"candidate": n} for n in found.names]
        terms = [Q(result__candidates__contains=[row]) for row in wanted]
    else:
        snapshots = snapshots.annotate(result_text=Cast("result", TextField()))
        terms = _contains(["result_text"], [*found.names, f'"candidate_id": {found.candidate}'])
    return [
        s
        for s in _matching(snapshots, terms)
        if any(is_their_row(row, found) for row in s.result.get("candidates", []))
    ]


def latest_snapshots(found: Footprint) -> list[CalibrationSnapshot]:
    """Return the newest snapshot of each scope the candidate's loops are in (two queries)."""
    newest: dict[tuple[int, int | None], int] = {}
    stored = CalibrationSnapshot.objects.filter(role__in=sorted(found.roles)).order_by(
        "-computed_at", "-id"
    )
    for pk, role, level in stored.values_list("pk", "role_id", "level_id"):
        if (role, level) in found.scopes:
            newest.setdefault((role, level), pk)
    if not newest:
        return []
    picked = CalibrationSnapshot.objects.filter(pk__in=newest.values()).select_related(
        "role", "level"
    )
    return sorted(picked, key=lambda s: (s.role_id, s.level_id or 0))
