"""calibration_request as scorecard_submit uses it: one job per burst, published
after the transaction commits."""

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from interviews.models import Interview
from scoring.calibration import services as calibration_services
from scoring.models import CalibrationJob, Scorecard
from scoring.scorecards import services
from scoring.tasks import calibrate_task
from tests.conftest import client_for
from tests.scoring.helpers import draft, ratings_for, state
from tests.support.loops import Built


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record each task publish instead of running it (the broker is the edge)."""
    calls: list[dict[str, Any]] = []

    def apply_async(*args: Any, **kwargs: Any) -> None:
        assert args == ()
        calls.append(kwargs)

    monkeypatch.setattr(calibrate_task, "apply_async", apply_async)
    return calls


@pytest.fixture
def drafts(
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    sam: User,
    other_interviewer: User,
) -> list[tuple[User, Scorecard]]:
    """Five complete drafts: Ines (two), Pia, Sam (shadow), Omar."""
    return [
        (interviewer, draft(interviewer, first)),
        (pia, draft(pia, first)),
        (sam, draft(sam, first)),
        (other_interviewer, draft(other_interviewer, second)),
        (interviewer, draft(interviewer, second)),
    ]


def test_one_submission_publishes_one_job_after_commit(
    panel: Built,
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    user, card = drafts[0]

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(user).post(f"/api/v1/scorecards/{card.pk}/submit/")

    assert response.status_code == 200
    job = CalibrationJob.objects.get()
    assert (job.role, job.status, job.requested_by) == (panel.loop.role, "queued", None)
    assert len(callbacks) == 1
    assert published == [{"args": [job.pk], "countdown": settings.CALIBRATION_COLLAPSE_SECONDS}]


def test_nothing_is_published_before_the_transaction_commits(
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    user, card = drafts[0]

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.scorecard_submit(scorecard=card, by=user)

    assert CalibrationJob.objects.count() == 1
    assert len(callbacks) == 1
    assert published == []


def test_a_burst_of_submissions_in_one_transaction_makes_one_job(
    panel: Built,
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        for user, card in drafts:
            services.scorecard_submit(scorecard=card, by=user)

    assert Scorecard.objects.filter(status="submitted").count() == 5
    job = CalibrationJob.objects.get()
    assert job.role == panel.loop.role
    assert len(callbacks) == 1
    assert len(published) == 1


def test_submissions_collapse_into_the_job_still_waiting(
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    # Separate requests, while the first job has not started yet.
    for user, card in drafts[:3]:
        with django_capture_on_commit_callbacks(execute=True):
            services.scorecard_submit(scorecard=card, by=user)

    assert CalibrationJob.objects.count() == 1
    assert len(published) == 1


def test_a_request_while_a_job_waits_returns_that_job_as_stored(
    panel: Built,
    lead: User,
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        waiting = calibration_services.calibration_request(role=panel.loop.role, by=lead)

    with django_capture_on_commit_callbacks(execute=True):
        again = calibration_services.calibration_request(role=panel.loop.role)

    stored = CalibrationJob.objects.get()
    fields = [f.attname for f in CalibrationJob._meta.concrete_fields]
    assert [getattr(again, f) for f in fields] == [getattr(stored, f) for f in fields]
    assert again.pk == waiting.pk and again.requested_by_id == lead.pk
    assert again.requested_at.tzinfo is not None
    assert len(published) == 1


def test_a_submission_after_the_job_ran_queues_a_new_one(
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    (u1, c1), (u2, c2) = drafts[:2]
    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_submit(scorecard=c1, by=u1)
    CalibrationJob.objects.update(status=CalibrationJob.Status.DONE)

    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_submit(scorecard=c2, by=u2)

    assert list(CalibrationJob.objects.order_by("pk").values_list("status", flat=True)) == [
        "done",
        "queued",
    ]
    assert len(published) == 2


def test_a_refused_submission_queues_nothing(
    first: Interview,
    interviewer: User,
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    card = services.scorecard_start(interview=first, by=interviewer)
    services.scorecard_save_draft(
        scorecard=card, by=interviewer, recommendation="yes", ratings=ratings_for(first)[:1]
    )
    before = state()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(interviewer).post(f"/api/v1/scorecards/{card.pk}/submit/")

    assert response.status_code == 400
    assert state() == before
    assert not CalibrationJob.objects.exists()
    assert (callbacks, published) == ([], [])


def test_a_repeated_submission_queues_nothing_more(
    drafts: list[tuple[User, Scorecard]],
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    user, card = drafts[0]
    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_submit(scorecard=card, by=user)
    CalibrationJob.objects.update(status=CalibrationJob.Status.DONE)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(user).post(f"/api/v1/scorecards/{card.pk}/submit/")

    assert response.status_code == 409
    assert CalibrationJob.objects.count() == 1
    assert (callbacks, len(published)) == ([], 1)


def test_saving_a_draft_queues_nothing(
    first: Interview,
    interviewer: User,
    published: list[dict[str, Any]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        draft(interviewer, first)

    assert not CalibrationJob.objects.exists()
    assert (callbacks, published) == ([], [])


def test_the_eager_task_runs_the_job_once_committed(
    drafts: list[tuple[User, Scorecard]],
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    # No recorder: Celery runs eagerly in tests, so the publish runs the job in-process.
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for user, card in drafts:
            services.scorecard_submit(scorecard=card, by=user)

    job = CalibrationJob.objects.get()
    assert (job.status, job.progress, job.attempts, job.error) == ("done", 100, 1, "")
    assert job.snapshot is not None
    assert job.snapshot.result["inputs"]["scorecards"] >= 4
