"""services.loop_create: assemble a loop from the level's template and save it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.api.exceptions import ApplicationError
from interviews import services
from interviews.models import Interview, InterviewQuestion, Loop
from kit.models import Competency, Level, QuestionVersion
from kit.services import SlotData, loop_template_save
from tests.interviews.helpers import snapshot
from tests.support.factories import RoleFactory, level, make_question
from tests.support.loops import EMAIL, PHONE, World, bulk_bank
from tests.support.marks import slow_except


@pytest.fixture
def world(world_per_test: World) -> World:
    """Built for each test: other tests here make the same competencies themselves."""
    return world_per_test


def covers(question, lvl: Level) -> bool:  # type: ignore[no-untyped-def]
    low, high = question.min_level, question.max_level
    return (low is None or low.rank <= lvl.rank) and (high is None or high.rank >= lvl.rank)


@pytest.mark.parametrize("name", slow_except(["L3", "L4", "L5", "L6", "L7"], keep="L5"))
def test_it_builds_a_full_loop_for_every_level_from_the_starter_data(starter, recruiter, name):
    lvl = level(name)
    candidate = services.candidate_create(name=f"Candidate {name}", email=EMAIL, phone=PHONE)
    loop = services.loop_create(candidate=candidate, role=starter, level=lvl, by=recruiter)

    loop.refresh_from_db()
    assert loop.warnings == []
    assert (loop.status, loop.created_by, loop.template.level) == ("draft", recruiter, lvl)
    interviews = list(loop.interviews.select_related("slot").order_by("order"))
    slots = list(loop.template.slots.order_by("order"))
    assert [(i.title, i.minutes, i.slot) for i in interviews] == [
        (s.title, s.minutes, s) for s in slots
    ]
    seen = []
    for interview in interviews:
        slot_competencies = {c.slug for c in interview.slot.competencies.all()}
        items = list(
            interview.questions.select_related(
                "question__min_level", "question__max_level", "version"
            ).order_by("order")
        )
        assert len(items) == interview.slot.question_count
        assert [i.order for i in items] == list(range(1, len(items) + 1))
        assert sum(i.version.minutes for i in items) <= interview.minutes
        for item in items:
            question = item.question
            assert question.status == "active"
            assert covers(question, lvl), f"{question} does not cover {name}"
            assert {c.slug for c in question.competencies.all()} & slot_competencies
            assert item.reason.strip()
            assert item.version == question.current
            assert item.version.in_use
            assert item.loop_id == loop.pk
            seen.append(question.pk)
    assert len(seen) == len(set(seen))


def test_a_second_loop_for_the_same_candidate_shares_no_question_with_the_first(starter, recruiter):
    candidate = services.candidate_create(name="Avery", email=EMAIL)
    first = services.loop_create(candidate=candidate, role=starter, level=level("L4"))
    second = services.loop_create(
        candidate=candidate, role=starter, level=level("L5"), allow_duplicate=True
    )

    def asked(loop: Loop) -> set[int]:
        return set(InterviewQuestion.objects.filter(loop=loop).values_list("question", flat=True))

    assert asked(first)
    assert asked(second)
    assert asked(first).isdisjoint(asked(second))


def test_another_candidate_gets_the_least_asked_questions_and_may_repeat_some(world):
    def titles(loop: Loop) -> list[list[str]]:
        return [
            list(i.questions.order_by("order").values_list("question__title", flat=True))
            for i in loop.interviews.order_by("order")
        ]

    first = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    other = services.candidate_create(name="Blake")
    second = services.loop_create(candidate=other, role=world.role, level=world.level)

    assert titles(first) == [["serving-1", "serving-2"], ["both-1", "training-1"]]
    # serving-3 was never asked; serving-long no longer fits, so serving-1 comes back.
    # both-1 covers both topics, which outranks having been asked once.
    assert titles(second) == [["serving-3", "serving-1"], ["both-1", "networking-1"]]
    assert second.warnings == []


def test_it_warns_naming_the_slot_when_the_bank_runs_out_and_still_saves(db):
    role = RoleFactory()
    Competency.objects.create(slug="serving", name="Serving")
    loop_template_save(
        role=role,
        level=level("L5"),
        name="L5",
        slots=[SlotData(title="Serving", minutes=45, competencies=("serving",), question_count=2)],
    )
    for n in range(3):
        make_question(role=role, title=f"Serving {n}", competencies=["serving"])
    candidate = services.candidate_create(name="Devon")

    first = services.loop_create(candidate=candidate, role=role, level=level("L5"))
    again = {"candidate": candidate, "role": role, "level": level("L5"), "allow_duplicate": True}
    second = services.loop_create(**again)
    third = services.loop_create(**again)

    assert first.warnings == []
    assert second.warnings == [
        "Slot 'Serving' has 1 of 2 questions: no other active L5 question on serving that "
        "this candidate has not had fits the remaining 30 minutes."
    ]
    assert third.warnings == [
        "Slot 'Serving' has 0 of 2 questions: no other active L5 question on serving that "
        "this candidate has not had fits the remaining 45 minutes."
    ]
    for loop, count in [(first, 2), (second, 1), (third, 0)]:
        loop.refresh_from_db()
        assert Loop.objects.filter(pk=loop.pk).exists()
        assert list(loop.interviews.values_list("title", flat=True)) == ["Serving"]
        assert InterviewQuestion.objects.filter(loop=loop).count() == count
    assert loop.warnings == third.warnings


def test_it_pins_each_question_to_its_current_version_and_freezes_it(world):
    assert not QuestionVersion.objects.filter(in_use=True).exists()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    items = InterviewQuestion.objects.filter(loop=loop).select_related("question", "version")
    assert {i.version_id for i in items} == {i.question.current_id for i in items}
    assert set(QuestionVersion.objects.filter(in_use=True).values_list("pk", flat=True)) == {
        i.version_id for i in items
    }


def test_it_names_role_and_level_when_there_is_no_template_and_writes_nothing(world):
    before = snapshot()
    with pytest.raises(ApplicationError) as error:
        services.loop_create(candidate=world.candidate, role=world.role, level=level("L3"))
    assert error.value.message == "There is no loop template for AI Infrastructure Engineer at L3."
    assert snapshot() == before


def big_world(count: int):  # type: ignore[no-untyped-def]
    role = RoleFactory()
    comps = [Competency.objects.create(slug=s, name=s) for s in ("alpha", "beta", "gamma")]
    loop_template_save(
        role=role,
        level=level("L5"),
        name="L5",
        slots=[
            SlotData(title="Alpha", minutes=60, competencies=("alpha",), question_count=3),
            SlotData(title="Beta", minutes=60, competencies=("beta", "gamma"), question_count=3),
            SlotData(title="Gamma", minutes=40, competencies=("gamma",), question_count=2),
        ],
    )
    bulk_bank(role, count, competencies=comps)
    return role, comps


@pytest.mark.slow  # a 10,000-question bank; the query count that does not grow stays
def test_it_saves_a_loop_over_a_10000_question_bank_in_a_bounded_number_of_queries(
    db, django_assert_max_num_queries
):
    role, _ = big_world(10_000)
    candidate, l5 = services.candidate_create(name="Emery"), level("L5")
    # 2 savepoint and release (transaction.atomic inside the test's transaction)
    # 2 lock the candidate, their open loops
    # 3 template, its slots, the slots' competencies
    # 2 the qualifying questions with their current version, their competencies
    # 1 exposure over the last 90 days
    # 1 the candidate's earlier questions
    # 1 insert the loop
    # 1 the chosen versions (in_bulk)
    # 3 insert the interviews, one per slot
    # 16 per chosen question (8): insert it, mark its version in use
    with django_assert_max_num_queries(32):
        loop = services.loop_create(candidate=candidate, role=role, level=l5)
    assert loop.warnings == []
    assert InterviewQuestion.objects.filter(loop=loop).count() == 8
    assert Interview.objects.filter(loop=loop).count() == 3


def test_the_query_count_of_loop_create_does_not_grow_with_the_bank(db):
    role, comps = big_world(100)

    l5 = level("L5")

    def queries() -> int:
        candidate = services.candidate_create(name="Somebody")
        with CaptureQueriesContext(connection) as ctx:
            loop = services.loop_create(candidate=candidate, role=role, level=l5)
        assert loop.warnings == []
        return len(ctx.captured_queries)

    small = queries()
    bulk_bank(role, 9_900, competencies=comps, start=100)
    assert queries() == small
