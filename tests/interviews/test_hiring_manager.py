"""A hiring manager builds and staffs loops for the roles they own (interviews.staffing),
and gets 404 (403 for a build naming a role they do not own) everywhere else."""

import re

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from core.models import AuditEvent
from core.permissions import HIRING_MANAGER, INTERVIEWER
from interviews.models import Candidate, InterviewQuestion, Loop
from kit.models import Role
from tests.conftest import client_for, make_user
from tests.interviews.helpers import snapshot
from tests.problems import detail, problem
from tests.support.loops import EMAIL, PHONE, history_loop


def written() -> tuple[object, ...]:
    return snapshot(), list(AuditEvent.objects.order_by("pk").values())


def hiring_manager(username: str, role: Role) -> User:
    user = make_user(username, HIRING_MANAGER, first_name=username.capitalize())
    user.groups.add(Group.objects.get(name=INTERVIEWER))
    role.owners.add(user)
    return user


@pytest.fixture
def hank(world) -> User:  # type: ignore[no-untyped-def]
    """Owns the world's role."""
    return hiring_manager("hank", world.role)


@pytest.fixture
def hana(world) -> User:  # type: ignore[no-untyped-def]
    """Owns another role only."""
    return hiring_manager("hana", Role.objects.get(name="Data Engineer"))


def build(user: User, world) -> object:  # type: ignore[no-untyped-def]
    body = {"candidate": world.candidate.pk, "role": world.role.name, "level": "L5"}
    return client_for(user).post("/api/v1/loops/", body, format="json")


# --- the roles they own ---------------------------------------------------------------------


def test_a_hiring_manager_builds_a_loop_for_a_role_they_own(hank, world):
    response = build(hank, world)
    assert response.status_code == 201
    loop = Loop.objects.get()
    assert (response.json()["id"], loop.role, loop.created_by) == (loop.pk, world.role, hank)
    assert [i["title"] for i in response.json()["interviews"]] == ["Serving", "Training"]
    assert EMAIL not in response.content.decode()
    assert client_for(hank).get(f"/api/v1/loops/{loop.pk}/").status_code == 200


def test_a_hiring_manager_staffs_and_changes_the_questions_of_their_roles_loops(
    hank, interviewer, loop, world
):
    first = loop.interviews.get(order=1)
    api = client_for(hank)
    response = api.put(f"/api/v1/interviews/{first.pk}/", {"interviewers": ["ines"]}, format="json")
    assert response.status_code == 200
    assert [p.user for p in first.panel.all()] == [interviewer]
    target = InterviewQuestion.objects.get(loop=loop, question__title="serving-1")
    response = api.post(
        f"/api/v1/interviews/{first.pk}/swap/",
        {"item": target.pk, "question": world.q["serving-3"].pk, "reason": "Team's focus"},
        format="json",
    )
    assert response.status_code == 200
    target.refresh_from_db()
    assert target.reason == "swapped in by Hank: Team's focus"


def test_a_hiring_manager_lists_and_reads_the_interviews_of_their_roles(hank, loop, world):
    theirs = history_loop(
        [world.q["other-role"]],
        role=Role.objects.get(name="Data Engineer"),
        level=world.level,
        days_ago=None,
        candidate=Candidate.objects.create(name="Blake", email="blake@private.example"),
    )
    other = theirs.loop
    api = client_for(hank)
    mine = list(loop.interviews.order_by("order").values_list("pk", flat=True))

    listed = api.get("/api/v1/interviews/")
    one = api.get(f"/api/v1/interviews/{mine[0]}/")
    by_loop = api.get(f"/api/v1/interviews/?loop={loop.pk}")

    assert listed.status_code == 200
    assert [r["id"] for r in listed.json()["results"]] == mine
    assert (one.status_code, one.json()["id"], one.json()["loop"]) == (200, mine[0], loop.pk)
    assert one.json()["candidate"] == {"id": loop.candidate_id, "name": "Casey Quinn"}
    assert [r["id"] for r in by_loop.json()["results"]] == mine
    # Another role's interviews: not listed, 404 by id, an empty list by its loop.
    assert api.get(f"/api/v1/interviews/?loop={other.pk}").json()["results"] == []
    problem(api.get(f"/api/v1/interviews/{theirs.pk}/"), 404, "not_found")
    # The candidate's name only: contact details stay with recruiters.
    for body in (listed.content, one.content):
        for secret in (EMAIL, PHONE, "blake@private.example"):
            assert secret not in body.decode()


def test_a_hiring_manager_reads_what_they_wrote_to_their_roles_interview(hank, interviewer, loop):
    first = loop.interviews.get(order=1)
    api = client_for(hank)
    items = list(first.questions.order_by("order").values_list("pk", flat=True))

    put = api.put(f"/api/v1/interviews/{first.pk}/", {"interviewers": ["ines"]}, format="json")
    reordered = api.post(
        f"/api/v1/interviews/{first.pk}/reorder/", {"order": items[::-1]}, format="json"
    )
    read = api.get(f"/api/v1/interviews/{first.pk}/")

    assert (put.status_code, reordered.status_code, read.status_code) == (200, 200, 200)
    assert [p["username"] for p in read.json()["panel"]] == ["ines"]
    assert [q["id"] for q in read.json()["questions"]] == items[::-1]
    assert read.json() == reordered.json()


def test_a_hiring_manager_reads_another_roles_interviews_only_where_seated(hana, loop):
    first = loop.interviews.get(order=1)
    first.panel.create(user=hana)
    api = client_for(hana)

    listed = api.get("/api/v1/interviews/")

    assert [r["id"] for r in listed.json()["results"]] == [first.pk]
    second = loop.interviews.get(order=2)
    problem(api.get(f"/api/v1/interviews/{second.pk}/"), 404, "not_found")


def test_the_loop_pages_serve_a_hiring_manager_for_their_roles(client, hank, loop, world):
    client.force_login(hank)
    new = client.get(reverse("interviews:loop-new"))
    assert new.status_code == 200
    assert "Data Engineer" not in new.content.decode()  # a role they do not own
    page = client.get(reverse("interviews:loop-detail", args=[loop.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert EMAIL not in body and PHONE not in body
    first = loop.interviews.get(order=1)
    item = first.questions.first()
    assert client.get(reverse("interviews:question-swap", args=[item.pk])).status_code == 200
    moved = client.post(reverse("interviews:question-move", args=[item.pk]), {"direction": "down"})
    assert moved["Location"] == reverse("interviews:loop-detail", args=[loop.pk]) + (
        f"#interview-{first.pk}"
    )


def test_the_loop_page_builds_a_loop_for_a_hiring_manager(client, hank, world):
    client.force_login(hank)
    response = client.post(
        reverse("interviews:loop-new"),
        {"candidate": world.candidate.pk, "role": world.role.pk, "level": world.level.pk},
    )
    loop = Loop.objects.get()
    assert response["Location"] == reverse("interviews:loop-detail", args=[loop.pk])


# --- elsewhere: 404 (or 403 for a build), nothing written ------------------------------------


def test_a_hiring_manager_cannot_build_a_loop_for_a_role_they_do_not_own(hana, world):
    before = written()
    response = build(hana, world)
    assert detail(response, 403, "role_not_owned") == (
        "You build and staff loops only for the roles you own."
    )
    preview = client_for(hana).post(
        "/api/v1/loops/preview/",
        {"candidate": world.candidate.pk, "role": world.role.name, "level": "L5"},
        format="json",
    )
    assert detail(preview, 403, "role_not_owned")
    assert written() == before


def test_the_build_page_offers_a_hiring_manager_only_their_roles(client, hana, world):
    client.force_login(hana)
    before = written()
    response = client.post(
        reverse("interviews:loop-new"),
        {"candidate": world.candidate.pk, "role": world.role.pk, "level": world.level.pk},
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert written() == before


def test_a_hiring_manager_gets_404_for_the_loops_of_other_roles(client, hana, loop, world):
    first = loop.interviews.get(order=1)
    item = first.questions.first()
    api = client_for(hana)
    before = written()
    problem(api.get(f"/api/v1/loops/{loop.pk}/"), 404, "not_found")
    put = api.put(f"/api/v1/interviews/{first.pk}/", {"interviewers": ["hana"]}, format="json")
    problem(put, 404, "not_found")
    swap = api.post(
        f"/api/v1/interviews/{first.pk}/swap/",
        {"item": item.pk, "question": world.q["serving-3"].pk},
        format="json",
    )
    problem(swap, 404, "not_found")
    client.force_login(hana)
    for method, url, data in [
        ("get", reverse("interviews:loop-detail", args=[loop.pk]), {}),
        ("post", reverse("interviews:loop-detail", args=[loop.pk]), {}),
        ("post", reverse("interviews:interview-panel", args=[first.pk]), {}),
        ("get", reverse("interviews:question-swap", args=[item.pk]), {}),
        ("post", reverse("interviews:question-move", args=[item.pk]), {"direction": "down"}),
    ]:
        assert getattr(client, method)(url, data).status_code == 404, (method, url)
    assert written() == before


def test_a_hiring_manager_seated_on_another_roles_loop_only_interviews_there(client, hana, loop):
    # Seated on the first interview: they read it as a panelist, and staff nothing.
    first = loop.interviews.get(order=1)
    first.panel.create(user=hana)
    before = written()
    response = client_for(hana).put(
        f"/api/v1/interviews/{first.pk}/", {"interviewers": ["hana"]}, format="json"
    )
    assert response.status_code == 403
    client.force_login(hana)
    assert client.get(reverse("interviews:loop-detail", args=[loop.pk])).status_code == 404
    panel = client.post(reverse("interviews:interview-panel", args=[first.pk]), {})
    assert panel.status_code == 404
    assert written() == before


def test_candidates_stay_with_recruiters(client, hank, world):
    client.force_login(hank)
    assert client.get(reverse("interviews:candidate-list")).status_code == 404
    api = client_for(hank)
    assert api.get(f"/api/v1/candidates/{world.candidate.pk}/").status_code == 404


def links(body: str) -> set[str]:
    """The site's own page links in a page (no static file, no anchor, no sign-out)."""
    found = set(re.findall(r'href="(/[^"#?]*)', body))
    return {link for link in found if not link.startswith(("/static/", "/logout/"))}


def test_every_link_the_loop_pages_show_a_hiring_manager_opens(client, hank, loop):
    client.force_login(hank)
    pages = [reverse("interviews:loop-list"), reverse("interviews:loop-detail", args=[loop.pk])]
    shown = set().union(*(links(client.get(page).content.decode()) for page in pages))
    refused = {link for link in shown if client.get(link).status_code >= 400}

    assert refused == set()
    # No seat on the loop: its debrief, its kits and the candidate's page are not his.
    assert reverse("scoring:debrief", args=[loop.pk]) not in shown
    assert reverse("interviews:candidate-detail", args=[loop.candidate_id]) not in shown
    assert not any(link.endswith("/kit/") for link in shown)

    first = loop.interviews.get(order=1)
    first.panel.create(user=hank)
    shown = links(client.get(reverse("interviews:loop-detail", args=[loop.pk])).content.decode())
    kit, debrief = (
        reverse("interviews:kit", args=[first.pk]),
        reverse("scoring:debrief", args=[loop.pk]),
    )
    assert {kit, debrief} <= shown
    assert client.get(kit).status_code == client.get(debrief).status_code == 200
