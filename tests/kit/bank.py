"""Helpers shared by the question bank tests: the seed document, command runners, snapshots."""

from io import StringIO
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command

from kit.models import Competency, FollowUp, Question, QuestionVersion, Role, RubricItem

SEED = Path(settings.BASE_DIR) / "tests" / "data" / "ai-infra-engineer-questions.txt"
ROLE = "AI Infrastructure Engineer"
# The plain-text seed document's heading names the role in its own casing.
HEADING_ROLE = "AI infrastructure engineer"
SEED_QUESTIONS = 25
SEED_FOLLOW_UPS = 28


def run(command: str, *args: str) -> tuple[str, str]:
    """Run a management command; return what it wrote to stdout and stderr."""
    out, err = StringIO(), StringIO()
    call_command(command, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def import_seed(*args: str) -> str:
    out, _ = run("import_questions", str(SEED), *args)
    return out


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Return every row of the bank, ids included, so any write shows up as a difference."""
    through = Question.competencies.through
    return {
        "roles": list(Role.objects.order_by("pk").values()),
        "competencies": list(Competency.objects.order_by("pk").values()),
        "questions": list(Question.objects.order_by("pk").values()),
        "question_competencies": list(through.objects.order_by("pk").values()),
        "versions": list(QuestionVersion.objects.order_by("pk").values()),
        "rubric": list(RubricItem.objects.order_by("pk").values()),
        "follow_ups": list(FollowUp.objects.order_by("pk").values()),
    }


def counts() -> dict[str, int]:
    return {name: len(rows) for name, rows in snapshot().items()}
