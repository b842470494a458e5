"""Calibration jobs on a real Celery worker over Redis (PostgreSQL shared with the test)."""

import os
import signal
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from core.permissions import INTERVIEWER
from interviews import services as interview_services
from interviews.models import Candidate
from kit import services as kit_services
from kit.models import Level, Role
from scoring.calibration import services as calibration_services
from scoring.models import CalibrationJob, CalibrationSnapshot, Scorecard
from scoring.scorecards import services
from tests.conftest import make_user
from tests.integration.conftest import wait_for
from tests.integration.data import write_ratings_csv
from tests.support.factories import make_question

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    # Committed data for the worker; the fixture puts back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]


def settled(role: Role) -> bool:
    return not CalibrationJob.objects.filter(
        role=role, status__in=[CalibrationJob.Status.QUEUED, CalibrationJob.Status.RUNNING]
    ).exists()


def fifty_drafts() -> tuple[Role, list[Scorecard]]:
    """Return a role and 50 complete draft scorecards: one interview, 50 interviewers."""
    role = Role.objects.create(name="Burst role")
    question = make_question(role=role, competencies=["burst"], minutes=20)
    level = Level.objects.get(name="L5")
    kit_services.loop_template_save(
        role=role,
        level=level,
        name="Burst",
        slots=[
            kit_services.SlotData(
                title="Only", minutes=30, competencies=("burst",), question_count=1
            )
        ],
    )
    loop = interview_services.loop_create(
        candidate=Candidate.objects.create(name="Burst candidate"), role=role, level=level
    )
    interview = loop.interviews.get()
    item = interview.questions.get()
    panel = [make_user(f"panel-{n}", INTERVIEWER) for n in range(50)]
    # Held an hour ago: a card is submitted only once its interview has started.
    start = timezone.now() - timedelta(hours=2)
    interview_services.interview_update(
        interview=interview,
        interviewers=panel,
        scheduled_start=start,
        scheduled_end=start + timedelta(hours=1),
    )
    cards = []
    for n, user in enumerate(panel):
        card = services.scorecard_start(interview=interview, by=user)
        services.scorecard_save_draft(
            scorecard=card,
            by=user,
            recommendation="yes",
            ratings=[services.RatingInput(item=item.pk, rating=1 + n % question.current.scale_max)],
        )
        cards.append(card)
    return role, cards


def test_a_burst_of_50_submissions_runs_the_recalculation_at_most_twice(worker):
    role, cards = fifty_drafts()

    for card in cards:
        services.scorecard_submit(scorecard=card, by=card.interviewer)

    wait_for(lambda: settled(role), timeout=90, what="the calibration to finish")
    jobs = CalibrationJob.objects.filter(role=role)
    assert 1 <= jobs.count() <= 2, worker.output()
    assert set(jobs.values_list("status", flat=True)) == {"done"}
    latest = CalibrationSnapshot.objects.filter(role=role, level=None).latest("computed_at")
    assert latest.result["inputs"]["ratings"] == 50
    assert latest.result["inputs"]["scorecards"] == 50
    assert "succeeded" in worker.output()


@pytest.mark.slow  # kills a worker child mid-run
def test_a_worker_child_killed_mid_run_leaves_no_partial_snapshot_and_the_run_completes(
    worker, tmp_path
):
    ratings = tmp_path / "ratings.csv"
    write_ratings_csv(ratings, candidates=10_000, interviewers=120, questions=60)
    call_command("import_scorecards", str(ratings), "--role", "Kill role", stdout=StringIO())
    role = Role.objects.get(name="Kill role")
    # The import queued a run; start from a clean slate so the one below is the only job.
    wait_for(lambda: settled(role), timeout=120, what="the import's calibration to finish")
    CalibrationSnapshot.objects.filter(role=role).delete()
    CalibrationJob.objects.filter(role=role).delete()
    connection.close()

    # Outside a transaction, so it publishes now.
    job = calibration_services.calibration_request(role=role)
    wait_for(
        lambda: CalibrationJob.objects.get(pk=job.pk).status == CalibrationJob.Status.RUNNING,
        timeout=30,
        what="the worker to start the job",
        interval=0.02,
    )
    victims = worker.children()
    assert victims, worker.output()
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    # Killed mid-run: nothing was stored.
    assert CalibrationSnapshot.objects.filter(role=role).count() == 0

    wait_for(
        lambda: CalibrationJob.objects.get(pk=job.pk).status == CalibrationJob.Status.DONE,
        timeout=120,
        what="the redelivered job to finish",
        interval=0.2,
    )
    job.refresh_from_db()
    assert job.attempts >= 2, worker.output()
    assert "WorkerLostError" in worker.output() or "Process" in worker.output()
    snapshots = CalibrationSnapshot.objects.filter(role=role, level=None)
    assert snapshots.count() == 1
    assert snapshots.get().result["inputs"]["ratings"] > 100_000
