"""The export is complete: every row of every table that references the candidate,
directly or through a chain of foreign keys (loop, interview, scorecard, rating...),
is in it with every column; so are the admin log entries about those rows, the
audit events about them and their rows of the latest calibration snapshots.

The tables are found by walking the foreign keys of every model Django knows
(many-to-many tables included), not from a list: a new table that references a
candidate fails this test until the export carries it.
"""

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import models

from core.models import AuditEvent
from interviews.models import Candidate
from scoring.calibration import services as calibration_services
from scoring.models import CalibrationSnapshot
from scoring.rights import selectors
from tests.conftest import client_for
from tests.scoring.rights.seed import Seeded
from tests.support.loops import Built
from tests.support.shared_db import read_again

Rows = dict[type[models.Model], set[Any]]


@pytest.fixture
def seeded(seeded_built_once: Seeded, db: None) -> Seeded:
    """The seeded candidate (tests/scoring/rights/seed.py), built once for the module; each
    test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(seeded_built_once)


def _foreign_keys(model: type[models.Model]) -> "Iterator[models.ForeignKey[Any, Any]]":
    for f in model._meta.concrete_fields:
        if isinstance(f, models.ForeignKey):
            yield f


def referencing_models() -> set[type[models.Model]]:
    """Every model with a chain of foreign keys to Candidate (Candidate included)."""
    found: set[type[models.Model]] = {Candidate}
    grown = True
    while grown:
        grown = False
        for model in apps.get_models(include_auto_created=True):
            if model not in found and any(f.related_model in found for f in _foreign_keys(model)):
                found.add(model)
                grown = True
    return found


def referencing_rows(candidate: Candidate) -> Rows:
    """Every row, in every table, with a chain of foreign keys to the candidate's row."""
    rows: Rows = {Candidate: {candidate.pk}}
    grown = True
    while grown:
        grown = False
        for model in apps.get_models(include_auto_created=True):
            for f in _foreign_keys(model):
                targets = rows.get(f.related_model, set())
                if not targets:
                    continue
                pks = set(
                    model._default_manager.filter(**{f"{f.attname}__in": targets}).values_list(
                        "pk", flat=True
                    )
                )
                if not pks <= rows.get(model, set()):
                    rows.setdefault(model, set()).update(pks)
                    grown = True
    return rows


def exported(value: Any) -> Iterator[dict[str, Any]]:
    """Every object (a dict with an id) anywhere in the export."""
    if isinstance(value, dict):
        if "id" in value:
            yield value
        for inner in value.values():
            yield from exported(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from exported(inner)


def as_exported(obj: models.Model, f: "models.Field[Any, Any]") -> Any:
    value = getattr(obj, f.attname)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def find(record: dict[str, Any], obj: models.Model) -> dict[str, Any]:
    """The export's copy of the row: same id, and a key for each of the table's columns."""
    names = {f.name for f in obj._meta.concrete_fields}
    copies = [o for o in exported(record) if o["id"] == obj.pk and names <= set(o)]
    assert len(copies) == 1, f"{obj._meta.label} {obj.pk} is not in the export"
    return copies[0]


def assert_exported(record: dict[str, Any], obj: models.Model) -> None:
    """The row is in the export with every column as stored (a foreign key as its id)."""
    if obj._meta.auto_created:  # a many-to-many table's row: an id in its owner's list
        owner_fk, target_fk = list(_foreign_keys(type(obj)))
        owner = owner_fk.related_model._default_manager.get(pk=getattr(obj, owner_fk.attname))
        (field,) = [m for m in owner._meta.many_to_many if m.remote_field.through is type(obj)]
        listed = [o["id"] for o in find(record, owner)[field.name]]
        assert getattr(obj, target_fk.attname) in listed, f"{obj._meta.label} {obj.pk}"
        return
    copy = find(record, obj)
    for f in obj._meta.concrete_fields:
        value = copy[f.name]
        if isinstance(f, models.ForeignKey):
            value = None if value is None else value["id"]
        assert value == as_exported(obj, f), f"{obj._meta.label} {obj.pk} {f.name}"


def test_every_row_referencing_the_candidate_is_exported_with_every_column(
    seeded: Seeded, recruiter: User
) -> None:
    rows = referencing_rows(seeded.candidate)
    # The seed has rows in every table that can reference a candidate, so none is untested.
    assert set(rows) == referencing_models()
    assert all(rows.values())

    response = client_for(recruiter).get(f"/api/v1/candidates/{seeded.candidate.pk}/export/")

    assert response.status_code == 200
    record = response.json()
    for model, pks in rows.items():
        for obj in model._default_manager.filter(pk__in=pks):
            assert_exported(record, obj)


def test_the_export_holds_their_log_entries_audit_events_and_calibration_rows(
    seeded: Seeded, recruiter: User
) -> None:
    rows = referencing_rows(seeded.candidate)
    types = ContentType.objects.get_for_models(*rows)
    about = [
        entry
        for model, pks in rows.items()
        for entry in LogEntry.objects.filter(
            content_type=types[model], object_id__in=[str(pk) for pk in pks]
        )
    ]
    name, loop = seeded.name, seeded.loop

    record = selectors.candidate_record(candidate=seeded.candidate)

    assert len(about) == 2
    for entry in about:
        assert_exported(record, entry)
    assert seeded.control_entry.pk not in {e["id"] for e in record["admin_log"]}
    events = (
        AuditEvent.objects.exclude(pk=seeded.control_event.pk)
        .exclude(action__startswith="webhook.")  # the ATS's subscription: not about them
        .order_by("at", "pk")
    )
    assert [e["action"] for e in record["audit_events"]] == [
        "scorecard.amended", "loop.decided", "candidate.exported", "loop.noted",
        "loop.decided", "scorecard.amended",  # as written before targets went by id
    ]  # fmt: skip
    for event in events:
        assert_exported(record, event)
    assert events.get(action="loop.decided", pk__in=[e.pk for e in seeded.legacy_events])
    assert name in seeded.legacy_events[0].target
    assert str(loop.pk) in events.get(action="loop.noted").target
    # Their row of the newest snapshot of each scope their loop is in (all levels, L5).
    latest = {
        (s.role_id, s.level_id): s for s in CalibrationSnapshot.objects.order_by("computed_at")
    }
    assert {(r["snapshot"], r["scope"]["level"]) for r in record["calibration"]} == {
        (s.pk, s.level.name if s.level else None) for s in latest.values()
    }
    for entry in record["calibration"]:
        snapshot = CalibrationSnapshot.objects.get(pk=entry["snapshot"])
        assert entry["rows"] == [r for r in snapshot.result["candidates"] if r["candidate"] == name]
        assert entry["rows"] and entry["rows"][0]["ratings"] > 0


def test_the_export_names_what_it_refers_to(seeded: Seeded) -> None:
    record = selectors.candidate_record(candidate=seeded.candidate)

    loop = record["loops"][0]
    assert loop["decided_by"] == {"id": seeded.loop.decided_by_id, "username": "rita"}
    assert loop["role"]["name"] == seeded.loop.role.name
    interview = loop["interviews"][0]
    assert interview["scheduled_end"] == seeded.interviews[0].scheduled_end.isoformat()
    assert {seat["user"]["username"] for seat in interview["panel"]} == {"ines", "pia", "sam"}
    drafts = [c for i in loop["interviews"] for c in i["scorecards"] if c["status"] == "draft"]
    assert [c["interviewer"]["username"] for c in drafts] == ["ines"]
    rating = interview["scorecards"][0]["ratings"][0]
    assert rating["checked"] and all({"id", "kind", "text"} == set(r) for r in rating["checked"])
    assert rating["follow_ups_asked"] and all("text" in f for f in rating["follow_ups_asked"])
    (amendment,) = [a for c in interview["scorecards"] for a in c["amendments"]]
    assert amendment["by"]["username"] == "pia"
    assert amendment["reason"].endswith("misread my notes")
    assert amendment["before"]["summary"] != amendment["after"]["summary"]
    assert [r["user"]["username"] for r in loop["feedback_reads"]] == ["pia"]


def test_the_export_reads_with_a_fixed_number_of_queries(
    sized: dict[int, Built], recruiter: User, django_assert_max_num_queries: Any
) -> None:
    small, large = (sized[n].loop.candidate for n in (2, 6))
    for built in sized.values():
        calibration_services.calibration_run_now(role=built.loop.role)
    selectors.candidate_record(candidate=small)  # content types cached, as in a running site

    # A fresh user each time: the recruiter check caches its groups on the instance.
    clients = [client_for(User.objects.get(pk=recruiter.pk)) for _ in range(2)]

    # 1 the recruiter check (groups), 2 the candidate, 3 loops (role, level, template,
    # deciders), 4 interviews (slot), 5 panels (users), 5b trainees' seats (signers),
    # 6 questions (question, version),
    # 7 scorecards (interviewers), 8 ratings (version), 9 rubric ticks, 10 follow-ups
    # asked, 11 amendments (by), 12 earlier names (admin log), 13 who read the cards,
    # 14 snapshot ids of the scopes, 15 those snapshots, 16 audit events, 17 admin log
    # entries, 18 webhook events about them, 19 kept answers to keyed POSTs, 20 the
    # export's audit event.
    with django_assert_max_num_queries(21) as large_queries:
        response = clients[0].get(f"/api/v1/candidates/{large.pk}/export/")
    assert response.status_code == 200
    with django_assert_max_num_queries(21) as small_queries:
        clients[1].get(f"/api/v1/candidates/{small.pk}/export/")
    assert len(large_queries) == len(small_queries) == 21
    body = response.json()
    cards = [c for i in body["loops"][0]["interviews"] for c in i["scorecards"]]
    assert len(cards) == 6 and sum(len(c["ratings"]) for c in cards) == 24
    assert len(body["calibration"]) == 2
