"""Reordering an interview's questions: API and the page's move up/down."""

import pytest
from django.urls import reverse

from core.models import AuditEvent
from interviews import services
from interviews.models import Interview, Loop
from kit.services import SlotData, loop_template_save
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.problems import detail, field_errors
from tests.support.factories import level, make_question


def titles(interview: Interview) -> list[str]:
    return list(interview.questions.order_by("order").values_list("question__title", flat=True))


@pytest.fixture
def three(world, recruiter) -> Interview:  # type: ignore[no-untyped-def]
    """An L4 interview with three questions: a, b, c."""
    loop_template_save(
        role=world.role,
        level=level("L4"),
        name="L4",
        slots=[SlotData(title="Mixed", minutes=60, competencies=("unrelated",), question_count=3)],
    )
    for name in ("a", "b"):
        make_question(role=world.role, title=name, competencies=["unrelated"])
    loop = services.loop_create(
        candidate=world.candidate, role=world.role, level=level("L4"), allow_duplicate=True
    )
    interview = loop.interviews.get()
    assert titles(interview) == ["unrelated-1", "a", "b"]
    return interview


def ids(interview: Interview, *names: str) -> list[int]:
    by_title = dict(interview.questions.values_list("question__title", "pk"))
    return [by_title[n] for n in names]


def reorder(user, interview: Interview, order: object):  # type: ignore[no-untyped-def]
    return client_for(user).post(
        f"/api/v1/interviews/{interview.pk}/reorder/", {"order": order}, format="json"
    )


def test_it_puts_the_questions_in_the_given_order(recruiter, three):
    response = reorder(recruiter, three, ids(three, "b", "unrelated-1", "a"))
    assert response.status_code == 200
    assert [(q["order"], q["title"]) for q in response.json()["questions"]] == [
        (1, "b"),
        (2, "unrelated-1"),
        (3, "a"),
    ]
    assert titles(three) == ["b", "unrelated-1", "a"]


@pytest.mark.parametrize(
    "order",
    [
        ["b", "a"],  # one missing
        ["b", "a", "a"],  # one twice
        ["b", "a", "unrelated-1", "a"],
        [],
    ],
)
def test_it_refuses_a_list_that_is_not_a_permutation_and_changes_nothing(recruiter, three, order):
    expected = sorted(ids(three, "unrelated-1", "a", "b"))
    before = snapshot()
    response = reorder(recruiter, three, ids(three, *order))
    assert detail(response, 400, "order_incomplete") == (
        f"order must list each of this interview's questions once: {expected}"
    )
    assert snapshot() == before


def test_it_refuses_ids_of_another_interviews_questions(recruiter, loop, three):
    foreign = loop.interviews.first().questions.first().pk
    before = snapshot()
    response = reorder(recruiter, three, [*ids(three, "a", "b"), foreign])
    expected = sorted(ids(three, "unrelated-1", "a", "b"))
    assert detail(response, 400, "order_incomplete") == (
        f"order must list each of this interview's questions once: {expected}"
    )
    assert snapshot() == before


def test_it_refuses_an_order_that_is_not_a_list_of_ids(recruiter, three):
    before = snapshot()
    response = reorder(recruiter, three, ["first", "second"])
    assert field_errors(response) == {
        "order.0": ["A valid integer is required."],
        "order.1": ["A valid integer is required."],
    }
    assert snapshot() == before


def test_it_refuses_to_reorder_a_decided_loop(recruiter, three):
    Loop.objects.filter(pk=three.loop_id).update(status=Loop.Status.DECIDED, decision="no_hire")
    before = snapshot()
    response = reorder(recruiter, three, ids(three, "b", "a", "unrelated-1"))
    assert detail(response, 400, "loop_decided") == "This loop is decided; it can no longer change."
    assert snapshot() == before


def move(client, interview: Interview, name: str, direction: str):  # type: ignore[no-untyped-def]
    pk = ids(interview, name)[0]
    return client.post(reverse("interviews:question-move", args=[pk]), {"direction": direction})


def test_the_page_moves_a_question_up_and_down(client, recruiter, three):
    client.force_login(recruiter)
    response = move(client, three, "b", "up")
    assert response.status_code == 302
    assert response["Location"] == (
        reverse("interviews:loop-detail", args=[three.loop_id]) + f"#interview-{three.pk}"
    )
    assert titles(three) == ["unrelated-1", "b", "a"]
    move(client, three, "unrelated-1", "down")
    assert titles(three) == ["b", "unrelated-1", "a"]


def test_the_page_leaves_the_first_and_last_questions_where_they_are(client, recruiter, three):
    client.force_login(recruiter)
    assert move(client, three, "unrelated-1", "up").status_code == 302
    assert move(client, three, "b", "down").status_code == 302
    assert titles(three) == ["unrelated-1", "a", "b"]
    assert list(three.questions.order_by("order").values_list("order", flat=True)) == [1, 2, 3]


def test_a_reorder_is_audited_with_the_order_before_and_after(recruiter, three):
    before = ids(three, "unrelated-1", "a", "b")
    after = ids(three, "b", "unrelated-1", "a")
    assert reorder(recruiter, three, after).status_code == 200
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target, event.data) == (
        recruiter,
        "interview.questions_reordered",
        f"interview {three.pk}",
        {"before": before, "after": after},
    )


def test_a_refused_reorder_records_no_audit_event(recruiter, three):
    response = reorder(recruiter, three, ids(three, "b", "a"))
    assert response.status_code == 400
    assert not AuditEvent.objects.exists()
