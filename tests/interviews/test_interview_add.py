"""Adding an interview to an open loop (services.interview_add, the loop page's form).

The loop fixture holds Serving (serving-1, serving-2) and Training (both-1, training-1);
the serving questions left for an L5 loop are serving-3 (20 min) and serving-long (40).
"""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from core.models import AuditEvent
from interviews import services
from interviews.models import Interview, InterviewQuestion, Loop
from tests.support.loops import history_loop


def page(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def form(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "title": "Serving, deeper",
        "minutes": 60,
        "question_count": 2,
        "interviewers_wanted": 2,
        "competencies": ["serving"],
    }
    data.update(changes)
    return data


def rows() -> tuple[list[tuple[int, str]], int, int]:
    return (
        list(Interview.objects.order_by("pk").values_list("pk", "title")),
        InterviewQuestion.objects.count(),
        AuditEvent.objects.count(),
    )


def titles(interview: Interview) -> list[str]:
    return [q.question.title for q in interview.questions.order_by("order")]


def test_a_recruiter_adds_an_interview_whose_questions_follow_the_assembly_rules(loop, recruiter):
    response = page(recruiter).post(f"/loops/{loop.pk}/interviews/new/", form(), follow=True)
    added = Interview.objects.get(loop=loop, title="Serving, deeper")
    assert response.redirect_chain == [(f"/loops/{loop.pk}/#interview-{added.pk}", 302)]
    assert "Added Serving, deeper with 2 questions" in response.content.decode()
    assert (added.order, added.minutes, added.interviewers_wanted) == (3, 60, 2)
    assert added.competencies == ["serving"]
    # Not serving-1 or serving-2 (already in this loop), least asked and oldest first.
    assert titles(added) == ["serving-3", "serving-long"]
    reasons = [q.reason for q in added.questions.order_by("order")]
    assert reasons[0].startswith("covers serving; not asked in 90 days; fits L5")
    event = AuditEvent.objects.get(action="interview.added")
    assert (event.actor, event.target, event.data) == (
        recruiter,
        f"loop {loop.pk}",
        {"title": "Serving, deeper", "questions": 2},
    )


def test_it_skips_what_the_candidate_had_before_and_warns_of_a_short_interview(
    world, loop, recruiter
):
    history_loop(
        [world.q["serving-3"]], role=world.role, level=world.level, days_ago=30,
        candidate=world.candidate,
    )  # fmt: skip
    added = services.interview_add(
        loop=loop, title="Serving, deeper", minutes=45, competencies=["serving"],
        question_count=2, by=recruiter,
    )  # fmt: skip
    assert titles(added) == ["serving-long"]
    loop.refresh_from_db()
    assert loop.warnings[-1].startswith("Slot 'Serving, deeper' has 1 of 2 questions")


def test_a_scheduled_loop_goes_back_to_draft_until_the_new_interview_is_staffed(panels, recruiter):
    assert Loop.objects.get(pk=panels.pk).status == Loop.Status.SCHEDULED
    services.interview_add(loop=panels, title="Extra", minutes=30, by=recruiter)
    assert Loop.objects.get(pk=panels.pk).status == Loop.Status.DRAFT


def test_the_loop_page_offers_the_roles_competencies(loop, recruiter):
    html = page(recruiter).get(f"/loops/{loop.pk}/").content.decode()
    form_html = html[html.index('id="add-interview"') :]
    for slug in ("serving", "training", "networking", "unrelated"):
        assert f'value="{slug}"' in form_html


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"title": ""}, "This field is required."),
        ({"minutes": 0}, "Ensure this value is greater than or equal to 5."),
        ({"question_count": 11}, "Ensure this value is less than or equal to 10."),
        ({"competencies": ["cooking"]}, "Select a valid choice. cooking is not one of"),
        ({"title": "Two\nlines"}, "one line"),
    ],
)
def test_bad_input_is_shown_beside_its_field_and_adds_nothing(loop, recruiter, changes, message):
    before = rows()
    response = page(recruiter).post(f"/loops/{loop.pk}/interviews/new/", form(**changes))
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    assert '<details class="card narrowish" id="add-interview" open>' in html
    assert rows() == before


def test_the_service_refuses_a_competency_the_role_does_not_use(loop, recruiter):
    before = rows()
    with pytest.raises(ValidationError) as refused:
        services.interview_add(
            loop=loop, title="Cooking", minutes=30, competencies=["cooking"], by=recruiter
        )
    assert refused.value.message_dict == {
        "competencies": [f"Not a competency of {loop.role}'s questions: cooking."]
    }
    assert rows() == before


def test_a_closed_loop_takes_no_new_interview(loop, recruiter):
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.DECIDED)
    before = rows()
    response = page(recruiter).post(f"/loops/{loop.pk}/interviews/new/", form(), follow=True)
    assert "it can no longer change." in response.content.decode()
    assert rows() == before


def test_only_those_who_staff_the_loop_may(loop, interviewer, lead):
    before = rows()
    url = f"/loops/{loop.pk}/interviews/new/"
    assert page(interviewer).post(url, form()).status_code == 404
    assert page(lead).post(url, form()).status_code == 404
    assert page(lead).post("/loops/999999/interviews/new/", form()).status_code == 404
    assert Client().post(url, form()).status_code == 302  # to sign in
    assert rows() == before
