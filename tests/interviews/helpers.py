"""Helpers shared by the loop and interview tests: a small bank, a big bank, snapshots."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.core.management import call_command
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from rest_framework import serializers

from interviews import services
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import (
    Competency,
    Level,
    LoopSlot,
    LoopTemplate,
    Question,
    QuestionVersion,
    Role,
)
from kit.services import SlotData, loop_template_save, loop_templates_import
from tests.factories import CompetencyFactory, RoleFactory, make_question

DATA = Path(settings.BASE_DIR) / "kit" / "data"
# Contact details no interviewer may ever see; unusual enough not to occur by chance.
EMAIL = "casey.quinn@private-mail.example"
PHONE = "+1 555 0142 77"


def load_starter() -> Role:
    """Load the starter bank and loop templates as seed_demo does."""
    call_command("import_questions", str(DATA / "starter_bank.yaml"), stdout=StringIO())
    loop_templates_import(document=yaml.safe_load((DATA / "loop_templates.yaml").read_text()))
    return Role.objects.get(name="AI Infrastructure Engineer")


def level(name: str) -> Level:
    return Level.objects.get(name=name)


def iso(value: datetime | None) -> str | None:
    """A datetime as the API writes it."""
    return serializers.DateTimeField().to_representation(value) if value else None


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
    candidate = services.candidate_create(name="Casey Quinn", email=EMAIL, phone=PHONE)
    return World(role=role, level=level("L5"), template=template, candidate=candidate, q=questions)


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


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row a loop, interview or template write could touch, so any write shows."""
    return {
        "candidates": list(Candidate.objects.order_by("pk").values()),
        "loops": list(Loop.objects.order_by("pk").values()),
        "interviews": list(Interview.objects.order_by("pk").values()),
        "panelists": list(Panelist.objects.order_by("pk").values()),
        "assigned": list(InterviewQuestion.objects.order_by("pk").values()),
        "versions": list(QuestionVersion.objects.order_by("pk").values("pk", "in_use")),
        "templates": list(LoopTemplate.objects.order_by("pk").values()),
        "slots": list(LoopSlot.objects.order_by("pk").values()),
        "slot_competencies": list(LoopSlot.competencies.through.objects.order_by("pk").values()),
    }


def pinned(item: InterviewQuestion) -> dict:
    """Return the pinned version's text, rubric and follow-ups as the API shows them."""
    version = QuestionVersion.objects.get(pk=InterviewQuestion.objects.get(pk=item.pk).version_id)
    return {
        "scale_max": version.scale_max,
        "prompt": version.prompt,
        "outline": version.outline,
        "rubric": [
            {"id": r.pk, "text": r.text, "kind": r.kind, "order": r.order}
            for r in version.rubric.order_by("order")
        ],
        "follow_ups": [
            {"id": f.pk, "text": f.text, "order": f.order}
            for f in version.follow_ups.order_by("order")
        ],
    }
