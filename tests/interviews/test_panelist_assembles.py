"""A panelist swaps and reorders their own interview's questions until it starts
(interviews.editing): API, pages and the kit's controls, every refusal writing nothing."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from core.models import AuditEvent
from interviews import services
from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.problems import NOT_FOUND, detail

SHADOW = (
    "A shadow sits in to learn: only the interviewers and recruiters change "
    "this interview's questions."
)
STARTED = (
    "This interview has started: its questions stay as the panel prepared them. "
    "Ask a recruiter if one must change."
)
CANCELLED = "Your seat on this interview was cancelled."
DECIDED = "This loop is decided; it can no longer change."


def written() -> tuple[Any, ...]:
    """Every row a swap or a reorder could write, the audit log included."""
    return snapshot(), list(AuditEvent.objects.order_by("pk").values())


def item(loop: Loop, title: str) -> InterviewQuestion:
    return InterviewQuestion.objects.get(loop=loop, question__title=title)


def titles(interview: Interview) -> list[str]:
    return list(interview.questions.order_by("order").values_list("question__title", flat=True))


@pytest.fixture
def serving(panels: Loop) -> Interview:
    """The loop's first interview, "Serving" (serving-1, serving-2): Ines's, tomorrow."""
    return panels.interviews.get(order=1)


def alternatives(user: User, it: InterviewQuestion) -> Any:
    return client_for(user).get(f"/api/v1/interviews/{it.interview_id}/alternatives/?item={it.pk}")


def swap(user: User, it: InterviewQuestion, question: int, **extra: str) -> Any:
    return client_for(user).post(
        f"/api/v1/interviews/{it.interview_id}/swap/",
        {"item": it.pk, "question": question, **extra},
        format="json",
    )


def reorder(user: User, interview: Interview, order: list[int]) -> Any:
    return client_for(user).post(
        f"/api/v1/interviews/{interview.pk}/reorder/", {"order": order}, format="json"
    )


# --- what a panelist may do --------------------------------------------------------------


def test_a_panelist_gets_the_alternatives_for_their_own_interview(interviewer, serving):
    response = alternatives(interviewer, item(serving.loop, "serving-1"))
    assert response.status_code == 200
    assert [a["title"] for a in response.json()] == ["serving-3"]


def test_a_panelist_swaps_a_question_with_a_reason_recorded(interviewer, serving, world):
    target = item(serving.loop, "serving-1")
    replaced = target.question_id
    response = swap(
        interviewer,
        target,
        world.q["serving-3"].pk,
        reason="  The candidate\nasked about batching  ",
    )
    assert response.status_code == 200
    [first, _] = response.json()["questions"]
    assert (first["title"], first["reason"]) == (
        "serving-3",
        "swapped in by Ines: The candidate asked about batching",
    )
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target) == (
        interviewer,
        "interview.question_swapped",
        f"interview {serving.pk}",
    )
    assert event.data == {
        "item": target.pk,
        "replaced": replaced,
        "question": world.q["serving-3"].pk,
        "reason": "The candidate asked about batching",
    }


def test_a_swap_without_a_reason_says_who_only(recruiter, serving, world):
    response = swap(recruiter, item(serving.loop, "serving-1"), world.q["serving-3"].pk)
    assert response.status_code == 200
    assert response.json()["questions"][0]["reason"] == "swapped in by Rita"
    assert AuditEvent.objects.get().data["reason"] == ""


def test_a_panelist_reorders_their_own_interview_and_it_is_audited(interviewer, serving):
    before = [item(serving.loop, t).pk for t in ("serving-1", "serving-2")]
    response = reorder(interviewer, serving, before[::-1])
    assert response.status_code == 200
    assert titles(serving) == ["serving-2", "serving-1"]
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target, event.data) == (
        interviewer,
        "interview.questions_reordered",
        f"interview {serving.pk}",
        {"before": before, "after": before[::-1]},
    )


def test_the_same_order_again_writes_nothing(interviewer, serving):
    order = [item(serving.loop, t).pk for t in ("serving-1", "serving-2")]
    before = written()
    assert reorder(interviewer, serving, order).status_code == 200
    assert written() == before


def test_a_panelist_of_an_unscheduled_interview_may_change_it(interviewer, interviews, world):
    services.interview_update(interview=interviews[0], interviewers=[interviewer])
    target = item(interviews[0].loop, "serving-1")
    assert swap(interviewer, target, world.q["serving-3"].pk).status_code == 200


def test_a_recruiter_still_changes_an_interview_that_has_started(recruiter, serving, world):
    start(serving)
    response = swap(recruiter, item(serving.loop, "serving-1"), world.q["serving-3"].pk)
    assert response.status_code == 200


# --- who may not, and nothing is written ---------------------------------------------------


def start(interview: Interview) -> None:
    now = timezone.now()
    Interview.objects.filter(pk=interview.pk).update(
        scheduled_start=now - timedelta(minutes=5), scheduled_end=now + timedelta(minutes=40)
    )


def shadowed(interview: Interview, shadow: User) -> None:
    Panelist.objects.create(interview=interview, user=shadow, is_shadow=True)


def cancel_seat(interview: Interview) -> None:
    Panelist.objects.filter(interview=interview).update(cancelled_at=timezone.now())


def decide(interview: Interview) -> None:
    Loop.objects.filter(pk=interview.loop_id).update(
        status=Loop.Status.DECIDED, decision="no_hire", decided_at=timezone.now()
    )


# (who asks, what happened first, status, code, message)
REFUSALS: list[tuple[str, Callable[..., None] | None, int, str, str]] = [
    ("olga", None, 404, "not_found", NOT_FOUND),  # on no interview
    ("omar", None, 404, "not_found", NOT_FOUND),  # a panelist of the loop's other interview
    ("leo", None, 404, "not_found", NOT_FOUND),  # a calibration lead, not on it
    ("sam", None, 403, "shadow", SHADOW),
    ("ines", start, 400, "interview_started", STARTED),
    ("ines", cancel_seat, 403, "seat_cancelled", CANCELLED),
    ("ines", decide, 400, "loop_decided", DECIDED),
]
IDS = ["outsider", "other-panelist", "lead", "shadow", "started", "seat-cancelled", "decided"]


@pytest.fixture
def people(interviewer, other_interviewer, sam, olga, lead, serving) -> dict[str, User]:  # type: ignore[no-untyped-def]
    shadowed(serving, sam)
    return {"ines": interviewer, "omar": other_interviewer, "sam": sam, "olga": olga, "leo": lead}


@pytest.mark.parametrize(("who", "setup", "status", "code", "message"), REFUSALS, ids=IDS)
def test_the_api_refuses_and_writes_nothing(
    people, serving, world, who, setup, status, code, message
):  # type: ignore[no-untyped-def]
    if setup:
        setup(serving)
    user, target = people[who], item(serving.loop, "serving-1")
    other = item(serving.loop, "serving-2")
    before = written()
    # Reading the ranked alternatives is refused to those who may not change the
    # interview (404, 403); too late to change it (400), they may still be read.
    ranked = alternatives(user, target)
    if status == 400:
        assert ranked.status_code == 200
    else:
        assert detail(ranked, status, code) == message
    for response in (
        swap(user, target, world.q["serving-3"].pk, reason="why not"),
        reorder(user, serving, [other.pk, target.pk]),
    ):
        assert detail(response, status, code) == message
    assert written() == before


@pytest.mark.parametrize(("who", "setup", "status", "code", "message"), REFUSALS, ids=IDS)
def test_the_pages_refuse_and_write_nothing(
    client, people, serving, world, who, setup, status, code, message
):  # type: ignore[no-untyped-def]
    if setup:
        setup(serving)
    client.force_login(people[who])
    target = item(serving.loop, "serving-2")
    swap_url = reverse("interviews:question-swap", args=[target.pk])
    before = written()
    responses = [
        client.get(swap_url),
        client.post(swap_url, {"question": world.q["serving-3"].pk, "reason": "why not"}),
        client.post(reverse("interviews:question-move", args=[target.pk]), {"direction": "up"}),
    ]
    assert [r.status_code for r in responses] == [status] * 3
    if status == 400:  # the page says why (403 is the site's "Not allowed" page)
        assert all(message in r.content.decode() for r in responses)
    assert written() == before
    kit = client.get(reverse("interviews:kit", args=[serving.pk]))
    assert kit.status_code == (404 if status == 404 else 200)
    assert swap_url not in kit.content.decode()


# --- the pages --------------------------------------------------------------------------------


def test_the_kit_offers_a_panelist_the_swap_and_move_controls(client, interviewer, serving):
    client.force_login(interviewer)
    body = client.get(reverse("interviews:kit", args=[serving.pk])).content.decode()
    for title in ("serving-1", "serving-2"):
        it = item(serving.loop, title)
        assert reverse("interviews:question-swap", args=[it.pk]) in body
        assert reverse("interviews:question-move", args=[it.pk]) in body


def test_the_swap_page_takes_a_reason_and_goes_back_to_the_kit(client, interviewer, serving, world):
    target = item(serving.loop, "serving-1")
    kit = reverse("interviews:kit", args=[serving.pk])
    client.force_login(interviewer)
    page = client.get(reverse("interviews:question-swap", args=[target.pk]))
    assert page.status_code == 200
    assert f'href="{kit}"' in page.content.decode()
    response = client.post(
        reverse("interviews:question-swap", args=[target.pk]),
        {"question": world.q["serving-3"].pk, "reason": "Fits what they built"},
    )
    assert (response.status_code, response["Location"]) == (302, kit)
    target.refresh_from_db()
    assert (target.question, target.reason) == (
        world.q["serving-3"],
        "swapped in by Ines: Fits what they built",
    )
    assert AuditEvent.objects.get().action == "interview.question_swapped"


def test_the_kit_moves_a_question_and_goes_back_to_the_kit(client, interviewer, serving):
    client.force_login(interviewer)
    target = item(serving.loop, "serving-2")
    response = client.post(
        reverse("interviews:question-move", args=[target.pk]), {"direction": "up"}
    )
    assert (response.status_code, response["Location"]) == (
        302,
        reverse("interviews:kit", args=[serving.pk]),
    )
    assert titles(serving) == ["serving-2", "serving-1"]
    assert AuditEvent.objects.get().actor == interviewer


def test_the_loop_page_shows_who_swapped_and_why(client, interviewer, recruiter, serving, world):
    swap(interviewer, item(serving.loop, "serving-1"), world.q["serving-3"].pk, reason="Deeper")
    client.force_login(recruiter)
    body = client.get(reverse("interviews:loop-detail", args=[serving.loop_id])).content.decode()
    assert "swapped in by Ines: Deeper" in body


def test_a_reason_too_long_is_refused_and_nothing_written(interviewer, serving, world):
    before = written()
    response = swap(interviewer, item(serving.loop, "serving-1"), world.q["serving-3"].pk,
                    reason="x" * 201)  # fmt: skip
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["reason"]
    assert written() == before
