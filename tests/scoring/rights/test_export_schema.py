"""The OpenAPI schema of a candidate's export and erasure describes the real answers.

The seeded candidate (seed.py) has a row in every table the export reads, so the
export touches every component; each answer is validated with undescribed keys
refused (tests/scoring/response_schema.py): a column added to one of those tables
fails here until the schema describes it.
"""

from typing import Any

import pytest
from django.contrib.auth.models import User

from core.api.openapi import OPTIONAL
from scoring.rights.schema import ERASURE_EXAMPLE, EXPORT_EXAMPLE
from tests.conftest import client_for
from tests.scoring.response_schema import (
    components,
    errors,
    free_spots,
    reachable,
    response_schema,
)
from tests.scoring.rights.seed import Seeded
from tests.support.shared_db import read_again

EXPORT = "CandidateExport"
ERASURE = "CandidateErasure"


@pytest.fixture
def seeded(seeded_built_once: Seeded, db: None) -> Seeded:
    """The seeded candidate (tests/scoring/rights/seed.py), built once for the module; each
    test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(seeded_built_once)


def export(user: User, pk: int) -> dict[str, Any]:
    response = client_for(user).get(f"/api/v1/candidates/{pk}/export/")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def erase(user: User, pk: int) -> dict[str, Any]:
    response = client_for(user).post(f"/api/v1/candidates/{pk}/erase/")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_it_documents_the_export_and_the_erasure_as_named_components() -> None:
    exported = response_schema("/candidates/{id}/export/", "get")
    assert exported["schema"] == {"$ref": f"#/components/schemas/{EXPORT}"}
    assert list(exported["examples"]) == ["Export"]
    erased = response_schema("/candidates/{id}/erase/", "post")
    assert erased["schema"] == {"$ref": f"#/components/schemas/{ERASURE}"}
    assert list(erased["examples"]) == ["Erased"]


def test_a_candidates_export_matches_the_schema(recruiter: User, seeded: Seeded) -> None:
    body = export(recruiter, seeded.candidate.pk)
    # Every part of the schema is exercised: amendments, reads, snapshots, both logs.
    cards = [card for i in body["loops"][0]["interviews"] for card in i["scorecards"]]
    assert any(card["amendments"] for card in cards)
    assert body["loops"][0]["feedback_reads"]
    assert body["calibration"] and body["audit_events"] and body["admin_log"]
    assert body["kept_answers"]  # the keyed decision's answer
    assert errors(EXPORT, body) == []


def test_an_erased_candidates_export_matches_it_too(recruiter: User, seeded: Seeded) -> None:
    erase(recruiter, seeded.candidate.pk)
    assert errors(EXPORT, export(recruiter, seeded.candidate.pk)) == []


def test_the_erase_answer_matches_the_schema(recruiter: User, seeded: Seeded) -> None:
    body = erase(recruiter, seeded.candidate.pk)
    assert set(body) == {"id", "name", "erased_at"}
    assert errors(ERASURE, body) == []


def test_an_undescribed_column_fails_validation(recruiter: User, seeded: Seeded) -> None:
    body = export(recruiter, seeded.candidate.pk)
    body["candidate"]["linkedin"] = "https://example.com/in/casey"
    body["loops"][0]["interviews"][0]["panel"][0]["user"]["email"] = "ines@example.com"
    assert errors(EXPORT, body) == [
        "$.candidate: Additional properties are not allowed ('linkedin' was unexpected)",
        "$.loops[0].interviews[0].panel[0].user: Additional properties are not allowed"
        " ('email' was unexpected)",
    ]


def test_every_member_is_required() -> None:
    for name in reachable(EXPORT) | reachable(ERASURE):
        component = components()[name]
        if "properties" in component:
            always = [key for key in component["properties"] if (name, key) not in OPTIONAL]
            assert component.get("required", []) == always, name


def test_no_part_of_the_export_or_erasure_is_a_free_object() -> None:
    names = reachable(EXPORT) | reachable(ERASURE)
    assert {"ExportedLoop", "ExportedScorecard", "ScorecardCopy", "ExportedAuditEvent"} <= names
    assert [spot for name in sorted(names) for spot in free_spots(components()[name], name)] == []


def test_the_examples_are_valid_answers() -> None:
    assert errors(EXPORT, EXPORT_EXAMPLE.value) == []
    assert errors(ERASURE, ERASURE_EXAMPLE.value) == []
