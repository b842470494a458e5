"""Who may do what with candidates, loops and interviews. Every refusal writes nothing.

Ines (interviewer) sits on the loop's first interview, Omar (other_interviewer)
on the second; Rita is the recruiter, Leo the calibration lead.
"""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from interviews import services
from interviews.models import InterviewQuestion
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.support.loops import EMAIL, PHONE


def send(api: APIClient, method: str, url: str, data: dict | None = None):  # type: ignore[no-untyped-def]
    return getattr(api, method)(url, data or {}, format="json")


def api_endpoints(world, interviews) -> list[tuple[str, str, dict]]:  # type: ignore[no-untyped-def]
    """Every interviews API endpoint, with a body a recruiter's request would succeed with."""
    first = interviews[0]
    item = first.questions.first()
    candidate = world.candidate.pk
    build = {"candidate": candidate, "role": world.role.name, "level": "L5"}
    template = {
        "role": world.role.name,
        "level": "L6",
        "name": "L6",
        "slots": [{"title": "Serving", "minutes": 45, "competencies": ["serving"]}],
    }
    return [
        ("get", "/api/v1/candidates/", {}),
        ("post", "/api/v1/candidates/", {"name": "Jordan"}),
        ("get", f"/api/v1/candidates/{candidate}/", {}),
        ("patch", f"/api/v1/candidates/{candidate}/", {"name": "Renamed"}),
        ("get", "/api/v1/loops/", {}),
        ("post", "/api/v1/loops/", build),
        ("post", "/api/v1/loops/preview/", build),
        ("get", f"/api/v1/loops/{first.loop_id}/", {}),
        ("get", "/api/v1/interviews/", {}),
        ("get", f"/api/v1/interviews/{first.pk}/", {}),
        ("put", f"/api/v1/interviews/{first.pk}/", {"interviewers": ["ines"]}),
        ("get", f"/api/v1/interviews/{first.pk}/alternatives/?item={item.pk}", {}),
        (
            "post",
            f"/api/v1/interviews/{first.pk}/swap/",
            {"item": item.pk, "question": world.q["serving-3"].pk},
        ),
        (
            "post",
            f"/api/v1/interviews/{first.pk}/reorder/",
            {"order": list(reversed(first.questions.values_list("pk", flat=True)))},
        ),
        ("get", "/api/v1/loop-templates/", {}),
        ("post", "/api/v1/loop-templates/", template),
        ("get", f"/api/v1/loop-templates/{world.template.pk}/", {}),
        ("put", f"/api/v1/loop-templates/{world.template.pk}/", {**template, "level": "L5"}),
    ]


def pages(world, interviews) -> list[tuple[str, str, dict]]:  # type: ignore[no-untyped-def]
    first = interviews[0]
    item = first.questions.first()
    candidate = world.candidate.pk
    build = {"candidate": candidate, "role": world.role.pk, "level": world.level.pk}
    return [
        ("get", reverse("home"), {}),
        ("get", reverse("interviews:candidate-list"), {}),
        ("get", reverse("interviews:candidate-new"), {}),
        ("post", reverse("interviews:candidate-new"), {"name": "Jordan"}),
        ("get", reverse("interviews:candidate-detail", args=[candidate]), {}),
        ("get", reverse("interviews:candidate-edit", args=[candidate]), {}),
        ("post", reverse("interviews:candidate-edit", args=[candidate]), {"name": "Renamed"}),
        ("get", reverse("interviews:loop-list"), {}),
        ("get", reverse("interviews:loop-new"), build),
        ("post", reverse("interviews:loop-new"), build),
        ("get", reverse("interviews:loop-detail", args=[first.loop_id]), {}),
        ("get", reverse("interviews:my-interviews"), {}),
        ("post", reverse("interviews:interview-panel", args=[first.pk]), {}),
        ("get", reverse("interviews:kit", args=[first.pk]), {}),
        ("get", reverse("interviews:kit-markdown", args=[first.pk]), {}),
        ("get", reverse("interviews:question-swap", args=[item.pk]), {}),
        (
            "post",
            reverse("interviews:question-swap", args=[item.pk]),
            {"question": world.q["serving-3"].pk},
        ),
        ("post", reverse("interviews:question-move", args=[item.pk]), {"direction": "down"}),
    ]


# --- anonymous ------------------------------------------------------------------------


def test_anonymous_callers_get_401_or_403_on_every_api_endpoint_and_write_nothing(
    world, interviews, panels
):
    before = snapshot()
    for method, url, data in api_endpoints(world, interviews):
        response = send(APIClient(), method, url, data)
        assert response.status_code in (401, 403), (method, url, response.status_code)
        assert EMAIL not in response.content.decode()
    assert snapshot() == before


def test_anonymous_visitors_are_sent_to_sign_in_from_every_page_and_write_nothing(
    client, world, interviews, panels
):
    before = snapshot()
    for method, url, data in pages(world, interviews):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, (method, url)
        assert response["Location"].startswith(f"{reverse('login')}?next="), (method, url)
    assert snapshot() == before


# --- interviewers see only their own interviews -------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/interviews/{id}/"),
        ("get", "/api/v1/interviews/{id}/alternatives/?item={item}"),
        ("post", "/api/v1/interviews/{id}/swap/"),
        ("post", "/api/v1/interviews/{id}/reorder/"),
        ("put", "/api/v1/interviews/{id}/"),
    ],
)
def test_an_interviewer_gets_404_for_an_interview_they_are_not_on(
    interviewer, world, interviews, panels, method, path
):
    theirs = interviews[1]  # Omar's
    item = theirs.questions.first()
    data = {
        "post": {"item": item.pk, "question": world.q["networking-1"].pk, "order": [item.pk]},
        "put": {"interviewers": ["ines"]},
    }.get(method)
    before = snapshot()
    response = send(client_for(interviewer), method, path.format(id=theirs.pk, item=item.pk), data)
    assert response.status_code == 404
    assert snapshot() == before


@pytest.mark.parametrize("name", ["interviews:kit", "interviews:kit-markdown"])
def test_an_interviewer_gets_404_for_the_kit_of_an_interview_they_are_not_on(
    client, interviewer, lead, interviews, panels, name
):
    for user in (interviewer, lead):
        client.force_login(user)
        assert client.get(reverse(name, args=[interviews[1].pk])).status_code == 404


def test_an_interviewer_reads_the_kit_of_their_own_interview(
    client, interviewer, interviews, panels
):
    client.force_login(interviewer)
    assert client.get(reverse("interviews:kit", args=[interviews[0].pk])).status_code == 200
    assert (
        client.get(reverse("interviews:kit-markdown", args=[interviews[0].pk])).status_code == 200
    )


def test_an_interviewer_sees_only_loops_they_are_on(interviewer, world, panels):
    other = services.loop_create(
        candidate=services.candidate_create(name="Blake"), role=world.role, level=world.level
    )
    api = client_for(interviewer)
    assert [r["id"] for r in api.get("/api/v1/loops/").json()["results"]] == [panels.pk]
    assert api.get(f"/api/v1/loops/{other.pk}/").status_code == 404
    assert api.get(f"/api/v1/loops/{panels.pk}/").status_code == 200


def test_someone_on_no_panel_sees_no_interview_or_loop(lead, interviews, panels):
    api = client_for(lead)
    assert api.get("/api/v1/interviews/").json()["results"] == []
    assert api.get("/api/v1/loops/").json()["results"] == []
    assert api.get(f"/api/v1/interviews/{interviews[0].pk}/").status_code == 404
    assert api.get(f"/api/v1/loops/{panels.pk}/").status_code == 404


# --- interviewers change nothing ---------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("post", "/api/v1/loops/"),
        ("post", "/api/v1/loops/preview/"),
        ("post", "/api/v1/candidates/"),
    ],
)
@pytest.mark.parametrize("persona", ["interviewer", "lead"])
def test_only_recruiters_create_loops_and_candidates(world, panels, request, persona, method, url):
    body = {"candidate": world.candidate.pk, "role": world.role.name, "level": "L5", "name": "X"}
    before = snapshot()
    response = send(client_for(request.getfixturevalue(persona)), method, url, body)
    assert response.status_code == 403
    assert snapshot() == before


# Its questions they may change until it starts: tests/interviews/test_panelist_assembles.py.
@pytest.mark.parametrize(("method", "path"), [("put", "/api/v1/interviews/{id}/")])
def test_an_interviewer_may_not_change_their_own_interview(
    interviewer, world, interviews, panels, method, path
):
    mine = interviews[0]
    items = list(mine.questions.values_list("pk", flat=True))
    data = {
        "post": {"item": items[0], "question": world.q["serving-3"].pk, "order": items[::-1]},
        "put": {"interviewers": ["ines", "omar"]},
    }.get(method)
    before = snapshot()
    response = send(client_for(interviewer), method, path.format(id=mine.pk, item=items[0]), data)
    assert response.status_code == 403
    assert snapshot() == before


def test_an_interviewer_gets_404_when_changing_a_candidate(interviewer, world, panels):
    # Interviewers cannot see candidates (a read is 404), so neither may a write say more.
    before = snapshot()
    response = client_for(interviewer).patch(
        f"/api/v1/candidates/{world.candidate.pk}/", {"name": "Renamed"}, format="json"
    )
    assert response.status_code == 404
    assert snapshot() == before


# --- recruiter pages ----------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["interviewer", "lead"])
def test_recruiter_pages_answer_404_to_interviewers_and_leads(
    client, world, interviews, panels, request, persona
):
    client.force_login(request.getfixturevalue(persona))
    item = interviews[0].questions.first()
    # Ines interviews the first interview (tomorrow): she may change its questions
    # (interviews.editing; tests/interviews/test_panelist_assembles.py).
    hers = (
        (
            reverse("interviews:question-swap", args=[item.pk]),
            reverse("interviews:question-move", args=[item.pk]),
        )
        if persona == "interviewer"
        else ()
    )
    recruiter_only = [
        p
        for p in pages(world, interviews)
        if p[1]
        not in (
            reverse("home"),
            reverse("interviews:my-interviews"),
            reverse("interviews:kit", args=[interviews[0].pk]),
            reverse("interviews:kit-markdown", args=[interviews[0].pk]),
            *hers,
        )
    ]
    assert len(recruiter_only) == (11 if persona == "interviewer" else 14)
    before = snapshot()
    for method, url, data in recruiter_only:
        response = getattr(client, method)(url, data)
        assert response.status_code == 404, (persona, method, url)
        assert EMAIL not in response.content.decode()
    assert snapshot() == before


# --- contact details ----------------------------------------------------------------------


def test_an_interviewer_never_sees_the_candidates_email_or_phone(
    client, interviewer, world, interviews, panels
):
    """Walk everything Ines can reach for the loop she sits on."""
    first = interviews[0]
    item = first.questions.first()
    api = client_for(interviewer)
    api_urls = [
        "/api/v1/interviews/",
        f"/api/v1/interviews/{first.pk}/",
        f"/api/v1/interviews/?loop={panels.pk}",
        "/api/v1/loops/",
        f"/api/v1/loops/{panels.pk}/",
        f"/api/v1/loops/?candidate={world.candidate.pk}",
        "/api/v1/loop-templates/",
        "/api/v1/questions/",
        f"/api/v1/questions/{item.question_id}/",
        # Refusals must not echo contact details either.
        "/api/v1/candidates/",
        f"/api/v1/candidates/{world.candidate.pk}/",
        f"/api/v1/interviews/{first.pk}/alternatives/?item={item.pk}",
    ]
    client.force_login(interviewer)
    page_urls = [
        reverse("interviews:my-interviews"),
        reverse("interviews:kit", args=[first.pk]),
        reverse("interviews:kit-markdown", args=[first.pk]),
        reverse("kit:question-list"),
        reverse("kit:question-detail", args=[item.question_id]),
        f"{reverse('kit:question-detail', args=[item.question_id])}?version=1",
        # Linked from her kit and her list: the scorecard and the loop's debrief.
        reverse("scoring:scorecard", args=[first.pk]),
        reverse("scoring:debrief", args=[panels.pk]),
    ]
    bodies = {url: api.get(url) for url in api_urls} | {url: client.get(url) for url in page_urls}
    named = 0
    for url, response in bodies.items():
        assert response.status_code in (200, 403, 404), url
        body = response.content.decode()
        assert EMAIL not in body, url
        assert PHONE not in body, url
        assert "private-mail" not in body, url
        named += "Casey Quinn" in body
    # The walk did reach the candidate: her name is on the interview, loop and kit views.
    assert named >= 9


def test_recruiters_do_see_contact_details(client, recruiter, world, panels):
    client.force_login(recruiter)
    body = client.get(reverse("interviews:candidate-detail", args=[world.candidate.pk]))
    assert EMAIL in body.content.decode() and PHONE in body.content.decode()
    assert InterviewQuestion.objects.filter(loop=panels).exists()
