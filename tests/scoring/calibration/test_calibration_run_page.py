"""The dashboard's "Recalculate now": the job it queues, its progress, who may."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from scoring.models import CalibrationJob
from tests.scoring.calibration.conftest import Calibrated
from tests.scoring.calibration.helpers import counts
from tests.scoring.calibration.pages import DASHBOARD, page, signed_in

RUN = "/calibration/run/"


def test_recalculate_queues_a_job_and_shows_its_progress(
    client: Client,
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, lead)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(RUN, {"role": calibrated.role.pk, "level": ""})

    job = CalibrationJob.objects.get(status="queued")
    assert (job.role, job.requested_by) == (calibrated.role, lead)
    assert len(callbacks) == 1
    assert response.status_code == 302
    assert response["Location"] == f"{DASHBOARD}?role={calibrated.role.pk}&level=&job={job.pk}"
    html = client.get(response["Location"]).content.decode()
    assert (
        f'<div id="run" data-url="/api/v1/calibration/runs/{job.pk}/" data-status="queued">' in html
    )
    assert '<progress id="run-bar" max="100" value="0"></progress>' in html
    assert '<span id="run-text" aria-live="polite">Queued</span>' in html


def test_recalculate_twice_returns_the_job_still_waiting(
    client: Client,
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, lead)

    with django_capture_on_commit_callbacks(execute=False):
        first = client.post(RUN, {"role": calibrated.role.pk})
        second = client.post(RUN, {"role": calibrated.role.pk})

    assert first["Location"] == second["Location"]
    assert CalibrationJob.objects.filter(status="queued").count() == 1


def test_a_recalculation_run_on_commit_shows_done(
    client: Client,
    lead: User,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, lead)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(RUN, {"role": calibrated.role.pk, "level": ""})

    job = CalibrationJob.objects.exclude(pk=calibrated.job.pk).get()
    assert (job.status, job.progress) == ("done", 100)
    html = client.get(response["Location"]).content.decode()
    assert 'data-status="done"' in html
    assert '<span id="run-text" aria-live="polite">Done</span>' in html


def test_a_run_that_finds_nothing_new_says_it_checked(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    snapshot = calibrated.snapshot
    html = page(client, lead, role=calibrated.role.pk)
    assert "Checked again" not in html

    # The run that computed the snapshot finishing later (its levels take a while)
    # is no second check.
    CalibrationJob.objects.filter(pk=calibrated.job.pk).update(
        finished_at=snapshot.computed_at + timedelta(minutes=5)
    )
    assert "Checked again" not in page(client, lead, role=calibrated.role.pk)

    # A later run found the same ratings and kept the snapshot it had.
    later = snapshot.computed_at + timedelta(hours=2)
    CalibrationJob.objects.create(
        role=calibrated.role, status=CalibrationJob.Status.DONE, progress=100, snapshot=snapshot,
        started_at=later - timedelta(seconds=3), finished_at=later,
    )  # fmt: skip

    html = page(client, lead, role=calibrated.role.pk)
    when = timezone.localtime(later)
    assert (
        f"Checked again {when:%-d %b, %H:%M %Z}: no new ratings since, so the numbers stand."
        in html
    )


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_can_recalculate(
    persona: str,
    request: pytest.FixtureRequest,
    client: Client,
    calibrated: Calibrated,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, request.getfixturevalue(persona))
    before = counts()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(RUN, {"role": calibrated.role.pk})

    assert response.status_code == 404
    assert counts() == before
    assert callbacks == []


def test_recalculate_for_an_unknown_role_is_a_404(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    signed_in(client, lead)
    before = counts()

    assert client.post(RUN, {"role": 999999}).status_code == 404
    assert client.post(RUN, {}).status_code == 404
    assert counts() == before


def test_recalculate_is_a_post(client: Client, lead: User, calibrated: Calibrated) -> None:
    signed_in(client, lead)

    assert client.get(RUN, {"role": calibrated.role.pk}).status_code == 405
    assert not CalibrationJob.objects.filter(status="queued").exists()
