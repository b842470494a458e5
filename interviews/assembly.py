"""Choose questions for a loop's slots. Pure functions over plain data; no ORM.

The rules, for every slot in order:

* a question qualifies if it is active, its level range covers the loop's
  level, it shares a competency with the slot (any competency if the slot names
  none), its minutes fit what is left of the slot, it is not already in this
  loop and the candidate was not asked it in an earlier loop;
* among qualifying questions, pick the one that covers most of the slot's
  competencies not yet covered, then the least asked over 90 days, then over
  30 days, then the oldest (lowest id): the same inputs give the same loop;
* repeat until the slot has its number of questions; a slot left short gets a
  warning naming it.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Option:
    question_id: int
    version_id: int
    title: str
    minutes: int
    competencies: frozenset[str]
    exposure_30: int = 0
    exposure_90: int = 0


@dataclass(frozen=True)
class SlotSpec:
    title: str
    minutes: int
    question_count: int
    competencies: frozenset[str]
    slot_id: int | None = None
    interviewer_count: int = 1


@dataclass(frozen=True)
class Pick:
    option: Option
    reason: str


@dataclass
class SlotPlan:
    slot: SlotSpec
    picks: list[Pick] = field(default_factory=list)
    warning: str | None = None

    @property
    def minutes_used(self) -> int:
        return sum(p.option.minutes for p in self.picks)


def qualifies(option: Option, slot: SlotSpec, budget: int, taken: set[int]) -> bool:
    return (
        option.question_id not in taken
        and option.minutes <= budget
        and (not slot.competencies or bool(option.competencies & slot.competencies))
    )


def rank(options: Iterable[Option], slot: SlotSpec, covered: frozenset[str]) -> list[Option]:
    """Return options best first: new competencies, then least exposed, then oldest."""

    def key(option: Option) -> tuple[int, int, int, int]:
        new = len((option.competencies & slot.competencies) - covered)
        return (-new, option.exposure_90, option.exposure_30, option.question_id)

    return sorted(options, key=key)


def reason_for(option: Option, slot: SlotSpec, covered: frozenset[str], level: str) -> str:
    matched = sorted(option.competencies & slot.competencies)
    new = [c for c in matched if c not in covered]
    if new:
        what = f"covers {', '.join(new)}"
    elif matched:
        what = f"also on {', '.join(matched)}"
    else:
        what = "open slot"
    asked = option.exposure_90
    exposure = "not asked in 90 days" if asked == 0 else f"asked {asked}× in 90 days"
    return f"{what}; {exposure}; fits {level}, {option.minutes} min"


def plan_loop(
    slots: Sequence[SlotSpec], options: Sequence[Option], *, excluded: set[int], level: str
) -> list[SlotPlan]:
    """Return a plan per slot. `excluded` holds question ids the candidate has already had."""
    taken = set(excluded)
    plans = []
    for slot in slots:
        plan = SlotPlan(slot)
        eligible = [o for o in options if qualifies(o, slot, slot.minutes, taken)]
        covered: frozenset[str] = frozenset()
        while len(plan.picks) < slot.question_count:
            budget = slot.minutes - plan.minutes_used
            fitting = [o for o in eligible if qualifies(o, slot, budget, taken)]
            if not fitting:
                break
            best = rank(fitting, slot, covered)[0]
            plan.picks.append(Pick(best, reason_for(best, slot, covered, level)))
            covered |= best.competencies & slot.competencies
            taken.add(best.question_id)
        if len(plan.picks) < slot.question_count:
            plan.warning = shortfall(slot, plan, level)
        plans.append(plan)
    return plans


def shortfall(slot: SlotSpec, plan: SlotPlan, level: str) -> str:
    topics = ", ".join(sorted(slot.competencies)) or "any competency"
    have = len(plan.picks)
    left = slot.minutes - plan.minutes_used
    return (
        f"Slot '{slot.title}' has {have} of {slot.question_count} questions: no other active "
        f"{level} question on {topics} that this candidate has not had fits the remaining "
        f"{left} minutes."
    )


def alternatives(
    slot: SlotSpec,
    options: Sequence[Option],
    *,
    keep: Sequence[Option],
    taken: set[int],
    budget: int,
    limit: int = 10,
) -> list[Option]:
    """Return ranked replacements for one question of a slot, under the same rules.

    `keep` are the slot's other questions (their competencies count as covered),
    `taken` every question the loop or the candidate's history already holds, and
    `budget` the minutes the replacement may take.
    """
    covered = frozenset().union(*(o.competencies for o in keep)) & slot.competencies
    fitting = [o for o in options if qualifies(o, slot, budget, taken)]
    return rank(fitting, slot, covered)[:limit]
