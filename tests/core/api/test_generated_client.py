"""The API as an integrator meets it: a typed client generated from /api/schema/.

openapi-python-client (a dev dependency) generates the client into a temporary
folder; the tests import every module and call a live server through it: a token
under the Bearer scheme the generator defaults to, a paginated list, a create, a
validation error and a 404 parsed into their problem models; then a whole loop, from
candidate to calibration result, with nothing but generated calls.
"""

import importlib
import io
import json
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django.utils import timezone

from core.permissions import RECRUITER
from interviews.models import Candidate, Interview
from tests.conftest import make_user

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "kitclient"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    assert GENERATOR.exists(), "openapi-python-client is in requirements-dev.txt"
    root = tmp_path_factory.mktemp("client")
    schema = root / "schema.json"
    schema.write_bytes(Client().get("/api/schema/", {"format": "json"}).content)
    out = root / "out"
    command = [str(GENERATOR), "generate", "--path", str(schema), "--output-path", str(out)]
    run = subprocess.run(
        [*command, "--meta", "none"],
        capture_output=True,
        text=True,
        # The generator formats what it writes with ruff, found on PATH.
        env={"PATH": f"{GENERATOR.parent}:/usr/bin:/bin"},
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr
    shutil.move(out, root / PACKAGE)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_every_generated_module_imports(generated: ModuleType) -> None:
    api = _module("api")
    names = [m.name for m in pkgutil.walk_packages(api.__path__, f"{PACKAGE}.api.")]
    for name in names:
        importlib.import_module(name)
    assert len(names) > 50


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_signs_in_lists_creates_and_reads_errors(
    generated: ModuleType, live_server: object
) -> None:
    make_user("rita", RECRUITER)
    models = _module("models")
    base = f"{live_server.url}/api/v1"  # type: ignore[attr-defined]  # pytest-django's LiveServer

    token = _module("api.auth.auth_token_create").sync(
        client=generated.Client(base_url=base),
        body=models.SignInRequest(username="rita", password="pw"),
    )
    assert isinstance(token, models.Token)
    client = generated.AuthenticatedClient(base_url=base, token=token.token)  # Bearer

    created = _module("api.candidates.candidates_create").sync_detailed(
        client=client, body=models.CandidateRequest(name="Grace Hopper", email="grace@example.com")
    )
    assert created.status_code == 201
    assert isinstance(created.parsed, models.Candidate)
    assert Candidate.objects.get(pk=created.parsed.id).name == "Grace Hopper"

    page = _module("api.candidates.candidates_list").sync(client=client)
    assert [c.name for c in page.results] == ["Grace Hopper"]

    refused = _module("api.candidates.candidates_create").sync_detailed(
        client=client, body=models.CandidateRequest(name="x" * 500)
    )
    assert refused.status_code == 400
    assert isinstance(refused.parsed, models.ValidationProblem)
    assert refused.parsed.code == "validation_error"
    errors = refused.parsed.errors.to_dict()
    assert [e["code"] for e in errors["name"]] == ["max_length"]
    assert Candidate.objects.count() == 1

    missing = _module("api.candidates.candidates_retrieve").sync_detailed(
        client=client, id=created.parsed.id + 1000
    )
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Problem)
    assert (missing.parsed.code, missing.parsed.status) == ("not_found", 404)
    assert json.loads(missing.content)["detail"] == "Not found."


def _call(name: str, **kwargs: Any) -> Any:
    """Call a generated operation; return its response, its body parsed by the client."""
    response = _module(f"api.{name.split('_', 1)[0].replace('-', '_')}.{name}").sync_detailed(
        **kwargs
    )
    assert response.parsed is not None, (name, response.status_code, response.content)
    return response


@pytest.mark.slow  # a whole loop through the generated client; the sign-in smoke stays
@pytest.mark.django_db(transaction=True)
def test_a_generated_client_drives_a_loop_from_candidate_to_calibration(
    generated: ModuleType, live_server: object
) -> None:
    """Only generated calls: candidate, loop, panels, every panelist's scorecard, the
    debrief, a refused hire and the decision, a calibration run and its result. Each
    2xx and each documented 4xx is parsed into its typed model."""
    call_command("seed_demo", stdout=io.StringIO())
    models = _module("models")
    base = f"{live_server.url}/api/v1"  # type: ignore[attr-defined]  # pytest-django's LiveServer

    def signed_in(username: str) -> Any:
        token = _module("api.auth.auth_token_create").sync(
            client=generated.Client(base_url=base),
            body=models.SignInRequest(username=username, password="demo"),
        )
        assert isinstance(token, models.Token), token
        return generated.AuthenticatedClient(base_url=base, token=token.token)

    recruiter, lead = signed_in("demo-recruiter"), signed_in("demo-lead")
    role = "AI Infrastructure Engineer"
    candidate = _call(
        "candidates_create",
        client=recruiter,
        body=models.CandidateRequest(name="Grace Hopper", email="grace@example.com"),
    ).parsed
    assert isinstance(candidate, models.Candidate)

    built = _call(
        "loops_create",
        client=recruiter,
        body=models.LoopCreateInputRequest(candidate=candidate.id, role=role, level="L4"),
        idempotency_key="build-grace",
    )
    assert built.status_code == 201 and isinstance(built.parsed, models.Loop)
    assert built.headers["Location"].endswith(f"/loops/{built.parsed.id}/")
    loop = built.parsed
    again = _call(
        "loops_create",
        client=recruiter,
        body=models.LoopCreateInputRequest(candidate=candidate.id, role=role, level="L4"),
    )
    assert again.status_code == 409 and isinstance(again.parsed, models.Problem)
    assert again.parsed.code == "candidate_has_open_loop"

    # Panels of two, two months ahead in the small hours (no demo interview is then).
    start = (timezone.now() + timedelta(days=60)).replace(hour=1, minute=0, second=0)
    names = [f"demo-interviewer-{n}" for n in range(1, 7)]
    panels: dict[int, list[str]] = {}
    for n, interview in enumerate(loop.interviews):
        panels[interview.id] = [names[(2 * n) % 6], names[(2 * n + 1) % 6]]
        begins = start + timedelta(hours=n)
        staffed = _call(
            "interviews_update",
            id=interview.id,
            client=recruiter,
            body=models.InterviewInputRequest(
                interviewers=panels[interview.id],
                scheduled_start=begins,
                scheduled_end=begins + timedelta(minutes=interview.minutes),
            ),
        )
        assert staffed.status_code == 200 and isinstance(staffed.parsed, models.Interview)
        assert [p.username for p in staffed.parsed.panel] == panels[interview.id]
    clash = _call(
        "interviews_update",
        id=loop.interviews[1].id,
        client=recruiter,
        body=models.InterviewInputRequest(
            interviewers=panels[loop.interviews[0].id],
            scheduled_start=start,
            scheduled_end=start + timedelta(minutes=30),
        ),
    )
    assert clash.status_code == 400 and isinstance(clash.parsed, models.ValidationProblem)
    assert clash.parsed.code == "interview_clash"

    refused = _call(
        "loops_decision_create",
        id=loop.id,
        client=recruiter,
        body=models.DecisionInputRequest(decision=models.DecisionEnum.HIRE, rationale="Early"),
    )
    # Nobody has scored yet, and the interviews are weeks away.
    assert refused.status_code == 400 and isinstance(refused.parsed, models.ValidationProblem)
    assert refused.parsed.code.startswith("hire_waits_for")

    # Two months pass and the interviews happen: a card is submitted only once its
    # interview has started (scoring/visibility.py, may_submit).
    past = timedelta(days=61)
    Interview.objects.filter(loop_id=loop.id).update(
        scheduled_start=F("scheduled_start") - past, scheduled_end=F("scheduled_end") - past
    )

    for interview in loop.interviews:
        for username in panels[interview.id]:
            panelist = signed_in(username)
            card = _call(
                "scorecards_create",
                client=panelist,
                body=models.ScorecardStartRequest(interview=interview.id),
            )
            assert card.status_code == 201 and isinstance(card.parsed, models.Scorecard)
            ratings = [
                models.RatingInputRequest(item=q.id, rating=1 + (q.id + len(username)) % 4)
                for q in interview.questions
            ]
            saved = _call(
                "scorecards_update",
                id=card.parsed.id,
                client=panelist,
                body=models.ScorecardInputRequest(
                    recommendation=models.RecommendationEnum.YES,
                    summary="Clear on the trade-offs.",
                    ratings=ratings,
                ),
                if_match=card.headers["ETag"],
            )
            assert saved.status_code == 200 and isinstance(saved.parsed, models.Scorecard)
            assert [r.rating for r in saved.parsed.ratings] == [r.rating for r in ratings]
            submitted = _call("scorecards_submit_create", id=card.parsed.id, client=panelist)
            assert submitted.parsed.status == models.ScorecardStatusEnum.SUBMITTED
            twice = _call("scorecards_submit_create", id=card.parsed.id, client=panelist)
            assert twice.status_code == 409 and isinstance(twice.parsed, models.Problem)
            assert twice.parsed.code == "scorecard_already_submitted"

    debrief = _call("loops_debrief_retrieve", id=loop.id, client=recruiter).parsed
    assert isinstance(debrief, models.Debrief)
    assert debrief.pending == []
    assert len(debrief.scorecards) == sum(len(p) for p in panels.values())

    decided = _call(
        "loops_decision_create",
        id=loop.id,
        client=recruiter,
        body=models.DecisionInputRequest(
            decision=models.DecisionEnum.NO_HIRE, rationale="Not this time."
        ),
    )
    assert decided.status_code == 200 and isinstance(decided.parsed, models.Debrief)
    assert isinstance(decided.parsed.panel, models.DebriefPanel)
    assert decided.parsed.hire_against_panel is False  # a no-hire goes against no panel
    read = _call("loops_retrieve", id=loop.id, client=recruiter).parsed
    assert (read.status, read.decision) == (
        models.LoopStatusEnum.DECIDED,
        models.DecisionEnum.NO_HIRE,
    )

    run = _call(
        "calibration_runs_create",
        client=lead,
        body=models.CalibrationRunInputRequest(role=role),
    )
    assert run.status_code == 202 and isinstance(run.parsed, models.CalibrationJob)
    job = _call("calibration_runs_retrieve", id=run.parsed.id, client=lead).parsed
    assert job.status == models.CalibrationJobStatusEnum.DONE, job.error
    latest = _call("calibration_latest_retrieve", client=lead, role=role).parsed
    assert isinstance(latest, models.CalibrationSnapshotResult)
    assert latest.scope.role == role
    assert latest.inputs.scorecards >= len(debrief.scorecards)
    assert {"demo-interviewer-1", "demo-interviewer-6"} <= {
        i.interviewer for i in latest.interviewers
    }
    unknown = _call("calibration_latest_retrieve", client=lead, role="No such role")
    assert unknown.status_code == 404 and isinstance(unknown.parsed, models.Problem)
