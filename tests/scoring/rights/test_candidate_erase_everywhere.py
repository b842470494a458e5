"""Erasure erases: after it, no column of any table holds the candidate's name or
any free text written about them, and every copy that was redacted is still there.

The scan reads every column of every table the database has (Django's, the
admin's, sessions, axes, tokens: connection.introspection lists them all), so a
copy nobody thought of shows up as a hit.
"""

import csv
import io
import json
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from core.audit.services import audit_event_record
from core.models import AuditEvent
from scoring.calibration import services as calibration_services
from scoring.models import CalibrationSnapshot, QuestionRating, Scorecard
from scoring.rights import traces
from scoring.rights.redaction import ERASED
from tests.conftest import client_for
from tests.scoring.rights.seed import MARK, Seeded
from tests.support.shared_db import read_again


@pytest.fixture
def seeded(seeded_built_once: Seeded, db: None) -> Seeded:
    """The seeded candidate (tests/scoring/rights/seed.py), built once for the module; each
    test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(seeded_built_once)


def _text(value: Any) -> str:
    if isinstance(value, memoryview | bytes):
        return bytes(value).decode("utf-8", "ignore")
    if isinstance(value, dict | list):  # jsonb, as psycopg returns it
        return json.dumps(value, ensure_ascii=False)
    return value if isinstance(value, str) else ""


def marker_hits(mark: str = MARK) -> dict[str, set[str]]:
    """Return {table: columns} of every column, in every table, holding `mark` (any case)."""
    hits: dict[str, set[str]] = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            columns = [c[0] for c in cursor.description]
            for values in cursor.fetchall():
                for column, value in zip(columns, values, strict=True):
                    if mark in _text(value).lower():
                        hits.setdefault(table, set()).add(column)
    return hits


def kept(model: type[AuditEvent] | type[LogEntry]) -> list[tuple[Any, ...]]:
    """Who did what when: what redaction must leave as it was."""
    if model is AuditEvent:
        return list(AuditEvent.objects.order_by("pk").values_list("pk", "actor", "at", "action"))
    return list(
        LogEntry.objects.order_by("pk").values_list(
            "pk", "user", "action_time", "action_flag", "content_type", "object_id"
        )
    )


def test_the_scan_finds_the_marker_wherever_the_seed_put_it(seeded: Seeded) -> None:
    # The control: without it, a scan that reads nothing would pass the test below.
    hits = marker_hits()

    assert hits == {
        "interviews_candidate": {"name", "email", "phone", "notes"},
        "interviews_loop": {"decision_rationale"},
        "interviews_trainingseat": {"note"},
        "scoring_scorecard": {"summary"},
        "scoring_questionrating": {"notes", "not_asked_reason"},
        "scoring_amendment": {"reason", "before", "after"},
        "scoring_auditevent": {"target", "data"},
        "django_admin_log": {"object_repr", "change_message"},
        "scoring_calibrationsnapshot": {"result"},
        "core_webhookevent": {"details"},  # sent to a subscription allowed the details
        "core_idempotentrequest": {"body"},  # the keyed decision's kept answer
        # The panel's invites and the decision's emails, queued (the seed never commits).
        "core_outgoingemail": {"subject", "text", "html", "ics"},
    }


def test_erasing_leaves_the_marker_in_no_column_of_any_table(
    seeded: Seeded, recruiter: User
) -> None:
    events, entries = kept(AuditEvent), kept(LogEntry)
    legacy = [event.pk for event in seeded.legacy_events]
    ratings = sorted(QuestionRating.objects.values_list("pk", "rating", "not_asked"))
    candidate = seeded.candidate

    response = client_for(recruiter).post(f"/api/v1/candidates/{candidate.pk}/erase/")

    assert response.status_code == 200
    assert marker_hits() == {}
    # Every event and log entry is still there, with its actor, time and action.
    erased = AuditEvent.objects.get(action="candidate.erased")
    assert kept(AuditEvent) == [*events, (erased.pk, recruiter.pk, erased.at, erased.action)]
    assert kept(LogEntry) == entries
    assert sorted(QuestionRating.objects.values_list("pk", "rating", "not_asked")) == ratings
    # Today's events name the loop and the card by id; their free text goes.
    decided, amended = (
        AuditEvent.objects.filter(action=action).exclude(pk__in=legacy).get()
        for action in ("loop.decided", "scorecard.amended")
    )
    assert decided.target == f"loop {seeded.loop.pk}"
    assert amended.target.startswith("scorecard ") and amended.data["reason"] == ERASED
    # Older ones named them by text: they read as what happened, to the erased candidate.
    old_decided, old_amended = AuditEvent.objects.filter(pk__in=legacy).order_by("pk")
    assert old_decided.target.startswith(f"Erased candidate {candidate.pk} · ")
    assert f"(Erased candidate {candidate.pk} · " in old_amended.target
    assert old_amended.data["reason"] == ERASED
    assert LogEntry.objects.get(object_id=str(candidate.pk), content_type__model="candidate")
    assert erased.data == {
        "audit_events": 4,
        "admin_log": 2,
        "snapshots": 2,
        "webhook_events": 6,  # four cards submitted, one amended, the decision
        "idempotent_requests": 1,  # the keyed decision's kept answer
        "unsent_emails": 9,  # every email about the candidate's loop not sent yet
    }


def test_an_event_naming_only_their_loop_loses_its_free_text(
    seeded: Seeded, recruiter: User
) -> None:
    event = seeded.id_only_event
    assert event.data == {"notes": "Seen"}  # too short to search for, but it is about them

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    event.refresh_from_db()
    assert (event.target, event.data) == (f"loop {seeded.loop.pk}", {"notes": ERASED})


def test_an_admin_event_about_one_of_their_rows_loses_its_free_text(
    seeded: Seeded, recruiter: User, lead: User
) -> None:
    # The admin's events name the row by model and id (core.admin.AuditedAdmin).
    card = Scorecard.objects.filter(interview__loop=seeded.loop).order_by("pk").first()
    assert card is not None
    event = audit_event_record(
        actor=lead, action="admin.changed", target="scorecard", model="scoring.scorecard",
        id=card.pk, summary="Fine → Good", recommendation="no → yes",
    )  # fmt: skip

    at = event.at

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    event.refresh_from_db()
    assert (event.actor, event.action, event.at) == (lead, "admin.changed", at)
    assert event.data == {
        "model": "scoring.scorecard", "id": card.pk,
        "summary": ERASED, "recommendation": "no → yes",
    }  # fmt: skip


def test_records_about_others_are_left_as_they_were(seeded: Seeded, recruiter: User) -> None:
    event, entry = seeded.control_event, seeded.control_entry
    before = (event.target, event.data, entry.object_repr, entry.change_message)

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    event.refresh_from_db()
    entry.refresh_from_db()
    assert (event.target, event.data, entry.object_repr, entry.change_message) == before


def test_the_calibration_page_api_and_csv_no_longer_show_the_name(
    seeded: Seeded, recruiter: User, lead: User, client: Client
) -> None:
    role = seeded.loop.role
    client.force_login(lead)
    api = client_for(lead)
    page = f"/calibration/?role={role.pk}"
    latest = f"/api/v1/calibration/latest/?role={role.name}"
    export = f"/calibration/export.csv?role={role.pk}&table=candidates"
    history = f"/api/v1/calibration/history/?role={role.name}"
    for shown in (client.get(page).content, api.get(latest).content, client.get(export).content):
        assert MARK.encode() in shown.lower()  # the control
    stored = {s.pk: s.result for s in CalibrationSnapshot.objects.all()}

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    gone = f"Erased candidate {seeded.candidate.pk}"
    assert MARK not in client.get(page).content.decode().lower()
    assert gone in client.get(page).content.decode()
    body = api.get(latest).json()
    assert [row["candidate"] for row in body["candidates"]] == [gone]
    assert MARK not in json.dumps(api.get(history).json()).lower()
    rows = list(csv.reader(io.StringIO(client.get(export).content.decode())))
    assert [row[0] for row in rows[1:]] == [gone]
    # The figures are untouched: only the name changed, in place, in every snapshot.
    for snapshot in CalibrationSnapshot.objects.all():
        before = stored.pop(snapshot.pk)
        renamed = [{**row, "candidate": gone} for row in before["candidates"]]
        assert snapshot.result == {**before, "candidates": renamed}
    assert stored == {}
    # A recalculation finds the same inputs and stores nothing new, nor brings the name back.
    calibration_services.calibration_run_now(role=seeded.loop.role)
    assert CalibrationSnapshot.objects.count() == 2
    assert MARK not in client.get(page).content.decode().lower()


def test_erasing_refused_writes_nothing(seeded: Seeded, recruiter: User) -> None:
    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")
    events, entries = list(AuditEvent.objects.values()), list(LogEntry.objects.values())
    snapshots = list(CalibrationSnapshot.objects.values())

    response = client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    assert response.status_code == 409
    assert list(AuditEvent.objects.values()) == events
    assert list(LogEntry.objects.values()) == entries
    assert list(CalibrationSnapshot.objects.values()) == snapshots


def test_many_free_texts_are_searched_in_several_queries(
    seeded: Seeded, recruiter: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite refuses an OR chain deeper than 1,000 terms, so the search splits them;
    # a small split here takes that path with the seed's few dozen texts.
    monkeypatch.setattr(traces, "TERMS_PER_QUERY", 3)

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    assert marker_hits() == {}
    assert AuditEvent.objects.get(action="candidate.erased").data["audit_events"] == 4
