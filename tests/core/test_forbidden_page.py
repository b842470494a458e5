"""The site's 403 page (core.api.exceptions.forbidden): a page's refusal says why."""

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.urls import reverse

from core.api.exceptions import forbidden
from interviews.models import Loop
from kit.models import Question
from scoring.models import ExerciseRating
from tests.conftest import make_user
from tests.problems import detail
from tests.scoring.exercises.helpers import answers, create
from tests.scoring.helpers import state, submitted
from tests.support.factories import make_question
from tests.support.loops import Built, Seat, build_loop

GENERIC = "Your account cannot do this."
HINT = "If you need this, ask a recruiter."
RATIONALE = "Strong on serving and GPU performance; the panel agrees."


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def question(db: None) -> Question:
    return make_question(title="KV cache sizing", prompt="How big is the KV cache?")


@pytest.fixture
def debriefed(recruiter: User, interviewer: User) -> Built:
    """A loop of one interview whose only interviewer has submitted: it is in debrief."""
    built = build_loop(seats=[Seat(interviewers=[interviewer])], recruiter=recruiter)
    submitted(interviewer, built.interviews[0])
    built.loop.refresh_from_db()
    assert built.loop.status == Loop.Status.DEBRIEF
    return built


def test_it_tells_an_interviewer_only_recruiters_record_decisions(
    debriefed: Built, interviewer: User
) -> None:
    before = state()

    response = signed_in(interviewer).post(
        reverse("scoring:debrief", args=[debriefed.loop.pk]),
        {"decision": "hire", "rationale": RATIONALE},
    )

    assert response.status_code == 403
    page = response.content.decode()
    assert "Only recruiters record decisions." in page
    assert GENERIC not in page
    assert HINT in page
    assert f'href="{reverse("interviews:my-interviews")}"' in page
    assert state() == before


def test_the_api_still_answers_the_same_refusal_as_problem_details(
    debriefed: Built, interviewer: User
) -> None:
    client = Client()
    client.force_login(interviewer)

    response = client.post(
        f"/api/v1/loops/{debriefed.loop.pk}/decision/",
        {"decision": "hire", "rationale": RATIONALE},
        content_type="application/json",
    )

    assert response["Content-Type"] == "application/problem+json"
    assert detail(response, 403, "permission_denied") == "Only recruiters record decisions."


def test_it_tells_a_lead_only_invited_interviewers_score_an_exercise(
    question: Question, lead: User, interviewer: User
) -> None:
    exercise = create(question, lead, [interviewer], 4, 2)
    first = answers(exercise)[0]

    response = signed_in(lead).post(
        f"/calibration/exercises/{exercise.pk}/", {f"a{first.pk}-rating": "3"}
    )

    assert response.status_code == 403
    assert "Only invited interviewers score this exercise." in response.content.decode()
    assert not ExerciseRating.objects.exists()


def test_an_empty_reason_shows_the_generic_sentence(db: None) -> None:
    request = RequestFactory().get("/somewhere/")
    request.user = make_user("una")

    response = forbidden(request, PermissionDenied())

    assert response.status_code == 403
    assert f"<p>{GENERIC}</p>" in response.content.decode()


def test_it_escapes_html_in_a_reason(db: None) -> None:
    request = RequestFactory().get("/somewhere/")
    request.user = make_user("una")

    response = forbidden(request, PermissionDenied('<script>alert("x")</script> & more'))

    page = response.content.decode()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more" in page
    assert GENERIC not in page


def test_an_anonymous_caller_of_a_page_is_still_sent_to_sign_in(debriefed: Built) -> None:
    response = Client().post(
        reverse("scoring:debrief", args=[debriefed.loop.pk]), {"decision": "hire"}
    )

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
