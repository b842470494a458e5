"""The OpenAPI schema of GET /api/v1/calibration/latest/ describes the real answers.

Each answer is validated against the `CalibrationSnapshotResult` component with
undescribed keys refused (tests/scoring/response_schema.py): a key added to the
snapshot JSON without a schema for it fails here.
"""

from typing import Any

from django.contrib.auth.models import User

from scoring.calibration.definitions import DEFINITIONS
from scoring.calibration.schema import SNAPSHOT_EXAMPLE
from scoring.calibration.selectors import OWN_ROW_HELD_BACK
from tests.conftest import client_for
from tests.scoring.calibration.conftest import Calibrated
from tests.scoring.response_schema import (
    components,
    errors,
    free_spots,
    reachable,
    response_schema,
)
from tests.support.loops import Seat, build_loop

LATEST = "/api/v1/calibration/latest/"
RESULT = "CalibrationSnapshotResult"
LEADS_ONLY = {"watermark", "inputs", "reliability", "model"}
EVERYONE = {"scope", "computed_at", "interviewers", "questions", "candidates", "definitions"}


def latest(user: User, **scope: str) -> dict[str, Any]:
    response = client_for(user).get(LATEST, {"role": "AI Infrastructure Engineer", **scope})
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_it_documents_the_latest_snapshot_as_a_named_component() -> None:
    content = response_schema("/calibration/latest/", "get")
    assert content["schema"] == {"$ref": f"#/components/schemas/{RESULT}"}
    assert list(content["examples"]) == ["Lead"]


def test_a_leads_whole_snapshot_matches_the_schema(lead: User, calibrated: Calibrated) -> None:
    body = latest(lead)
    assert set(body) == set(components()[RESULT]["properties"]) - {"note"}
    assert body["reliability"]["icc"] is not None  # the panel is a complete grid
    assert errors(RESULT, body) == []
    assert errors(RESULT, latest(lead, level="L5")) == []


def test_an_interviewers_trimmed_view_matches_the_schema(
    interviewer: User, calibrated: Calibrated
) -> None:
    body = latest(interviewer)
    assert set(body) == EVERYONE
    assert [row["interviewer_id"] for row in body["interviewers"]] == [interviewer.pk]
    assert errors(RESULT, body) == []


def test_a_held_back_view_with_its_note_matches_the_schema(
    interviewer: User, recruiter: User, calibrated: Calibrated
) -> None:
    # Seated in a new loop of the role after the snapshot: her row waits for the next run.
    build_loop(seats=[Seat(interviewers=[interviewer])], recruiter=recruiter)
    body = latest(interviewer)
    assert body["note"] == OWN_ROW_HELD_BACK
    assert body["interviewers"] == []
    assert errors(RESULT, body) == []


def test_an_undescribed_key_fails_validation(lead: User, calibrated: Calibrated) -> None:
    body = latest(lead)
    body["interviewers"][0]["surprise"] = 1
    body["reliability"]["new_figure"] = 0.5
    assert errors(RESULT, body) == [
        "$.interviewers[0]: Additional properties are not allowed ('surprise' was unexpected)",
        "$.reliability: Additional properties are not allowed ('new_figure' was unexpected)",
    ]
    del body["interviewers"][0]["surprise"], body["reliability"]["new_figure"]
    del body["candidates"][0]["adjusted_ci"]
    assert errors(RESULT, body) == ["$.candidates[0]: 'adjusted_ci' is a required property"]


def test_the_keys_only_leads_read_are_optional_and_say_so() -> None:
    result = components()[RESULT]
    assert set(result["required"]) == EVERYONE
    assert set(result["properties"]) == EVERYONE | LEADS_ONLY | {"note"}
    for key in LEADS_ONLY:
        assert "Leads only" in result["properties"][key]["description"], key
    definition = components()["CalibrationDefinition"]
    assert definition["required"] == ["what"]


def test_intervals_are_pairs_of_numbers_or_null() -> None:
    row = components()["InterviewerCalibration"]["properties"]
    assert row["severity_shrunk_ci"] == {
        "type": "array",
        "items": {"type": "number", "format": "double"},
        "nullable": True,
        "minItems": 2,
        "maxItems": 2,
        "description": "[low, high]; null with no estimate. "
        + DEFINITIONS["interviewers.severity_shrunk"]["interval"],
    }


def test_help_texts_come_from_the_definitions_block() -> None:
    row = components()["InterviewerCalibration"]["properties"]
    assert row["severity"]["description"].startswith(DEFINITIONS["interviewers.severity"]["what"])
    assert (
        "Sign: positive: harsher than the average of this scope's interviewers"
        in row["severity"]["description"]
    )
    candidate = components()["CandidateCalibration"]["properties"]
    assert candidate["estimable"]["description"] == DEFINITIONS["candidates.estimable"]["what"]


def test_no_part_of_the_snapshot_is_a_free_object() -> None:
    names = reachable(RESULT)
    assert {
        "Reliability",
        "CalibrationModel",
        "InterviewerCalibration",
        "QuestionCalibration",
        "CandidateCalibration",
        "CalibrationDefinition",
    } <= names
    assert [spot for name in sorted(names) for spot in free_spots(components()[name], name)] == []


def test_the_example_is_a_valid_answer() -> None:
    assert errors(RESULT, SNAPSHOT_EXAMPLE.value) == []
    content = response_schema("/calibration/latest/", "get")
    assert content["examples"]["Lead"]["value"] == SNAPSHOT_EXAMPLE.value
