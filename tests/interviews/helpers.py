"""Helpers for the loop and interview tests: snapshots of what a write could touch, and the
pinned version as the API shows it. The bank and loop builders are in tests.support.loops."""

from typing import Any

from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import LoopSlot, LoopTemplate, QuestionVersion


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
