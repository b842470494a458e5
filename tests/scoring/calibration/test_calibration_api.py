"""The calibration API: /api/v1/calibration/latest/, history/, runs/ and runs/{id}/.

Leads read everything and start runs; everyone else signed in reads the
reliability figures and their own interviewer row only. Celery is eager in
tests, so a run requested through the API runs when its transaction commits;
`django_capture_on_commit_callbacks` decides whether and when that happens.
"""

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from core.permissions import INTERVIEWER
from scoring.calibration import services
from scoring.models import CalibrationJob, CalibrationSnapshot
from tests.conftest import client_for, make_user
from tests.problems import NOT_ALLOWED, NOT_FOUND, detail, field_errors, not_signed_in
from tests.scoring.calibration.conftest import PANEL, Calibrated
from tests.scoring.calibration.helpers import ROLE, counts, import_scorecards, write_csv
from tests.support.api import iso
from tests.support.factories import RoleFactory
from tests.support.shared_db import read_again

LATEST = "/api/v1/calibration/latest/"
HISTORY = "/api/v1/calibration/history/"
RUNS = "/api/v1/calibration/runs/"
NO_SNAPSHOT = "No calibration has been computed for this scope yet."


@pytest.fixture
def calibrated(calibrated_built_once: Calibrated, db: None) -> Calibrated:
    """The calibrated panel (tests/scoring/calibration/conftest.py), built once for the
    module; each test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(calibrated_built_once)


def own_view(result: dict[str, Any], user: User) -> dict[str, Any]:
    """What a non-lead should get: their own row (by id), the scope with their row's
    period (none without a row: the scope's own ends at its newest interview), the
    definitions and the day it was computed; nothing role-wide."""
    rows = [r for r in result["interviewers"] if r["interviewer_id"] == user.pk]
    months = result["scope"]["period"]["months"]
    period = {**rows[0]["period"], "months": months} if rows else None
    return {
        "scope": {**result["scope"], "period": period},
        "computed_at": result["computed_at"][:10],
        "interviewers": rows,
        "questions": [],
        "candidates": [],
        **({"definitions": result["definitions"]} if "definitions" in result else {}),
    }


def lead_view(result: dict[str, Any]) -> dict[str, Any]:
    """What a lead gets: the whole result but the per-user rows for blind panelists
    (which say who holds an open seat where)."""
    return {key: value for key, value in result.items() if key != "own_rows"}


def job_json(job: CalibrationJob) -> dict[str, Any]:
    job.refresh_from_db()
    return {
        "id": job.pk,
        "role_id": job.role_id,
        "role": job.role.name,
        "status": job.status,
        "progress": job.progress,
        "stage": job.stage,
        "requested_at": iso(job.requested_at),
        "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at),
        "error": job.error,
        "snapshot": job.snapshot_id,
    }


# --- latest -------------------------------------------------------------------------------


def test_a_lead_reads_the_whole_latest_snapshot(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST, {"role": ROLE})

    assert response.status_code == 200
    assert response.json() == lead_view(calibrated.snapshot.result)
    assert sorted(r["interviewer"] for r in response.json()["interviewers"]) == sorted(PANEL)
    assert len(response.json()["candidates"]) == 10


def test_the_role_name_is_matched_without_case(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST, {"role": ROLE.upper()})

    assert response.status_code == 200
    scope = response.json()["scope"]
    assert {key: scope[key] for key in ("role", "level", "flags")} == {
        "role": ROLE,
        "level": None,
        "flags": "confirmatory",
    }
    assert scope["period"]["months"] == 12


def test_the_scope_may_name_the_role_and_level_by_id(lead: User, calibrated: Calibrated) -> None:
    level = calibrated.level_snapshot.level
    assert level is not None

    by_id = client_for(lead).get(LATEST, {"role": calibrated.role.pk, "level": level.pk})
    history = client_for(lead).get(HISTORY, {"role": calibrated.role.pk})

    assert by_id.json() == client_for(lead).get(LATEST, {"role": ROLE, "level": "L5"}).json()
    assert history.json()["count"] == 1


def test_an_unknown_role_id_is_a_404(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST, {"role": 999_999})

    assert detail(response, 404, "not_found") == "No role named '999999'."


@pytest.mark.parametrize("given", ["9" * 20, "9" * 5000, "١٢"])
def test_a_role_id_too_long_or_not_ascii_is_a_404_not_a_500(
    lead: User, calibrated: Calibrated, given: str
) -> None:
    response = client_for(lead).get(HISTORY, {"role": given})

    assert detail(response, 404, "not_found").startswith("No role named")


def test_an_interviewer_reads_only_their_own_row(interviewer: User, calibrated: Calibrated) -> None:
    response = client_for(interviewer).get(LATEST, {"role": ROLE})

    assert response.status_code == 200
    body = response.json()
    assert body == own_view(calibrated.snapshot.result, interviewer)
    assert [r["interviewer"] for r in body["interviewers"]] == ["ines"]
    assert (body["questions"], body["candidates"]) == ([], [])
    for role_wide in ("reliability", "inputs", "watermark", "model"):
        assert role_wide not in body
    text = response.content.decode()
    for other in PANEL:
        if other != "ines":
            assert other not in text
    assert "Candidate 001" not in text


def test_a_row_follows_its_user_not_a_username_given_to_someone_else(
    interviewer: User, calibrated: Calibrated
) -> None:
    interviewer.username = "ines-who-left"
    interviewer.save()
    newcomer = make_user("ines", INTERVIEWER)

    theirs = client_for(newcomer).get(LATEST, {"role": ROLE}).json()
    hers = client_for(interviewer).get(LATEST, {"role": ROLE}).json()

    assert theirs["interviewers"] == []
    assert [r["interviewer_id"] for r in hers["interviewers"]] == [interviewer.pk]


@pytest.mark.parametrize("persona", ["recruiter", "no_ratings"])
def test_someone_without_ratings_gets_an_empty_interviewer_list(
    persona: str, recruiter: User, calibrated: Calibrated
) -> None:
    user = recruiter if persona == "recruiter" else make_user("pia", INTERVIEWER)

    response = client_for(user).get(LATEST, {"role": ROLE})

    assert response.status_code == 200
    assert response.json() == own_view(calibrated.snapshot.result, user)
    assert response.json()["interviewers"] == []
    for name in PANEL:
        assert name not in response.content.decode()


@pytest.mark.parametrize("blank", ["", "  ", "\x1f"])
def test_a_blank_level_reads_all_levels_and_a_blank_role_names_none(
    lead: User, calibrated: Calibrated, blank: str
) -> None:
    # CharField trims whitespace and control characters: found by the deep fuzz (?level=%1F).
    client = client_for(lead)

    all_levels = client.get(LATEST, {"role": ROLE, "level": blank})
    no_role = client.get(LATEST, {"role": blank})

    assert all_levels.status_code == 200
    assert all_levels.json() == lead_view(calibrated.snapshot.result)
    assert no_role.status_code == 404
    assert no_role.json()["detail"] == "No role named ''."


def test_the_level_parameter_scopes_the_snapshot(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST, {"role": ROLE, "level": "l5"})

    assert response.status_code == 200
    assert response.json() == lead_view(calibrated.level_snapshot.result)
    scope = response.json()["scope"]
    # A level's flags adjust for its own tests only: marked exploratory.
    assert {key: scope[key] for key in ("role", "level", "flags")} == {
        "role": ROLE,
        "level": "L5",
        "flags": "exploratory",
    }


def test_it_answers_400_without_a_role(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST)

    assert field_errors(response) == {"role": ["This field is required."]}


def test_it_answers_404_for_an_unknown_role_or_level(lead: User, calibrated: Calibrated) -> None:
    client = client_for(lead)

    unknown_role = client.get(LATEST, {"role": "Astronaut"})
    unknown_level = client.get(LATEST, {"role": ROLE, "level": "L9"})

    assert detail(unknown_role, 404, "not_found") == "No role named 'Astronaut'."
    assert detail(unknown_level, 404, "not_found") == "No level named 'L9'."


def test_it_answers_404_for_a_level_without_a_snapshot(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(LATEST, {"role": ROLE, "level": "L3"})

    assert detail(response, 404, "not_found") == NO_SNAPSHOT


def test_latest_reads_with_a_fixed_number_of_queries(
    lead: User, calibrated: Calibrated, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    client = client_for(lead)
    # 1. the lead's groups (IsAuthenticated needs none; result_visible_to asks is_lead)
    # 2. the role by name
    # 3. the level by name
    # 4. the newest snapshot of the scope
    # 5. the lead's open seats in the scope's loops (blind leads read their own row only)
    with django_assert_max_num_queries(5):
        response = client.get(LATEST, {"role": ROLE, "level": "L5"})
    assert response.status_code == 200


# --- history ------------------------------------------------------------------------------


def snapshot_json(snapshot: CalibrationSnapshot) -> dict[str, Any]:
    return {
        "id": snapshot.pk,
        "role_id": snapshot.role_id,
        "role": snapshot.role.name,
        "level_id": snapshot.level_id,
        "level": snapshot.level.name if snapshot.level else None,
        "computed_at": iso(snapshot.computed_at),
        "watermark": snapshot.watermark,
    }


def test_a_lead_reads_the_history_newest_first(lead: User, calibrated: Calibrated) -> None:
    newer = CalibrationSnapshot.objects.create(
        role=calibrated.role, level=None, watermark="later", result={"inputs": {"ratings": 0}}
    )

    response = client_for(lead).get(HISTORY, {"role": ROLE})

    assert response.status_code == 200
    assert response.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [snapshot_json(newer), snapshot_json(calibrated.snapshot)],
    }


def test_the_history_of_a_level(lead: User, calibrated: Calibrated) -> None:
    response = client_for(lead).get(HISTORY, {"role": ROLE, "level": "L5"})

    assert response.status_code == 200
    assert response.json()["results"] == [snapshot_json(calibrated.level_snapshot)]


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_read_the_history(
    persona: str, request: pytest.FixtureRequest, calibrated: Calibrated
) -> None:
    user = request.getfixturevalue(persona)

    response = client_for(user).get(HISTORY, {"role": ROLE})

    assert detail(response, 403, "permission_denied") == NOT_ALLOWED


# --- runs ---------------------------------------------------------------------------------


def test_a_lead_starts_a_run_and_a_second_request_joins_it(
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    client = client_for(lead)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post(RUNS, {"role": ROLE}, format="json")
        second = client.post(RUNS, {"role": calibrated.role.pk}, format="json")  # by id

    assert (first.status_code, second.status_code) == (202, 202)
    job = CalibrationJob.objects.get(status="queued")
    assert first.json() == second.json() == job_json(job)
    assert (job.requested_by, job.progress, job.snapshot) == (lead, 0, None)
    assert first.json()["status"] == "queued"
    assert len(callbacks) == 1  # one publish for the collapsed pair


def test_a_run_started_through_the_api_runs_after_commit_and_reports_done(
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    client = client_for(lead)

    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(RUNS, {"role": ROLE}, format="json")

    assert started.status_code == 202
    assert started.json()["status"] == "queued"
    job = CalibrationJob.objects.get(pk=started.json()["id"])
    followed = client.get(f"{RUNS}{job.pk}/")
    assert followed.status_code == 200
    assert followed.json() == job_json(job)
    body = followed.json()
    assert (body["status"], body["progress"], body["stage"], body["error"]) == (
        "done",
        100,
        "done",
        "",
    )
    # Nothing changed since the import's run: the same inputs, the same snapshot.
    assert body["snapshot"] == calibrated.snapshot.pk
    assert body["started_at"] is not None and body["finished_at"] is not None


def test_new_ratings_run_a_job_after_commit_and_latest_shows_its_snapshot(
    lead: User,
    calibrated: Calibrated,
    tmp_path: Path,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    path = write_csv(tmp_path / "more.csv", [("Candidate 011", "ines", "Question 1", 4)])

    with django_capture_on_commit_callbacks(execute=True):
        import_scorecards(path, "--role", ROLE, "--level", "L5")

    job = CalibrationJob.objects.exclude(pk=calibrated.job.pk).get()
    assert job.status == "done"
    assert job.snapshot_id not in (None, calibrated.snapshot.pk)
    latest = client_for(lead).get(LATEST, {"role": ROLE}).json()
    assert latest == lead_view(job.snapshot.result)
    assert latest["inputs"]["ratings"] == calibrated.snapshot.result["inputs"]["ratings"] + 1
    history = client_for(lead).get(HISTORY, {"role": ROLE}).json()["results"]
    assert [h["id"] for h in history] == [job.snapshot_id, calibrated.snapshot.pk]


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_start_runs(
    persona: str,
    request: pytest.FixtureRequest,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    user = request.getfixturevalue(persona)
    before = counts()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(user).post(RUNS, {"role": ROLE}, format="json")

    assert detail(response, 403, "permission_denied") == NOT_ALLOWED
    assert counts() == before
    assert callbacks == []


def test_starting_a_run_for_an_unknown_role_writes_nothing(
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    before = counts()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        unknown = client_for(lead).post(RUNS, {"role": "Astronaut"}, format="json")
        missing = client_for(lead).post(RUNS, {}, format="json")

    assert field_errors(unknown) == {"role": ["No role named 'Astronaut'."]}
    assert field_errors(missing) == {"role": ["This field is required."]}
    assert counts() == before
    assert callbacks == []


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_follow_runs(
    persona: str, request: pytest.FixtureRequest, calibrated: Calibrated
) -> None:
    user = request.getfixturevalue(persona)

    response = client_for(user).get(f"{RUNS}{calibrated.job.pk}/")

    # A run is an object: one the caller may not see answers 404, so ids leak nothing.
    assert detail(response, 404, "not_found") == NOT_FOUND


def test_a_queued_run_shows_its_progress_fields(lead: User, calibrated: Calibrated) -> None:
    job = services.calibration_request(role=calibrated.role, by=lead)
    CalibrationJob.objects.filter(pk=job.pk).update(
        status="running", progress=40, stage="all levels: computing statistics",
        started_at=timezone.now(),
    )  # fmt: skip

    response = client_for(lead).get(f"{RUNS}{job.pk}/")

    assert response.status_code == 200
    assert response.json() == job_json(job)
    assert (response.json()["progress"], response.json()["stage"]) == (
        40,
        "all levels: computing statistics",
    )


# --- anonymous ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "data"),
    [
        ("get", LATEST, {"role": ROLE}),
        ("get", HISTORY, {"role": ROLE}),
        ("post", RUNS, {"role": ROLE}),
        ("get", f"{RUNS}1/", None),
    ],
)
def test_anonymous_callers_are_refused(
    method: str, url: str, data: dict[str, str] | None, calibrated: Calibrated
) -> None:
    before = counts()

    response = getattr(APIClient(), method)(url, data)

    not_signed_in(response)
    assert counts() == before


def test_a_role_with_a_snapshot_does_not_leak_into_another_role(
    lead: User, calibrated: Calibrated
) -> None:
    RoleFactory(name="Data Engineer")

    response = client_for(lead).get(LATEST, {"role": "Data Engineer"})

    assert detail(response, 404, "not_found") == NO_SNAPSHOT


def test_the_latest_snapshot_carries_the_trust_fields_and_their_definitions(
    lead: User, calibrated: Calibrated
) -> None:
    body = client_for(lead).get(LATEST, {"role": ROLE}).json()

    row = next(r for r in body["interviewers"] if r["interviewer"] == "rater-x")
    for key in ("severity", "severity_ci", "severity_shrunk", "severity_shrunk_ci",
                "severity_reliability", "severity_p", "severity_q", "separable",
                "copanelist_gap", "copanelist_gap_ci", "flag"):  # fmt: skip
        assert row[key] is not None, key
    low, high = row["severity_shrunk_ci"]
    assert low <= row["severity_shrunk"] <= high < 0  # lenient: negative, one sign everywhere
    assert row["flag"] == "lenient"
    candidate = body["candidates"][0]
    assert candidate["estimable"] is True
    assert candidate["adjusted_ci"][0] <= candidate["adjusted"] <= candidate["adjusted_ci"][1]
    for key in ("interviewers.severity_shrunk", "interviewers.flag", "interviewers.separable",
                "interviewers.copanelist_gap", "candidates.adjusted", "model.halo_sd"):  # fmt: skip
        assert {"what"} <= set(body["definitions"][key]), key
    assert "(harsher)" in body["definitions"]["interviewers.copanelist_gap"]["sign"]
