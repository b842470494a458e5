"""selectors.loop_plan: the loop assembly would build, read from the database."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.api.exceptions import ApplicationError
from interviews import selectors, services
from interviews.assembly import rank
from kit.models import Competency
from kit.services import SlotData, loop_template_save
from tests.interviews.helpers import snapshot
from tests.support.factories import RoleFactory, level, make_question
from tests.support.loops import bulk_bank, history_loop


def plan_titles(plan) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [[p.option.title for p in s.picks] for s in plan.slots]


@pytest.fixture
def serving(db):  # type: ignore[no-untyped-def]
    """One L5 slot taking two serving questions, and six such questions s1..s6."""
    role = RoleFactory()
    Competency.objects.create(slug="serving", name="Serving")
    loop_template_save(
        role=role,
        level=level("L5"),
        name="L5",
        slots=[SlotData(title="Serving", minutes=60, competencies=("serving",), question_count=2)],
    )
    questions = {
        f"s{n}": make_question(role=role, title=f"s{n}", competencies=["serving"])
        for n in range(1, 7)
    }
    return role, questions


def test_it_prefers_the_questions_least_asked_in_the_last_90_days(serving):
    role, q = serving
    l5 = level("L5")
    # Earlier loops of other candidates: s1 asked 3 times, s2 twice, s3 once, s4 once
    # but 120 days ago (does not count), s5 once within 30 days, s6 once 60 days ago.
    for n in range(3):
        history_loop([q["s1"]], role=role, level=l5, days_ago=5 + n, name=f"a{n}")
    for n in range(2):
        history_loop([q["s2"]], role=role, level=l5, days_ago=40 + n, name=f"b{n}")
    history_loop([q["s3"]], role=role, level=l5, days_ago=70, name="c")
    history_loop([q["s4"]], role=role, level=l5, days_ago=120, name="d")
    history_loop([q["s5"]], role=role, level=l5, days_ago=10, name="e")
    history_loop([q["s6"]], role=role, level=l5, days_ago=60, name="f")
    candidate = services.candidate_create(name="New")

    options = {o.title: o for o in selectors.options_for(role=role, level=l5)}
    assert {t: (o.exposure_30, o.exposure_90) for t, o in options.items()} == {
        "s1": (3, 3),
        "s2": (0, 2),
        "s3": (0, 1),
        "s4": (0, 0),
        "s5": (1, 1),
        "s6": (0, 1),
    }
    spec = selectors.slot_specs(selectors.template_for(role=role, level=l5))[0]
    ranked = [o.title for o in rank(options.values(), spec, frozenset())]
    # Fewest in 90 days first; among equals, fewest in 30 days; then the oldest.
    assert ranked == ["s4", "s3", "s6", "s5", "s2", "s1"]

    plan = selectors.loop_plan(candidate=candidate, role=role, level=l5)
    assert plan_titles(plan) == [["s4", "s3"]]
    assert [p.reason for p in plan.slots[0].picks] == [
        "covers serving; not asked in 90 days; fits L5, 15 min",
        "also on serving; asked 1× in 90 days; fits L5, 15 min",
    ]


def test_earlier_loops_move_the_next_plan_to_other_questions(serving):
    role, _ = serving
    l5 = level("L5")
    for name in ("Avery", "Blake"):
        services.loop_create(candidate=services.candidate_create(name=name), role=role, level=l5)
    plan = selectors.loop_plan(
        candidate=services.candidate_create(name="Casey"), role=role, level=l5
    )
    # Avery had s1, s2; Blake s3, s4; Casey gets the two never asked.
    assert plan_titles(plan) == [["s5", "s6"]]


def test_a_loop_scheduled_for_next_week_still_steers_the_next_plan_away(serving, interviewer):
    role, _ = serving
    l5 = level("L5")
    avery = services.loop_create(
        candidate=services.candidate_create(name="Avery"), role=role, level=l5
    )
    casey = services.candidate_create(name="Casey")
    assert plan_titles(selectors.loop_plan(candidate=casey, role=role, level=l5)) == [["s3", "s4"]]
    # Giving Avery's interview a date next week must not make s1 and s2 look unasked.
    start = timezone.now() + timedelta(days=7)
    services.interview_update(
        interview=avery.interviews.get(),
        interviewers=[interviewer],
        scheduled_start=start,
        scheduled_end=start + timedelta(hours=1),
    )
    assert plan_titles(selectors.loop_plan(candidate=casey, role=role, level=l5)) == [["s3", "s4"]]


def test_it_gives_the_same_plan_twice(world):
    first = selectors.loop_plan(candidate=world.candidate, role=world.role, level=world.level)
    second = selectors.loop_plan(candidate=world.candidate, role=world.role, level=world.level)
    assert (
        plan_titles(first)
        == plan_titles(second)
        == [
            ["serving-1", "serving-2"],
            ["both-1", "training-1"],
        ]
    )
    assert [[p.reason for p in s.picks] for s in first.slots] == [
        [p.reason for p in s.picks] for s in second.slots
    ]


def test_it_plans_without_writing_anything(world):
    before = snapshot()
    plan = selectors.loop_plan(candidate=world.candidate, role=world.role, level=world.level)
    assert plan.warnings == []
    assert snapshot() == before


def test_it_only_offers_active_questions_of_the_role_covering_the_level(world):
    titles = {o.title for o in selectors.options_for(role=world.role, level=world.level)}
    assert "serving-1" in titles
    assert {"serving-l7", "serving-retired", "serving-draft", "other-role"}.isdisjoint(titles)
    assert "training-1" in {
        o.title for o in selectors.options_for(role=world.role, level=level("L4"))
    }
    assert "training-1" not in {
        o.title for o in selectors.options_for(role=world.role, level=level("L7"))
    }


def test_it_refuses_a_level_without_a_template(world):
    with pytest.raises(
        ApplicationError, match="no loop template for AI Infrastructure Engineer at L6"
    ):
        selectors.loop_plan(candidate=world.candidate, role=world.role, level=level("L6"))


def big_bank(count: int):  # type: ignore[no-untyped-def]
    role = RoleFactory()
    comps = [Competency.objects.create(slug=s, name=s) for s in ("alpha", "beta", "gamma")]
    loop_template_save(
        role=role,
        level=level("L5"),
        name="L5",
        slots=[
            SlotData(title="Alpha", minutes=60, competencies=("alpha",), question_count=3),
            SlotData(title="Beta", minutes=60, competencies=("beta", "gamma"), question_count=3),
        ],
    )
    bulk_bank(role, count, competencies=comps)
    return role, comps


@pytest.mark.slow  # a 10,000-question bank; the query count that does not grow stays
def test_it_plans_over_a_10000_question_bank_in_a_bounded_number_of_queries(
    db, django_assert_max_num_queries
):
    role, _ = big_bank(10_000)
    candidate, l5 = services.candidate_create(name="Emery"), level("L5")
    # 1 the template for role and level
    # 1 its slots
    # 1 the slots' competencies
    # 1 exposure: times each question was asked in 30 and 90 days
    # 1 the active questions covering L5, with their current version
    # 1 their competencies
    # 1 the questions the candidate has had
    with django_assert_max_num_queries(7):
        plan = selectors.loop_plan(candidate=candidate, role=role, level=l5)
    assert plan.warnings == []
    assert [len(s.picks) for s in plan.slots] == [3, 3]


def test_the_query_count_of_a_plan_does_not_grow_with_the_bank(db):
    role, comps = big_bank(100)
    candidate, l5 = services.candidate_create(name="Emery"), level("L5")

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            plan = selectors.loop_plan(candidate=candidate, role=role, level=l5)
        assert plan.warnings == []
        return len(ctx.captured_queries)

    small = queries()
    bulk_bank(role, 9_900, competencies=comps, start=100)
    assert queries() == small == 7
