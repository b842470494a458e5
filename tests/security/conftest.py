"""The world the access matrix runs against: one loop, two interviews, every persona.

* Interview 1: Ines interviews (her card is submitted, notes PRIVATE-NOTE-INES), Sam shadows
  (no card yet).
* Interview 2: Omar (draft card, notes PRIVATE-NOTE-OMAR) and Pia (submitted card,
  notes PRIVATE-NOTE-PIA) interview.
* Olga is an interviewer on no loop, invited to a calibration exercise; Rita a recruiter
  (she built the loop); Leo a calibration lead (he made the exercise); Hank a hiring
  manager who owns the loop's role and sits on no panel.
* The candidate has contact details no interviewer may see; the role has a calibration
  snapshot, computed by the real job from the submitted cards.
"""

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User

from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from core.webhooks.models import WebhookDelivery, WebhookSubscription
from core.webhooks.services import webhook_subscription_create
from interviews import services as interview_services
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from interviews.pools.models import (
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from kit.models import Competency, Level, LoopTemplate, Question, Role
from scoring.calibration import services as scoring_services
from scoring.exercises import services as exercise_services
from scoring.models import CalibrationExercise, CalibrationJob, CalibrationSnapshot, Scorecard
from tests.conftest import make_user
from tests.scoring.helpers import draft, submitted
from tests.support.loops import Seat, build_loop

EMAIL = "secret.candidate@example.com"
PHONE = "+1 555 0199"
NOTE = {name: f"PRIVATE-NOTE-{name.upper()}" for name in ("ines", "omar", "pia")}
SUMMARY = {name: f"PRIVATE-SUMMARY-{name.upper()}" for name in ("ines", "omar", "pia")}


@dataclass
class World:
    users: dict[str, User]
    role: Role
    level: Level
    competency: Competency
    question: Question
    template: LoopTemplate
    candidate: Candidate
    loop: Loop
    first: Interview  # Ines, Sam shadowing
    second: Interview  # Omar, Pia
    item: InterviewQuestion  # the first question of interview 1
    cards: dict[str, Scorecard]
    job: CalibrationJob
    snapshot: CalibrationSnapshot
    exercise: CalibrationExercise
    webhook: WebhookSubscription  # hears submissions, details included; nothing sent
    delivery: WebhookDelivery  # of Ines's submission
    pool: Pool  # of the loop's role: Ines qualified, Sam training
    membership: PoolMembership  # Sam's, training
    limits: InterviewerLimits  # Omar's
    seat: TrainingSeat  # Sam's shadow seat on interview 1, awaiting Ines's sign-off


def build_world() -> World:
    users = {
        "rita": make_user("rita", RECRUITER, first_name="Rita"),
        "leo": make_user("leo", LEAD, first_name="Leo"),
        **{
            name: make_user(name, INTERVIEWER, first_name=name.capitalize())
            for name in ("ines", "omar", "sam", "pia", "olga")
        },
    }
    # Hank, a hiring manager (an interviewer too) on no panel, owns the loop's role.
    users["hank"] = make_user("hank", HIRING_MANAGER, first_name="Hank")
    users["hank"].groups.add(Group.objects.get(name=INTERVIEWER))
    built = build_loop(
        seats=[
            Seat(interviewers=[users["ines"]], shadow=users["sam"]),
            Seat(interviewers=[users["omar"], users["pia"]]),
        ],
        candidate_name="Secret Candidate",
        recruiter=users["rita"],
    )
    first, second = built.interviews
    built.loop.role.owners.add(users["hank"])
    candidate = interview_services.candidate_update(
        candidate=built.loop.candidate,
        name="Secret Candidate",
        email=EMAIL,
        phone=PHONE,
        notes="Prefers mornings.",
    )
    webhook = webhook_subscription_create(
        url="https://ats.example.com/hooks",
        event_types=["scorecard.submitted"],
        include_details=True,
        by=users["rita"],
    )
    cards = {
        "ines": submitted(users["ines"], first, notes=NOTE["ines"], summary=SUMMARY["ines"]),
        "pia": submitted(users["pia"], second, notes=NOTE["pia"], summary=SUMMARY["pia"]),
        "omar": draft(users["omar"], second, notes=NOTE["omar"], summary=SUMMARY["omar"]),
    }
    role = built.loop.role
    job = scoring_services.calibration_run_now(role=role, by=users["leo"])
    assert job.status == CalibrationJob.Status.DONE, job.error
    item = built.questions(first)[0]
    question = item.question
    exercise = exercise_services.exercise_create(
        title="Matrix exercise",
        question=question,
        answers=[
            exercise_services.AnswerInput(transcript="Answer one", key_rating=3, key_checked=()),
            exercise_services.AnswerInput(transcript="Answer two", key_rating=2, key_checked=()),
        ],
        participants=[users["olga"]],
        by=users["leo"],
    )
    # Pools, straight into the tables (the services' audit events would add to the log).
    pool = Pool.objects.create(name="Panel", role=role)
    TrainingPath.objects.create(pool=pool)
    PoolMembership.objects.create(pool=pool, user=users["ines"])
    membership = PoolMembership.objects.create(pool=pool, user=users["sam"], status="training")
    seat = TrainingSeat.objects.create(membership=membership, interview=first, kind="shadow")
    limits = InterviewerLimits.objects.create(user=users["omar"])
    return World(
        pool=pool,
        membership=membership,
        limits=limits,
        seat=seat,
        users=users,
        role=role,
        level=built.loop.level,
        competency=question.competencies.first(),
        question=question,
        template=LoopTemplate.objects.get(role=role, level=built.loop.level),
        candidate=candidate,
        loop=built.loop,
        first=first,
        second=second,
        item=item,
        cards=cards,
        job=job,
        snapshot=CalibrationSnapshot.objects.get(pk=job.snapshot_id),
        exercise=exercise,
        webhook=webhook,
        delivery=WebhookDelivery.objects.get(event__payload__scorecard_id=cards["ines"].pk),
    )


@pytest.fixture
def world(db: None) -> World:
    return build_world()
