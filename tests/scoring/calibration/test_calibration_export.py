"""The calibration CSV export: its tables, the audit of each export, who may."""

import csv
import io

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.models import AuditEvent
from kit.models import Level
from scoring.calibration.views import EXPORT_COLUMNS
from tests.scoring.calibration.conftest import PANEL, Calibrated
from tests.scoring.calibration.helpers import ROLE
from tests.scoring.calibration.pages import signed_in

EXPORT = "/calibration/export.csv"


def rows_of(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode())))


def test_a_lead_exports_the_interviewers_table_and_the_export_is_audited(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    signed_in(client, lead)

    response = client.get(EXPORT, {"role": calibrated.role.pk, "table": "interviewers"})

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="calibration-ai-infrastructure-engineer-all-interviewers.csv"'
    )
    rows = rows_of(response.content)
    assert rows[0] == EXPORT_COLUMNS["interviewers"]
    assert sorted(row[0] for row in rows[1:]) == sorted(PANEL)
    lenient = next(row for row in rows[1:] if row[0] == "rater-x")
    source = next(
        r for r in calibrated.snapshot.result["interviewers"] if r["interviewer"] == "rater-x"
    )
    cell = dict(zip(rows[0], lenient, strict=True))
    lo, hi = source["severity_shrunk_ci"]
    # One number per cell, every digit the snapshot holds.
    assert [
        cell["severity_shrunk"],
        cell["severity_shrunk_ci_low"],
        cell["severity_shrunk_ci_high"],
    ] == [str(source["severity_shrunk"]), str(lo), str(hi)]
    assert [cell["leniency"], cell["copanelist_gap"]] == [
        str(source["leniency"]),
        str(source["copanelist_gap"]),
    ]
    # The period the row describes, and (none here: one year of ratings) no change.
    assert [cell["period_start"], cell["period_end"]] == [
        source["period"]["start"],
        source["period"]["end"],
    ]
    assert [cell["severity_previous"], cell["severity_change"]] == ["", ""]
    assert cell["separable"] == "True" and cell["flag"] == "lenient"
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target) == (
        lead,
        "calibration.exported",
        f"{ROLE} all levels",
    )
    assert event.data == {"table": "interviewers", "snapshot": calibrated.snapshot.pk}


@pytest.mark.parametrize(("table", "count"), [("questions", 2), ("candidates", 10)])
def test_a_lead_exports_the_questions_and_candidates_tables(
    table: str, count: int, client: Client, lead: User, calibrated: Calibrated
) -> None:
    level = Level.objects.get(name="L5")
    signed_in(client, lead)

    response = client.get(EXPORT, {"role": calibrated.role.pk, "level": level.pk, "table": table})

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="calibration-ai-infrastructure-engineer-l5-{table}.csv"'
    )
    rows = rows_of(response.content)
    assert rows[0] == EXPORT_COLUMNS[table]
    assert len(rows) == 1 + count
    if table == "questions":
        source = calibrated.level_snapshot.result["questions"][0]
        exposure = source["exposure"]
        row = next(r for r in rows[1:] if r[0] == source["question"])
        assert row[6:8] == [str(exposure["last_30_days"]), str(exposure["last_90_days"])]
    assert AuditEvent.objects.get().data == {
        "table": table,
        "snapshot": calibrated.level_snapshot.pk,
    }


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_export(
    persona: str, request: pytest.FixtureRequest, client: Client, calibrated: Calibrated
) -> None:
    signed_in(client, request.getfixturevalue(persona))

    response = client.get(EXPORT, {"role": calibrated.role.pk, "table": "interviewers"})

    assert response.status_code == 404
    assert not AuditEvent.objects.exists()


def test_an_unknown_table_or_a_scope_without_snapshot_is_a_404(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    signed_in(client, lead)
    l3 = Level.objects.get(name="L3")

    assert client.get(EXPORT, {"role": calibrated.role.pk, "table": "salaries"}).status_code == 400
    assert client.get(EXPORT, {"role": calibrated.role.pk, "level": l3.pk}).status_code == 404
    assert not AuditEvent.objects.exists()
