"""The pure planner: plain data in, a plan out; no database."""

import random

from interviews.assembly import (
    Option,
    SlotSpec,
    alternatives,
    plan_loop,
    qualifies,
    rank,
    reason_for,
)


def option(qid: int, *comps: str, minutes: int = 15, e30: int = 0, e90: int = 0) -> Option:
    return Option(
        question_id=qid,
        version_id=1000 + qid,
        title=f"Q{qid}",
        minutes=minutes,
        competencies=frozenset(comps),
        exposure_30=e30,
        exposure_90=e90,
    )


def slot(title: str, *comps: str, minutes: int = 45, count: int = 2) -> SlotSpec:
    return SlotSpec(
        title=title, minutes=minutes, question_count=count, competencies=frozenset(comps)
    )


def picked(plans) -> list[list[int]]:  # type: ignore[no-untyped-def]
    return [[p.option.question_id for p in plan.picks] for plan in plans]


def test_it_fills_each_slot_with_questions_that_share_its_competencies():
    options = [option(1, "a"), option(2, "b"), option(3, "a"), option(4, "b"), option(5, "c")]
    plans = plan_loop([slot("A", "a"), slot("B", "b")], options, excluded=set(), level="L5")
    assert picked(plans) == [[1, 3], [2, 4]]
    assert [p.warning for p in plans] == [None, None]


def test_it_never_uses_a_question_twice_in_a_loop():
    options = [option(1, "a", "b"), option(2, "a", "b"), option(3, "a", "b")]
    plans = plan_loop([slot("A", "a"), slot("B", "b")], options, excluded=set(), level="L5")
    assert picked(plans) == [[1, 2], [3]]
    ids = [i for ids in picked(plans) for i in ids]
    assert len(ids) == len(set(ids))


def test_it_skips_questions_the_candidate_has_had():
    options = [option(1, "a"), option(2, "a"), option(3, "a")]
    plans = plan_loop([slot("A", "a")], options, excluded={1}, level="L5")
    assert picked(plans) == [[2, 3]]


def test_it_keeps_the_questions_of_a_slot_within_its_minutes():
    options = [option(1, "a", minutes=30), option(2, "a", minutes=20), option(3, "a", minutes=15)]
    plans = plan_loop([slot("A", "a", minutes=45)], options, excluded=set(), level="L5")
    assert picked(plans) == [[1, 3]]
    assert plans[0].minutes_used == 45


def test_it_never_takes_a_question_longer_than_the_slot():
    plans = plan_loop(
        [slot("A", "a", minutes=30, count=1)],
        [option(1, "a", minutes=31)],
        excluded=set(),
        level="L5",
    )
    assert picked(plans) == [[]]


def test_it_prefers_the_question_covering_competencies_not_yet_covered():
    # 1 and 2 are older, but 3 covers both topics and 4 the one left after 1.
    options = [option(1, "a"), option(2, "a"), option(3, "a", "b"), option(4, "c")]
    plans = plan_loop(
        [slot("ABC", "a", "b", "c", minutes=60, count=3)], options, excluded=set(), level="L5"
    )
    assert picked(plans) == [[3, 4, 1]]


def test_it_prefers_the_least_asked_in_90_days_then_in_30_days_then_the_oldest():
    options = [
        option(1, "a", e30=0, e90=3),
        option(2, "a", e30=1, e90=1),
        option(3, "a", e30=0, e90=1),
        option(4, "a", e30=0, e90=2),
        option(5, "a", e30=0, e90=1),
    ]
    ranked = rank(options, slot("A", "a"), frozenset())
    assert [o.question_id for o in ranked] == [3, 5, 2, 4, 1]


def test_competency_coverage_outranks_exposure():
    options = [option(1, "a", e90=0), option(2, "b", e90=5)]
    ranked = rank(options, slot("AB", "a", "b"), frozenset({"a"}))
    assert [o.question_id for o in ranked] == [2, 1]


def test_it_gives_the_same_plan_whatever_order_the_options_come_in():
    options = [
        option(i, "abc"[i % 3], minutes=(10, 15, 20)[i % 3], e90=i % 4) for i in range(1, 40)
    ]
    slots = [slot("A", "a", count=3), slot("B", "b", "c", minutes=60, count=3)]
    first = plan_loop(slots, options, excluded={5}, level="L5")
    shuffled = options[:]
    random.Random(7).shuffle(shuffled)
    second = plan_loop(slots, shuffled, excluded={5}, level="L5")
    assert picked(first) == picked(second)
    assert [[p.reason for p in s.picks] for s in first] == [
        [p.reason for p in s.picks] for s in second
    ]


def test_a_slot_naming_no_competency_takes_any_question():
    plans = plan_loop([slot("Open")], [option(1, "z"), option(2)], excluded=set(), level="L5")
    assert picked(plans) == [[1, 2]]
    assert plans[0].picks[0].reason == "open slot; not asked in 90 days; fits L5, 15 min"


def test_it_warns_naming_the_slot_it_could_not_fill():
    plans = plan_loop(
        [slot("Serving", "serving", "cost"), slot("Training", "training")],
        [option(1, "serving", minutes=20), option(2, "training")],
        excluded=set(),
        level="L6",
    )
    assert picked(plans) == [[1], [2]]
    assert plans[0].warning == (
        "Slot 'Serving' has 1 of 2 questions: no other active L6 question on cost, serving "
        "that this candidate has not had fits the remaining 25 minutes."
    )
    assert plans[1].warning == (
        "Slot 'Training' has 1 of 2 questions: no other active L6 question on training "
        "that this candidate has not had fits the remaining 30 minutes."
    )


def test_it_warns_for_an_empty_slot_and_still_plans_the_others():
    plans = plan_loop(
        [slot("Empty", "nothing"), slot("Full", "a")],
        [option(1, "a"), option(2, "a")],
        excluded=set(),
        level="L3",
    )
    assert picked(plans) == [[], [1, 2]]
    assert plans[0].warning is not None
    assert plans[0].warning.startswith("Slot 'Empty' has 0 of 2 questions")
    assert plans[1].warning is None


def test_each_pick_says_why_it_was_chosen():
    options = [option(1, "a", "b", e90=0), option(2, "a", minutes=20, e90=3, e30=1)]
    plans = plan_loop([slot("AB", "a", "b")], options, excluded=set(), level="L4")
    assert [p.reason for p in plans[0].picks] == [
        "covers a, b; not asked in 90 days; fits L4, 15 min",
        "also on a; asked 3× in 90 days; fits L4, 20 min",
    ]


def test_a_reason_names_only_the_competencies_newly_covered():
    reason = reason_for(option(1, "a", "b", "x"), slot("AB", "a", "b"), frozenset({"a"}), "L5")
    assert reason == "covers b; not asked in 90 days; fits L5, 15 min"


def test_qualifies_checks_taken_minutes_and_competencies():
    a = slot("A", "a")
    assert qualifies(option(1, "a"), a, 15, set())
    assert not qualifies(option(1, "a"), a, 15, {1})
    assert not qualifies(option(1, "a"), a, 14, set())
    assert not qualifies(option(1, "b"), a, 15, set())


def test_alternatives_obey_the_rules_and_are_ranked():
    options = [
        option(1, "a"),  # in the loop already
        option(2, "a", e90=2),
        option(3, "a", minutes=25),  # longer than the budget
        option(4, "b", e90=5),  # covers the topic the kept question leaves open
        option(5, "c"),  # shares no competency with the slot
        option(6, "a"),
    ]
    keep = [option(7, "a")]
    found = alternatives(
        slot("AB", "a", "b"), options, keep=keep, taken={1, 7}, budget=20, limit=10
    )
    assert [o.question_id for o in found] == [4, 6, 2]


def test_alternatives_stop_at_the_limit():
    options = [option(i, "a") for i in range(1, 20)]
    found = alternatives(slot("A", "a"), options, keep=[], taken=set(), budget=45, limit=3)
    assert [o.question_id for o in found] == [1, 2, 3]
