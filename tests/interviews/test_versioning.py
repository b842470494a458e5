"""An assigned question keeps the version it was given at when the bank is edited."""

import pytest
from django.urls import reverse

from interviews import services
from interviews.models import InterviewQuestion
from kit.models import Question, QuestionVersion
from kit.services import Content, content_of, question_update
from tests.conftest import client_for

V1_RUBRIC = [
    ("Explains the mechanism in plain terms.", "core"),
    ("Estimates the cost with numbers.", "core"),
    ("A strong answer also compares two alternatives.", "strong"),
    ("A common miss is ignoring failure modes.", "red_flag"),
]
V2 = Content(
    prompt="Revised: how would you serve it at ten times the traffic?",
    outline="Shards the cache by tenant.",
    minutes=15,
    follow_ups=("What breaks first?",),
    rubric=(("Shards the cache by tenant", "core"), ("Ignores cold starts", "red_flag")),
)


@pytest.fixture
def edited(world, panels):  # type: ignore[no-untyped-def]
    """serving-1 is in Ines's interview at version 1; a lead then edits its content."""
    question = Question.objects.select_related("current").get(pk=world.q["serving-1"].pk)
    assert question_update(question=question, content=V2)
    question.refresh_from_db()
    return question


def test_editing_an_assigned_question_makes_version_2(edited):
    assert edited.current.number == 2
    assert content_of(edited.current) == V2
    v1 = edited.versions.get(number=1)
    assert v1.in_use
    assert v1.prompt == "Prompt of serving-1?"
    assert [(r.text, r.kind) for r in v1.rubric.order_by("order")] == V1_RUBRIC


def test_the_interview_stays_on_version_1(edited, panels):
    item = InterviewQuestion.objects.get(loop=panels, question=edited)
    assert item.version.number == 1


def test_the_kit_page_shows_version_1s_prompt_and_rubric(client, interviewer, edited, interviews):
    client.force_login(interviewer)
    body = client.get(reverse("interviews:kit", args=[interviews[0].pk])).content.decode()
    assert "Prompt of serving-1?" in body
    for text, _ in V1_RUBRIC:
        assert text in body
    assert "Revised: how would you serve it" not in body
    assert "Shards the cache by tenant" not in body


def test_the_kit_markdown_shows_version_1(client, interviewer, edited, interviews):
    client.force_login(interviewer)
    text = client.get(reverse("interviews:kit-markdown", args=[interviews[0].pk])).content.decode()
    assert "> Prompt of serving-1?" in text
    assert "- [ ] A common miss is ignoring failure modes." in text
    assert "Revised" not in text


def test_the_api_shows_version_1(interviewer, edited, interviews):
    response = client_for(interviewer).get(f"/api/v1/interviews/{interviews[0].pk}/")
    assert response.status_code == 200
    first = response.json()["questions"][0]
    assert (first["question"], first["version"], first["minutes"]) == (edited.pk, 1, 15)


def test_the_api_gives_the_interviewer_version_1s_prompt_and_rubric(
    interviewer, edited, interviews
):
    # The kit is what an interviewer needs from an interview; through the API they
    # should get the pinned version's text and rubric, not only its number.
    response = client_for(interviewer).get(f"/api/v1/interviews/{interviews[0].pk}/")
    first = response.json()["questions"][0]
    assert first["prompt"] == "Prompt of serving-1?"
    assert [(r["text"], r["kind"]) for r in first["rubric"]] == V1_RUBRIC


def test_a_new_loop_gets_version_2(world, edited):
    other = services.candidate_create(name="Blake")
    loop = services.loop_create(candidate=other, role=world.role, level=world.level)
    item = InterviewQuestion.objects.select_related("version").get(loop=loop, question=edited)
    assert item.version == edited.current
    assert item.version.number == 2
    assert item.version.in_use


def test_an_edit_through_an_instance_loaded_before_the_assignment_still_makes_version_2(world):
    # A request that read the question just before a loop took it must not rewrite
    # the version that interview now depends on: the in_use check has to be made
    # against the database, not the instance's cached copy of its current version.
    question = world.q["serving-1"]  # loaded (with its current version) before the loop
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    item = InterviewQuestion.objects.get(loop=loop, question=question)
    assert QuestionVersion.objects.get(pk=item.version_id).in_use
    question_update(question=question, content=V2)
    pinned = QuestionVersion.objects.get(pk=item.version_id)
    assert pinned.prompt == "Prompt of serving-1?"
    assert Question.objects.get(pk=question.pk).current.number == 2
