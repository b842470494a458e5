"""A question's versioned content, and the length limits its texts must keep.

The limits are the model fields' validators (kit.models); this module reads them,
so a service's check and a full_clean() can never disagree.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import models

from kit.models import FollowUp, QuestionVersion, RubricItem
from kit.rubric import derive_rubric

__all__ = ["Content", "TextProblem", "content_check", "content_of", "content_problems"]


@dataclass(frozen=True)
class Content:
    """The versioned part of a question: what is asked and what it is rated against."""

    prompt: str
    outline: str
    minutes: int = 15
    scale_max: int = 4
    follow_ups: tuple[str, ...] = ()
    # Empty means "derive from the outline".
    rubric: tuple[tuple[str, str], ...] = ()

    def with_rubric(self) -> "Content":
        if self.rubric:
            return self
        derived = tuple((item.text, item.kind) for item in derive_rubric(self.outline))
        return Content(
            self.prompt, self.outline, self.minutes, self.scale_max, self.follow_ups, derived
        )


def content_of(version: QuestionVersion) -> Content:
    return Content(
        prompt=version.prompt,
        outline=version.outline,
        minutes=version.minutes,
        scale_max=version.scale_max,
        follow_ups=tuple(f.text for f in version.follow_ups.all()),
        rubric=tuple((r.text, r.kind) for r in version.rubric.all()),
    )


@dataclass(frozen=True)
class TextProblem:
    """One question text over its length limit (kit.models): the field, and for
    follow-ups and rubric items which one (from 1)."""

    field: str
    item: int | None
    message: str


def _refusals(model: type[models.Model], name: str, value: str) -> list[str]:
    """Return the messages of the model field's own validators for `value`."""
    model_field = model._meta.get_field(name)
    assert isinstance(model_field, models.Field)  # a concrete column, not a relation
    try:
        model_field.run_validators(value)
    except ValidationError as error:
        return error.messages
    return []


def content_problems(content: Content) -> list[TextProblem]:
    """Return every text of `content` over its limit, in the order a writer reads them.

    The limits are the model fields' validators (kit.models), so this and a
    full_clean() can never disagree. A rubric left to be derived from the outline
    has one item per sentence, so a sentence longer than a rubric item may be is
    the outline's problem.
    """
    problems = [
        TextProblem(name, None, message)
        for name in ("prompt", "outline")
        for message in _refusals(QuestionVersion, name, getattr(content, name))
    ]
    problems += [
        TextProblem("follow_ups", n, message)
        for n, text in enumerate(content.follow_ups, start=1)
        for message in _refusals(FollowUp, "text", text)
    ]
    if content.rubric:
        problems += [
            TextProblem("rubric", n, message)
            for n, (text, _) in enumerate(content.rubric, start=1)
            for message in _refusals(RubricItem, "text", text)
        ]
    elif not any(p.field == "outline" for p in problems):
        for item in derive_rubric(content.outline):
            for message in _refusals(RubricItem, "text", item.text):
                problems.append(
                    TextProblem(
                        "outline",
                        None,
                        f"Each sentence becomes a rubric item, and “{item.text[:40]}…” is "
                        f"too long for one: {message} Split the sentence, or write the rubric.",
                    )
                )
    return problems


_ITEM_LABELS = {"follow_ups": "Follow-up", "rubric": "Rubric item"}


def content_check(content: Content) -> None:
    """Refuse content with a text over its limit, naming the field as the editor and the
    API call it (prompt, outline, follow_ups, rubric), and the item."""
    errors: dict[str, list[str]] = {}
    for problem in content_problems(content):
        label = f"{_ITEM_LABELS[problem.field]} {problem.item}: " if problem.item else ""
        errors.setdefault(problem.field, []).append(label + problem.message)
    if errors:
        raise ValidationError(errors)
