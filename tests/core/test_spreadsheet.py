"""Safe CSV (core/spreadsheet.py): text a spreadsheet would run as a formula is defused
in every export, numbers stay numbers."""

import csv
import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from core import spreadsheet
from core.models import AuditEvent
from kit.models import Role
from tests.scoring.calibration.helpers import ROLE, import_scorecards, write_csv

HOSTILE_NAME = '=HYPERLINK("http://evil.example","Click")'
HOSTILE_TITLE = "=1+1 sharding"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=SUM(A1)", "'=SUM(A1)"),
        ("+1", "'+1"),
        ("-1+2", "'-1+2"),
        ("@cmd", "'@cmd"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("Ada Byron", "Ada Byron"),
        ("a=b", "a=b"),
        ("", ""),
        (None, ""),
        (-0.42, -0.42),
        (-3, -3),
        (True, "True"),
    ],
)
def test_a_cell_is_defused_only_when_a_spreadsheet_would_run_it(
    value: object, written: object
) -> None:
    assert spreadsheet.cell(value) == written


def test_numbers_stay_numbers_in_the_file() -> None:
    out = io.StringIO()
    spreadsheet.Writer(out).writerow(["=x", -0.5, 3, None])

    assert out.getvalue() == "'=x,-0.5,3,\r\n"


def rows(response) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.mark.django_db
def test_the_calibration_export_defuses_names_and_titles(
    tmp_path: Path, client: Client, lead: User
) -> None:
    people = [f"rater-{n}" for n in range(4)]
    data = [
        (candidate, rater, question, 1 + (c + r + q) % 4)
        for c, candidate in enumerate([HOSTILE_NAME, "Ada Byron", "Alan Kay", "Grace Hopper"])
        for r, rater in enumerate(people)
        for q, question in enumerate([HOSTILE_TITLE, "Serving latency"])
    ]
    import_scorecards(write_csv(tmp_path / "history.csv", data), "--role", ROLE)
    call_command("calibrate", "--role", ROLE, stdout=io.StringIO())
    client.force_login(lead)
    role = Role.objects.get(name=ROLE)

    candidates = rows(
        client.get("/calibration/export.csv", {"role": role.pk, "table": "candidates"})
    )
    questions = rows(client.get("/calibration/export.csv", {"role": role.pk, "table": "questions"}))

    assert "'" + HOSTILE_NAME in [row[0] for row in candidates[1:]]
    assert HOSTILE_NAME not in [row[0] for row in candidates[1:]]
    assert any(row[0].startswith("'=1+1") for row in questions[1:])
    assert not any(row[0].startswith("=") for table in (candidates, questions) for row in table)


@pytest.mark.django_db
def test_the_audit_log_export_defuses_targets_and_details(client: Client, lead: User) -> None:
    AuditEvent.objects.create(
        actor=lead, action="exercise.closed", target="=cmd|' /C calc'!A0", data={"x": "y"}
    )
    client.force_login(lead)

    written = rows(client.get("/audit/?format=csv"))

    assert written[1][3] == "'=cmd|' /C calc'!A0"
    assert written[1][2] == "exercise.closed"
