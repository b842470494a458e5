"""factory_boy factories. Questions are made through the service, as the product makes them."""

from typing import Any

import factory

from kit import services
from kit.models import Competency, Level, Question, Role


class RoleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Role
        django_get_or_create = ["name"]

    name = "AI Infrastructure Engineer"


class CompetencyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Competency
        django_get_or_create = ["slug"]

    slug = factory.Sequence(lambda n: f"competency-{n}")
    name = factory.LazyAttribute(lambda c: c.slug.replace("-", " ").capitalize())


def level(name: str) -> Level:
    return Level.objects.get(name=name)


def make_question(
    *,
    role: Role | None = None,
    title: str | None = None,
    prompt: str | None = None,
    outline: str = (
        "Explains the mechanism in plain terms. Estimates the cost with numbers. "
        "A strong answer also compares two alternatives. A common miss is ignoring failure modes."
    ),
    follow_ups: tuple[str, ...] = ("What would you measure first?",),
    competencies: list[str] = (),  # type: ignore[assignment]
    min_level: str | None = None,
    max_level: str | None = None,
    minutes: int = 15,
    scale_max: int = 4,
    status: str = "active",
    **extra: Any,
) -> Question:
    make_question.counter += 1  # type: ignore[attr-defined]
    n = make_question.counter  # type: ignore[attr-defined]
    return services.question_create(
        role=role or RoleFactory(),
        meta=services.Meta(
            title=title or f"Question {n}",
            status=status,
            competencies=[CompetencyFactory(slug=slug) for slug in competencies],
            min_level=level(min_level) if min_level else None,
            max_level=level(max_level) if max_level else None,
        ),
        content=services.Content(
            prompt=prompt or f"Question {n}: how would you design it?",
            outline=outline,
            minutes=minutes,
            scale_max=scale_max,
            follow_ups=follow_ups,
        ),
        **extra,
    )


make_question.counter = 0  # type: ignore[attr-defined]
