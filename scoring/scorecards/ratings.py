"""What a scorecard's ratings may hold: the input a save takes and its checks against
the interview's questions at their pinned versions."""

from collections.abc import Sequence
from dataclasses import dataclass

from core.api.exceptions import ApplicationError, Conflict
from scoring.models import Scorecard
from scoring.scorecards import queries


@dataclass(frozen=True)
class RatingInput:
    item: int
    # The question the caller was shown for `item`: when given, a save refuses it if the
    # interview has since swapped the question (Conflict), rather than rate another.
    question: int | None = None
    rating: int | None = None
    not_asked: bool = False
    not_asked_reason: str = ""
    checked: tuple[int, ...] = ()
    follow_ups_asked: tuple[int, ...] = ()
    notes: str = ""


@dataclass(frozen=True)
class Item:
    """An interview question with what a rating of it may hold: its pinned version's
    scale, rubric items and follow-ups."""

    title: str
    question_id: int
    version_id: int
    scale: int
    rubric: frozenset[int]
    follow_ups: frozenset[int]


def _items(interview_id: int) -> dict[int, Item]:
    """Return the interview's questions by id, with the rubric items and follow-ups of
    their pinned versions. One query: this runs on every autosave."""
    rows = queries.interview_items(interview_id)
    ticks: dict[tuple[int, str], set[int]] = {}
    for kind, pk, version, _, _, _ in rows:
        ticks.setdefault((version, kind), set()).add(pk)
    return {
        pk: Item(
            title=title,
            question_id=question,
            version_id=version,
            scale=scale,
            rubric=frozenset(ticks.get((version, "rubric"), ())),
            follow_ups=frozenset(ticks.get((version, "follow_up"), ())),
        )
        for kind, pk, version, scale, title, question in rows
        if kind == "question"
    }


def validated(scorecard: Scorecard, ratings: Sequence[RatingInput]) -> dict[int, Item]:
    """Check every rating against the interview's questions and their pinned versions.

    Returns the interview's questions by id. Raises ApplicationError naming the
    first problem; nothing has been written when it does.
    """
    items = _items(scorecard.interview_id)
    seen: set[int] = set()
    for n, entry in enumerate(ratings, start=1):
        where = f"ratings[{n}]"
        item = items.get(entry.item)
        if item is None:
            raise ApplicationError(
                f"{where}: question {entry.item} is not in this interview.",
                code="question_not_in_interview",
            )
        if entry.item in seen:
            raise ApplicationError(
                f"{where}: question {entry.item} is rated twice.", code="question_rated_twice"
            )
        seen.add(entry.item)
        title = item.title
        if entry.question is not None and entry.question != item.question_id:
            raise Conflict(
                f"{where}: question {entry.item} of this interview is now '{title}': it was"
                " swapped for another since you opened the scorecard. Reload it before you"
                " rate it.",
                code="question_swapped",
            )
        if entry.not_asked:
            if entry.rating is not None:
                raise ApplicationError(
                    f"{where} ({title}): a question not asked has no rating.",
                    code="rating_for_question_not_asked",
                )
            if entry.checked or entry.follow_ups_asked:
                # Ticks on an unasked question would be kept with no rating to read them by.
                raise ApplicationError(
                    f"{where} ({title}): a question not asked has no rubric items checked"
                    " or follow-ups asked.",
                    code="not_asked_with_answers",
                )
        elif entry.rating is not None and not 1 <= entry.rating <= item.scale:
            raise ApplicationError(
                f"{where} ({title}): rating {entry.rating} is outside the scale 1–{item.scale}.",
                code="rating_out_of_scale",
            )
        foreign = sorted(set(entry.checked) - item.rubric)
        if foreign:
            raise ApplicationError(
                f"{where} ({title}): rubric item {foreign[0]} does not belong to this question.",
                code="rubric_item_foreign",
            )
        foreign = sorted(set(entry.follow_ups_asked) - item.follow_ups)
        if foreign:
            raise ApplicationError(
                f"{where} ({title}): follow-up {foreign[0]} does not belong to this question.",
                code="follow_up_foreign",
            )
    return items
