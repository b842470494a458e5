"""Turn the scorecard page's POST into service inputs, naming the field on bad input."""

from django.http import QueryDict

from core.api.exceptions import ApplicationError
from interviews.models import InterviewQuestion
from scoring.scorecards.services import RatingInput


def _ints(values: list[str], field: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values if v != "")
    except ValueError:
        raise ApplicationError(f"{field}: expected ids, got {values!r}", code="bad_ids") from None


def _shown(raw: str, field: str) -> int | None:
    """The question the page showed for an item (a swap since is refused, not rated)."""
    if not raw:
        return None
    try:
        shown = int(raw)
    except ValueError:
        shown = 0
    if shown < 1:
        raise ApplicationError(
            f"{field}: expected the id of the question the page showed, got {raw!r}",
            code="bad_question_id",
        )
    return shown


def parse_scorecard(
    data: QueryDict, items: list[InterviewQuestion]
) -> tuple[str, str, list[RatingInput]]:
    """Return (recommendation, summary, ratings) from the form fields `q<item id>-...`."""
    ratings = []
    for item in items:
        prefix = f"q{item.pk}-"
        raw = data.get(prefix + "rating", "")
        try:
            rating = int(raw) if raw else None
        except ValueError:
            raise ApplicationError(
                f"{item.question.title}: rating {raw!r} is not a number", code="rating_not_a_number"
            ) from None
        not_asked = data.get(prefix + "not_asked") == "on"
        question = _shown(data.get(prefix + "question", ""), prefix + "question")
        entry = RatingInput(
            item=item.pk,
            question=question,
            # Kept as posted: ratings.validated refuses a rated question not asked.
            rating=rating,
            not_asked=not_asked,
            not_asked_reason=data.get(prefix + "reason", ""),
            checked=_ints(data.getlist(prefix + "checked"), item.question.title),
            follow_ups_asked=_ints(data.getlist(prefix + "follow_ups"), item.question.title),
            notes=data.get(prefix + "notes", ""),
        )
        if entry != RatingInput(item=item.pk, question=question):
            ratings.append(entry)
    return data.get("recommendation", ""), data.get("summary", ""), ratings
