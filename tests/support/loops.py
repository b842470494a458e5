"""The loop builder the tests share: a bank and a template, then a loop with its panels.

* `make_world()`: a small bank with a two-slot L5 template and a candidate, no loop yet
  (the interview tests' world, described on `World`).
* `build_loop(seats=...)`: a bank and an L5 template of one slot per seat, then a loop
  built with the real services and scheduled: each panel seated, interviews that ended
  days ago (the scorecard tests' loop).
* `seat_panels()`: the step both share to schedule a loop, one interview per seat.
* `history_loop()` and `bulk_bank()`: past interviews and large banks, written straight
  into the tables, for exposure and scale.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from interviews import services as interview_services
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from kit.models import Competency, Level, LoopTemplate, Question, QuestionVersion, Role
from kit.services import SlotData, loop_template_save, loop_templates_import
from tests.support.factories import CompetencyFactory, RoleFactory, level, make_question

DATA = Path(settings.BASE_DIR) / "kit" / "data"
# Contact details no interviewer may ever see; unusual enough not to occur by chance.
EMAIL = "casey.quinn@private-mail.example"
PHONE = "+1 555 0142 77"
# Every interview of a built loop starts this long before the test runs, one hour apart.
STARTED_AGO = timedelta(days=3)


def load_starter() -> Role:
    """Load the starter bank and loop templates as seed_demo does."""
    call_command("import_questions", str(DATA / "starter_bank.yaml"), stdout=StringIO())
    loop_templates_import(document=yaml.safe_load((DATA / "loop_templates.yaml").read_text()))
    return Role.objects.get(name="AI Infrastructure Engineer")


@dataclass
class Seat:
    interviewers: list[User]
    shadow: User | None = None


@dataclass
class Built:
    loop: Loop
    interviews: list[Interview]
    items: dict[int, list[InterviewQuestion]] = field(default_factory=dict)

    def questions(self, interview: Interview) -> list[InterviewQuestion]:
        return self.items[interview.pk]

    def fresh(self) -> "Built":
        """The same loop read again: objects of the caller's own, for a loop built once
        and shared by tests (tests/support/shared_db.py)."""
        loop = Loop.objects.get(pk=self.loop.pk)
        interviews = list(loop.interviews.order_by("order"))
        return Built(loop=loop, interviews=interviews, items=_items(interviews))


def _items(interviews: Sequence[Interview]) -> dict[int, list[InterviewQuestion]]:
    return {
        interview.pk: list(
            interview.questions.select_related("question", "version").order_by("order")
        )
        for interview in interviews
    }


def seat_panels(
    interviews: Sequence[Interview],
    seats: Sequence[Seat],
    *,
    start: datetime,
    every: timedelta,
    minutes: int,
) -> None:
    """Seat each interview's panel with interview_update, the n-th starting at
    `start + n * every` and lasting `minutes` (so the loop becomes scheduled)."""
    for n, (interview, seat) in enumerate(zip(interviews, seats, strict=True)):
        begins = start + every * n
        interview_services.interview_update(
            interview=interview,
            interviewers=seat.interviewers,
            shadow=seat.shadow,
            scheduled_start=begins,
            scheduled_end=begins + timedelta(minutes=minutes),
        )


@dataclass
class World:
    """A small bank with a two-slot L5 template, and a candidate with contact details.

    Slot "Serving" (45 min, 2 questions) on serving; slot "Training" (45 min,
    2 questions, 2 interviewers) on training and networking. Questions by name
    (15 minutes, any level, active unless said otherwise):

    * serving-1, serving-2 (15 min), serving-3 (20 min): qualify for "Serving";
    * serving-l7 (L6-L7 only), serving-retired, serving-draft: never qualify at L5;
    * serving-long (40 min): too long once one question is in;
    * training-1 (training, L4-L6), networking-1 (networking), both-1 (training and
      networking), training-2 (training): qualify for "Training";
    * unrelated-1: a competency no slot names;
    * other-role: serving, but another role.
    """

    role: Role
    level: Level
    template: LoopTemplate
    candidate: Candidate
    q: dict[str, Question] = field(default_factory=dict)


def make_world() -> World:
    role = RoleFactory()
    for slug in ("serving", "training", "networking", "unrelated"):
        CompetencyFactory(slug=slug)
    template = loop_template_save(
        role=role,
        level=level("L5"),
        name="Small L5",
        slots=[
            SlotData(title="Serving", minutes=45, competencies=("serving",), question_count=2),
            SlotData(
                title="Training",
                minutes=45,
                competencies=("training", "networking"),
                question_count=2,
                interviewer_count=2,
            ),
        ],
    )
    spec: list[tuple[str, dict[str, Any]]] = [
        ("serving-1", {"competencies": ["serving"]}),
        ("serving-2", {"competencies": ["serving"]}),
        ("serving-3", {"competencies": ["serving"], "minutes": 20}),
        ("serving-l7", {"competencies": ["serving"], "min_level": "L6", "max_level": "L7"}),
        ("serving-retired", {"competencies": ["serving"], "status": "retired"}),
        ("serving-draft", {"competencies": ["serving"], "status": "draft"}),
        ("serving-long", {"competencies": ["serving"], "minutes": 40}),
        ("training-1", {"competencies": ["training"], "min_level": "L4", "max_level": "L6"}),
        ("networking-1", {"competencies": ["networking"]}),
        ("both-1", {"competencies": ["training", "networking"]}),
        ("training-2", {"competencies": ["training"]}),
        ("unrelated-1", {"competencies": ["unrelated"]}),
    ]
    questions = {
        name: make_question(role=role, title=name, prompt=f"Prompt of {name}?", **extra)
        for name, extra in spec
    }
    other = Role.objects.create(name="Data Engineer")
    questions["other-role"] = make_question(
        role=other, title="other-role", competencies=["serving"]
    )
    candidate = interview_services.candidate_create(name="Casey Quinn", email=EMAIL, phone=PHONE)
    return World(role=role, level=level("L5"), template=template, candidate=candidate, q=questions)


def build_loop(
    *,
    seats: list[Seat],
    role_name: str = "AI Infrastructure Engineer",
    candidate_name: str = "Casey Quinn",
    recruiter: User | None = None,
    questions_per_interview: int = 4,
) -> Built:
    """Build a loop of len(seats) interviews with the real services and seat the panels.

    A loop here has one interview per slot, `questions_per_interview` questions per
    interview (15 minutes each, the default outline: two core points, one strong, one
    red flag; one follow-up), interviews that ended days ago, and the panels given.

    1. A competency and the questions per slot, made with kit.services.question_create.
    2. The role's L5 template (one slot per interview) with loop_template_save.
    3. The loop with interviews.services.loop_create, then each panel and time with
       seat_panels (so the loop is scheduled).
    """
    role, _ = Role.objects.get_or_create(name=role_name)
    l5 = level("L5")
    slots = []
    for n in range(1, len(seats) + 1):
        slug = f"{role.pk}-slot-{n}"
        CompetencyFactory(slug=slug)
        for q in range(1, questions_per_interview + 1):
            make_question(
                role=role,
                title=f"Slot {n} question {q}",
                prompt=f"Slot {n}, question {q}: how would you design it?",
                competencies=[slug],
            )
        slots.append(
            SlotData(
                title=f"Interview {n}",
                minutes=15 * questions_per_interview,
                competencies=(slug,),
                question_count=questions_per_interview,
                interviewer_count=len(seats[n - 1].interviewers),
            )
        )
    loop_template_save(role=role, level=l5, name=f"{role_name} L5", slots=slots)
    candidate = interview_services.candidate_create(name=candidate_name, email="c@example.com")
    loop = interview_services.loop_create(candidate=candidate, role=role, level=l5, by=recruiter)
    interviews = list(loop.interviews.order_by("order"))
    assert len(interviews) == len(seats)
    seat_panels(
        interviews,
        seats,
        start=timezone.now().replace(microsecond=0) - STARTED_AGO,
        every=timedelta(hours=1),
        minutes=15 * questions_per_interview,
    )
    loop.refresh_from_db()
    interviews = list(loop.interviews.order_by("order"))
    built = Built(loop=loop, interviews=interviews, items=_items(interviews))
    for items in built.items.values():
        assert len(items) == questions_per_interview, loop.warnings
    return built


def history_loop(
    questions: list[Question],
    *,
    role: Role,
    level: Level,
    days_ago: float | None,
    name: str = "",
    candidate: Candidate | None = None,
) -> Interview:
    """Give `questions` to a candidate (a new one named `name` unless given) in an
    interview held `days_ago` (None: not scheduled)."""
    candidate = candidate or Candidate.objects.create(name=name)
    loop = Loop.objects.create(candidate=candidate, role=role, level=level)
    start = None if days_ago is None else timezone.now() - timedelta(days=days_ago)
    interview = Interview.objects.create(
        loop=loop,
        order=1,
        title="Earlier",
        minutes=60,
        scheduled_start=start,
        scheduled_end=start + timedelta(hours=1) if start else None,
    )
    for order, question in enumerate(questions, start=1):
        InterviewQuestion.objects.create(
            interview=interview,
            loop=loop,
            question=question,
            version=question.current,
            order=order,
        )
    return interview


def bulk_bank(
    role: Role, count: int, *, competencies: list[Competency], start: int = 0
) -> list[Question]:
    """Create `count` questions fast, straight into the tables (no services).

    Every 10th is retired and every 7th is for L7 only, so the level and status
    filters have work to do; the rest cover every level. Competencies rotate over
    `competencies`, minutes (in threes) over 10, 15 and 20.
    """
    l7 = Level.objects.get(name="L7")
    questions = Question.objects.bulk_create(
        [
            Question(
                role=role,
                title=f"Bulk question {i}",
                status=Question.Status.RETIRED if i % 10 == 9 else Question.Status.ACTIVE,
                min_level=l7 if i % 7 == 6 else None,
            )
            for i in range(start, start + count)
        ],
        batch_size=2000,
    )
    QuestionVersion.objects.bulk_create(
        [
            QuestionVersion(
                question=q,
                number=1,
                prompt=f"{q.title}: how would you approach it?",
                outline="Explains the mechanism. Estimates the cost.",
                minutes=(10, 15, 20)[(i // 3) % 3],
            )
            for i, q in enumerate(questions, start=start)
        ],
        batch_size=2000,
    )
    # One UPDATE points every new question at its version.
    Question.objects.filter(role=role, current__isnull=True).update(
        current=Subquery(
            QuestionVersion.objects.filter(question=OuterRef("pk"), number=1).values("pk")[:1]
        )
    )
    through = Question.competencies.through
    through.objects.bulk_create(
        [
            through(question_id=q.pk, competency_id=competencies[i % len(competencies)].pk)
            for i, q in enumerate(questions, start=start)
        ],
        batch_size=2000,
    )
    return questions
