"""A candidate with something in every table and every free-text field that can hold
their data, each free text carrying one marker string.

The loop is the scorecard tests' panel (tests/scoring/conftest.py): interview 1
Ines and Pia, Sam shadowing; interview 2 Omar and Ines. Through the real
services:

* an admin log entry for the candidate and one for the loop, written while the
  candidate had an earlier name, then the rename and their contact details;
* cards: Ines, Pia and Sam (shadow) submit interview 1; Omar submits interview 2
  with one question not asked; Ines's card for interview 2 stays a draft;
* Pia reads the debrief page and amends her card; the loop is decided (no hire) with a
  rationale, through the API with an Idempotency-Key (the kept answer copies the debrief);
* a calibration run stores snapshots naming the candidate; the export is run
  once (its audit event targets the candidate by id); one audit event names
  only the loop's id and holds a short free text under "notes";
* two audit events as the product wrote them before its targets went by id, naming
  the loop and a card by their text (which holds the candidate's name);
* controls that are not about the candidate: an audit event and an admin log
  entry about a question.
"""

from dataclasses import dataclass

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from core.audit.services import audit_event_record
from core.models import AuditEvent
from core.webhooks.services import webhook_subscription_create
from interviews import services as interview_services
from interviews.models import Candidate, Interview, Loop
from interviews.pools.models import Pool, PoolMembership, TrainingSeat
from kit.models import Question
from scoring.calibration import services as calibration_services
from scoring.models import Scorecard
from scoring.rights import services as rights_services
from scoring.scorecards import services
from tests.scoring.helpers import draft, ratings_for, submitted
from tests.support.factories import make_question
from tests.support.loops import Seat, build_loop

MARK = "qzmarker"


@dataclass
class Seeded:
    candidate: Candidate
    loop: Loop
    interviews: list[Interview]
    id_only_event: AuditEvent
    legacy_events: list[AuditEvent]
    control_event: AuditEvent
    control_entry: LogEntry

    @property
    def name(self) -> str:
        return self.candidate.name


def seed(
    *,
    recruiter: User,
    lead: User,
    ines: User,
    pia: User,
    sam: User,
    omar: User,
    mark: str = MARK,
    name: str = "",
) -> Seeded:
    """Seed the candidate (named `name` if given, else "Casey <mark>name Quinn")."""
    built = build_loop(
        seats=[Seat(interviewers=[ines, pia], shadow=sam), Seat(interviewers=[omar, ines])],
        candidate_name=f"Casey {mark}earlier Quinn",
        recruiter=recruiter,
    )
    loop, (first, second) = built.loop, built.interviews
    candidate = loop.candidate
    LogEntry.objects.log_actions(
        recruiter.pk,
        [candidate],
        CHANGE,
        f"Checked the spelling of {candidate}",
        single_object=True,
    )
    LogEntry.objects.log_actions(
        recruiter.pk,
        [loop],
        ADDITION,
        [{"added": {"name": "interview", "object": str(first)}}],
        single_object=True,
    )
    interview_services.candidate_update(
        candidate=candidate,
        name=name or f"Casey {mark}name Quinn",
        email=f"casey.{mark}@example.com",
        phone=f"+44 {mark} 0101",
        notes=f"Referred by a friend; {mark} notes on the candidate",
    )
    loop.refresh_from_db()
    # An ATS allowed the details: its events copy the candidate's name and free text.
    webhook_subscription_create(
        url="http://127.0.0.1:9/ats",
        event_types=["scorecard.submitted", "scorecard.amended", "loop.decided"],
        include_details=True,
        by=recruiter,
    )

    # Sam shadows the first interview as a trainee; Ines's sign-off note quotes the candidate.
    # Straight into the tables: the services' audit events are about the pool, not them.
    pool = Pool.objects.create(name="Trainees", role=loop.role)
    membership = PoolMembership.objects.create(pool=pool, user=sam, status="training")
    TrainingSeat.objects.create(
        membership=membership, interview=first, kind="shadow", outcome="not_yet",
        note=f"Missed what {mark} said about caching", signed_off_by=ines,
    )  # fmt: skip
    submitted(ines, first, notes=f"{mark} ines notes", summary=f"{mark} ines summary")
    submitted(pia, first, rating=2, notes=f"{mark} pia notes", summary=f"{mark} pia summary")
    submitted(sam, first, notes=f"{mark} shadow notes", summary=f"{mark} shadow summary")
    omar_card = services.scorecard_start(interview=second, by=omar)
    ratings = ratings_for(second, rating=3, notes=f"{mark} omar notes")
    ratings[-1] = services.RatingInput(
        item=ratings[-1].item, not_asked=True, not_asked_reason=f"{mark} ran out of time"
    )
    services.scorecard_save_draft(
        scorecard=omar_card,
        by=omar,
        recommendation="no",
        summary=f"{mark} omar summary",
        ratings=ratings,
    )
    services.scorecard_submit(scorecard=omar_card, by=omar)
    draft(ines, second, notes=f"{mark} ines draft notes", summary=f"{mark} ines draft summary")
    # Pia reads the debrief (a FeedbackRead row), then amends.
    reader = Client()
    reader.force_login(pia)
    assert reader.get(f"/loops/{loop.pk}/debrief/").status_code == 200

    services.scorecard_amend(
        scorecard=Scorecard.objects.get(interview=first, interviewer=pia),
        by=pia,
        reason=f"{mark} misread my notes",
        recommendation="strong_no",
        summary=f"{mark} pia amended summary",
        ratings=ratings_for(first, rating=1, notes=f"{mark} pia amended notes"),
    )
    keyed = APIClient()
    keyed.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=recruiter).key}")
    decided = keyed.post(
        f"/api/v1/loops/{loop.pk}/decision/",
        {"decision": "no_hire", "rationale": f"{mark} rationale"},
        HTTP_IDEMPOTENCY_KEY="decide-1",
    )
    assert decided.status_code == 200, decided.content
    calibration_services.calibration_run_now(role=loop.role, by=lead)
    rights_services.candidate_export(candidate=candidate, by=recruiter)
    id_only = audit_event_record(
        actor=recruiter, action="loop.noted", target=f"loop {loop.pk}", notes="Seen"
    )
    pia_card = Scorecard.objects.get(interview=first, interviewer=pia)
    legacy = [
        audit_event_record(
            actor=recruiter, action="loop.decided", target=str(loop), decision="no_hire"
        ),
        audit_event_record(
            actor=pia, action="scorecard.amended", target=str(pia_card),
            reason=f"{mark} misread my notes",
        ),
    ]  # fmt: skip

    question = Question.objects.order_by("pk").first()
    assert question is not None
    control = audit_event_record(
        actor=lead, action="question.retired", target=f"question {question}", reason="Too easy"
    )
    entry = LogEntry.objects.log_actions(
        lead.pk, [question], CHANGE, "Tightened the outline", single_object=True
    )
    candidate.refresh_from_db()
    loop.refresh_from_db()
    return Seeded(
        candidate=candidate,
        loop=loop,
        interviews=[first, second],
        id_only_event=id_only,
        legacy_events=legacy,
        control_event=control,
        control_entry=entry,
    )


def seed_every_column(*, seeded: Seeded, recruiter: User, mark: str = MARK) -> Loop:
    """Add what seed() leaves out, so that every column that can hold a candidate's data
    (scoring.rights.inventory) holds the marker: a second loop, cancelled with a reason,
    with an interview added under a title a recruiter typed (its shortfall warning
    quotes it) and a question swapped in with a reason. Return the loop.
    """
    slug = seeded.interviews[0].competencies[0]
    loop = interview_services.loop_create(
        candidate=seeded.candidate, role=seeded.loop.role, level=seeded.loop.level, by=recruiter
    )
    for n in range(2):
        make_question(role=loop.role, title=f"Extra question {n}", competencies=[slug])
    added = interview_services.interview_add(
        loop=loop, title=f"Casey's {mark} chat", minutes=45, competencies=[slug],
        question_count=3, by=recruiter,
    )  # fmt: skip
    assert added.title in loop_warnings(loop)
    spare = make_question(role=loop.role, title="Extra question 2", competencies=[slug])
    api = APIClient()
    api.force_authenticate(recruiter)
    item = added.questions.order_by("order").first()
    assert item is not None
    swapped = api.post(
        f"/api/v1/interviews/{added.pk}/swap/",
        {"item": item.pk, "question": spare.pk, "reason": f"{mark} wanted more depth"},
    )
    assert swapped.status_code == 200, swapped.content
    cancelled = api.post(f"/api/v1/loops/{loop.pk}/cancel/", {"reason": f"{mark} withdrew"})
    assert cancelled.status_code == 200, cancelled.content
    loop.refresh_from_db()
    return loop


def loop_warnings(loop: Loop) -> str:
    loop.refresh_from_db()
    return " ".join(loop.warnings)
