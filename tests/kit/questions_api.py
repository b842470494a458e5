"""What the question API's tests share: the detail the API should show, a create payload."""

from typing import Any

from kit.models import Question
from tests.kit.bank import ROLE
from tests.support.api import iso

PLATFORM = "ML Platform Engineer"


def detail_json(question: Question) -> dict[str, Any]:
    """Return the detail representation, built from the rows the API should show."""
    question = Question.objects.get(pk=question.pk)
    version = question.current
    return {
        "id": question.pk,
        "title": question.title,
        "role": question.role.name,
        "status": question.status,
        "competencies": [c.slug for c in question.competencies.order_by("slug")],
        "levels": {
            "min": question.min_level.name if question.min_level else None,
            "max": question.max_level.name if question.max_level else None,
        },
        "version": version.number,
        "prompt": version.prompt,
        "minutes": version.minutes,
        "scale_max": version.scale_max,
        "asked_30_days": 0,
        "asked_90_days": 0,
        "current": {
            "id": version.pk,
            "number": version.number,
            "prompt": version.prompt,
            "outline": version.outline,
            "minutes": version.minutes,
            "scale_max": version.scale_max,
            "rubric": [
                {"id": r.pk, "text": r.text, "kind": r.kind, "order": r.order}
                for r in version.rubric.order_by("order")
            ],
            "follow_ups": [
                {"id": f.pk, "text": f.text, "order": f.order}
                for f in version.follow_ups.order_by("order")
            ],
            "in_use": version.in_use,
            "created_at": iso(version.created_at),
        },
        "versions": list(question.versions.order_by("number").values_list("number", flat=True)),
    }


def payload(**changes: Any) -> dict[str, Any]:
    data = {
        "role": ROLE,
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one 4k-token request take?",
        "outline": (
            "Multiplies layers, heads, head size and tokens. Doubles it for keys and values. "
            "A strong answer mentions paging. A common miss is forgetting bytes per element."
        ),
        "follow_ups": ["What changes with grouped-query attention?"],
        "competencies": ["inference-serving"],
        "min_level": "L4",
        "max_level": "L6",
        "minutes": 20,
        "scale_max": 5,
        "status": "draft",
    }
    data.update(changes)
    return data
