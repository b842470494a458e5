"""What an amendment changed: every field of the card whose value differs, before
and after, read from the two copies of the card the amendment keeps
(selectors.scorecard_as_dict). Fields left as they were are not mentioned.

============================ =========================== ==================================
field                        where in the card           shown as
============================ =========================== ==================================
recommendation               ``recommendation``          its label ("Strong yes")
summary                      ``summary``                 the text
rating (per question)        ``ratings[].rating``        the number, "—" without one
not asked (per question)     ``not_asked`` and its       "asked", or "not asked (reason)"
                             ``not_asked_reason``
rubric items (per question)  ``ratings[].checked``       the ticked items' texts
follow-ups (per question)    ``follow_ups_asked``        the asked follow-ups' texts
notes (per question)         ``ratings[].notes``         the text
============================ =========================== ==================================

A question rated on one side only (rated for the first time in the amendment)
compares with an empty rating: no number, asked, nothing ticked, no notes.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.models import Amendment, Scorecard

NONE = "—"

_EMPTY_RATING: dict[str, Any] = {
    "rating": None,
    "not_asked": False,
    "not_asked_reason": "",
    "checked": [],
    "follow_ups_asked": [],
    "notes": "",
}


@dataclass(frozen=True)
class Change:
    """One field an amendment changed: which, of which question (None: the card's own)."""

    field: str
    before: str
    after: str
    question: str | None = None


@dataclass(frozen=True)
class Labels:
    """The names a change is read in: question titles by interview-question id (the
    card's `item`), rubric item and follow-up texts by id."""

    questions: Mapping[int, str] = field(default_factory=dict)
    rubric: Mapping[int, str] = field(default_factory=dict)
    follow_ups: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Note:
    """An amendment as the debrief shows it: who, when, why, and what it changed."""

    amendment: Amendment
    changes: list[Change]


def follow_ups_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> set[int]:
    """Return the follow-ups of the questions whose follow-ups asked the amendment
    changed: the only ones whose texts a note shows (looked up once for a page)."""
    old = {r["item"]: set(r["follow_ups_asked"]) for r in before.get("ratings", [])}
    new = {r["item"]: set(r["follow_ups_asked"]) for r in after.get("ratings", [])}
    found: set[int] = set()
    for item in old.keys() | new.keys():
        was, now = old.get(item, set()), new.get(item, set())
        if was != now:
            found |= was | now
    return found


def changes(before: Mapping[str, Any], after: Mapping[str, Any], *, labels: Labels) -> list[Change]:
    """Return every field that differs between the card's two copies, in the card's
    order: recommendation, summary, then each question's fields in turn."""
    found: list[Change] = []
    if before.get("recommendation") != after.get("recommendation"):
        found.append(
            Change(
                "recommendation",
                _recommendation(before.get("recommendation")),
                _recommendation(after.get("recommendation")),
            )
        )
    if before.get("summary", "") != after.get("summary", ""):
        found.append(Change("summary", _text(before.get("summary")), _text(after.get("summary"))))
    old = {r["item"]: r for r in before.get("ratings", [])}
    new = {r["item"]: r for r in after.get("ratings", [])}
    order = [r["item"] for r in after.get("ratings", [])]
    order += [item for item in old if item not in new]
    for item in order:
        was, now = old.get(item, _EMPTY_RATING), new.get(item, _EMPTY_RATING)
        question = labels.questions.get(item, f"Question {item}")
        for name, read in _RATING_FIELDS:
            shown_before, shown_after = read(was, labels), read(now, labels)
            if shown_before != shown_after:
                found.append(Change(name, shown_before, shown_after, question))
    return found


def _recommendation(value: str | None) -> str:
    if not value:
        return NONE
    return str(dict(Scorecard.Recommendation.choices).get(value, value))


def _text(value: str | None) -> str:
    return value or NONE


def _rating(rating: Mapping[str, Any], labels: Labels) -> str:
    return NONE if rating["rating"] is None else str(rating["rating"])


def _asked(rating: Mapping[str, Any], labels: Labels) -> str:
    if not rating["not_asked"]:
        return "asked"
    reason = rating.get("not_asked_reason") or ""
    return f"not asked ({reason})" if reason else "not asked"


def _named(ids: Iterable[int], names: Mapping[int, str]) -> str:
    texts = [names.get(pk, f"#{pk}") for pk in sorted(ids)]
    return "; ".join(texts) if texts else "none"


def _ticked(rating: Mapping[str, Any], labels: Labels) -> str:
    return _named(rating["checked"], labels.rubric)


def _follow_ups(rating: Mapping[str, Any], labels: Labels) -> str:
    return _named(rating["follow_ups_asked"], labels.follow_ups)


def _notes(rating: Mapping[str, Any], labels: Labels) -> str:
    return _text(rating.get("notes"))


_RATING_FIELDS = (
    ("rating", _rating),
    ("not asked", _asked),
    ("rubric items ticked", _ticked),
    ("follow-ups asked", _follow_ups),
    ("notes", _notes),
)
