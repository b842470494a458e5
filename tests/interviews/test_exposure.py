"""selectors.exposure: how often each question was asked in the last 30 and 90 days."""

from datetime import timedelta

import pytest
from django.utils import timezone

from interviews import selectors
from interviews.models import InterviewQuestion
from tests.support.factories import RoleFactory, level, make_question
from tests.support.loops import history_loop


@pytest.fixture
def bank(db):  # type: ignore[no-untyped-def]
    role = RoleFactory()
    return role, [make_question(role=role, title=f"q{n}") for n in range(6)]


def ask(question, days_ago, role, name):  # type: ignore[no-untyped-def]
    return history_loop([question], role=role, level=level("L5"), days_ago=days_ago, name=name)


def test_it_counts_interviews_held_in_the_last_30_and_90_days(bank):
    role, q = bank
    ask(q[0], 2, role, "a")
    ask(q[0], 29, role, "b")
    ask(q[0], 31, role, "c")
    ask(q[0], 89, role, "d")
    ask(q[0], 91, role, "e")
    ask(q[1], 45, role, "f")
    ask(q[2], 200, role, "g")
    assert selectors.exposure() == {q[0].pk: (2, 4), q[1].pk: (0, 1)}


def test_an_upcoming_interview_counts_like_an_unscheduled_one(bank):
    # Both are questions already promised to a candidate. Counting the unscheduled
    # one but dropping it again once its interview gets a date next week means a
    # loop built today repeats the questions of every loop scheduled ahead.
    role, q = bank
    ask(q[0], None, role, "not scheduled yet")
    ask(q[1], -3, role, "in three days")
    assert selectors.exposure() == {q[0].pk: (1, 1), q[1].pk: (1, 1)}


def test_an_unscheduled_interview_counts_from_when_the_question_was_assigned(bank):
    role, q = bank
    ask(q[0], None, role, "now")
    old = ask(q[1], None, role, "fifty days")
    older = ask(q[2], None, role, "a hundred days")
    now = timezone.now()
    InterviewQuestion.objects.filter(interview=old).update(assigned_at=now - timedelta(days=50))
    InterviewQuestion.objects.filter(interview=older).update(assigned_at=now - timedelta(days=100))
    assert selectors.exposure() == {q[0].pk: (1, 1), q[1].pk: (0, 1)}


def test_the_scheduled_time_wins_over_the_assignment_time(bank):
    role, q = bank
    # Assigned just now, but the interview was held 60 days ago (imported history).
    ask(q[0], 60, role, "a")
    assert selectors.exposure() == {q[0].pk: (0, 1)}


def test_it_can_be_limited_to_some_questions(bank):
    role, q = bank
    for n in range(3):
        ask(q[n], 5, role, f"c{n}")
    assert selectors.exposure([q[0].pk, q[2].pk, q[5].pk]) == {q[0].pk: (1, 1), q[2].pk: (1, 1)}


def test_it_takes_one_query(bank, django_assert_num_queries):
    role, q = bank
    for n in range(5):
        ask(q[n], 5 * n, role, f"c{n}")
    # 1 grouped count of assignments in the 90-day window
    with django_assert_num_queries(1):
        assert len(selectors.exposure()) == 5
