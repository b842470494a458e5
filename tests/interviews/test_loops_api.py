"""/api/v1/loops/: create (assemble), preview, list and read."""

import pytest
from django.contrib.auth.models import User

from interviews import services
from interviews.models import InterviewQuestion, Loop
from kit.models import Level
from tests.conftest import client_for
from tests.interviews.helpers import pinned, snapshot
from tests.problems import detail, field_errors
from tests.support.api import iso

NEW = "not asked in 90 days; fits L5"


def reasons(*pairs: tuple[str, int]) -> list[str]:
    return [f"{what}; {NEW}, {minutes} min" for what, minutes in pairs]


def create(user, world, level="L5", **more):  # type: ignore[no-untyped-def]
    return client_for(user).post(
        "/api/v1/loops/",
        {"candidate": world.candidate.pk, "role": world.role.name, "level": level, **more},
        format="json",
    )


def expected(loop: Loop, slots: list[tuple[str, int, list[tuple[str, int, str]]]]) -> dict:
    """The full JSON of a freshly built loop; `slots` lists (title, minutes, questions)."""
    interviews = list(loop.interviews.order_by("order"))
    return {
        "id": loop.pk,
        "candidate": {"id": loop.candidate_id, "name": loop.candidate.name},
        "role_id": loop.role_id,
        "role": "AI Infrastructure Engineer",
        "level_id": loop.level_id,
        "level": "L5",
        "status": "draft",
        "warnings": loop.warnings,
        "decision": None,
        "decided_at": None,
        "created_at": iso(loop.created_at),
        "interviews": [
            {
                "id": interview.pk,
                "order": n,
                "title": title,
                "minutes": minutes,
                "interviewers_wanted": interview.interviewers_wanted,
                "scheduled_start": None,
                "scheduled_end": None,
                "panel": [],
                "questions": [
                    {
                        "id": item.pk,
                        "order": position,
                        "question": item.question_id,
                        "title": q_title,
                        "version": 1,
                        "minutes": q_minutes,
                        "reason": reason,
                        **pinned(item),
                    }
                    for position, (item, (q_title, q_minutes, reason)) in enumerate(
                        zip(interview.questions.order_by("order"), questions, strict=True),
                        start=1,
                    )
                ],
            }
            for n, (interview, (title, minutes, questions)) in enumerate(
                zip(interviews, slots, strict=True), start=1
            )
        ],
    }


def test_it_builds_and_saves_a_loop_and_returns_it_whole(recruiter, world):
    response = create(recruiter, world)
    assert response.status_code == 201
    loop = Loop.objects.get()
    assert (loop.candidate, loop.created_by, loop.template) == (
        world.candidate,
        recruiter,
        world.template,
    )
    serving = reasons(("covers serving", 15), ("also on serving", 15))
    training = reasons(("covers networking, training", 15), ("also on training", 15))
    assert response.json() == expected(
        loop,
        [
            ("Serving", 45, [("serving-1", 15, serving[0]), ("serving-2", 15, serving[1])]),
            ("Training", 45, [("both-1", 15, training[0]), ("training-1", 15, training[1])]),
        ],
    )
    assert loop.warnings == []


def test_it_refuses_a_second_open_loop_for_the_candidate_and_writes_nothing(recruiter, world):
    first = create(recruiter, world).json()["id"]
    before = snapshot()
    response = create(recruiter, world)
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == "candidate_has_open_loop"
    named = f"Casey Quinn already has an open loop: AI Infrastructure Engineer L5 (loop {first})"
    assert named in problem["detail"]
    assert snapshot() == before


def test_it_builds_a_second_loop_once_the_first_is_decided(recruiter, world):
    first = Loop.objects.get(pk=create(recruiter, world).json()["id"])
    Loop.objects.filter(pk=first.pk).update(status=Loop.Status.DECIDED, decision="no_hire")
    assert create(recruiter, world).status_code == 201


def test_it_returns_the_warnings_of_a_loop_it_could_not_fill(recruiter, world):
    create(recruiter, world)
    response = create(recruiter, world, allow_duplicate=True)
    assert response.status_code == 201
    warning = (
        "Slot 'Serving' has 1 of 2 questions: no other active L5 question on serving that this "
        "candidate has not had fits the remaining 25 minutes."
    )
    assert response.json()["warnings"] == [warning]
    loop = Loop.objects.order_by("-pk").first()
    assert loop.warnings == [warning]
    serving = reasons(("covers serving", 20))
    training = reasons(("covers networking", 15), ("covers training", 15))
    assert response.json() == expected(
        loop,
        [
            ("Serving", 45, [("serving-3", 20, serving[0])]),
            ("Training", 45, [("networking-1", 15, training[0]), ("training-2", 15, training[1])]),
        ],
    )


def planned(question, minutes: int, reason: str) -> dict:  # type: ignore[no-untyped-def]
    return {"question": question.pk, "title": question.title, "minutes": minutes, "reason": reason}


def test_preview_returns_the_plan_and_writes_nothing(recruiter, world):
    before = snapshot()
    response = client_for(recruiter).post(
        "/api/v1/loops/preview/",
        {"candidate": world.candidate.pk, "role": world.role.name, "level": "L5"},
        format="json",
    )
    assert response.status_code == 200
    q = world.q
    serving = reasons(("covers serving", 15), ("also on serving", 15))
    training = reasons(("covers networking, training", 15), ("also on training", 15))
    assert response.json() == {
        "slots": [
            {
                "title": "Serving",
                "minutes": 45,
                "questions": [
                    planned(q["serving-1"], 15, serving[0]),
                    planned(q["serving-2"], 15, serving[1]),
                ],
                "warning": None,
            },
            {
                "title": "Training",
                "minutes": 45,
                "questions": [
                    planned(q["both-1"], 15, training[0]),
                    planned(q["training-1"], 15, training[1]),
                ],
                "warning": None,
            },
        ],
        "warnings": [],
    }
    assert snapshot() == before


def test_preview_shows_the_warnings_too(recruiter, world):
    services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    response = client_for(recruiter).post(
        "/api/v1/loops/preview/",
        {"candidate": world.candidate.pk, "role": world.role.name, "level": "L5"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["warnings"] == [response.json()["slots"][0]["warning"]]
    assert response.json()["warnings"][0].startswith("Slot 'Serving' has 1 of 2 questions")


@pytest.mark.parametrize("path", ["/api/v1/loops/", "/api/v1/loops/preview/"])
def test_it_names_role_and_level_when_there_is_no_template_and_writes_nothing(
    recruiter, world, path
):
    before = snapshot()
    response = client_for(recruiter).post(
        path,
        {"candidate": world.candidate.pk, "role": world.role.name, "level": "L7"},
        format="json",
    )
    assert detail(response, 400, "no_loop_template") == (
        "There is no loop template for AI Infrastructure Engineer at L7."
    )
    assert snapshot() == before


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({}, ["candidate", "role", "level"]),
        (
            {"candidate": 999_999, "role": "AI Infrastructure Engineer", "level": "L5"},
            ["candidate"],
        ),
        ({"role": "Astronaut", "level": "L5"}, ["candidate", "role"]),
        ({"role": "AI Infrastructure Engineer", "level": "L9"}, ["candidate", "level"]),
    ],
)
def test_it_rejects_bad_input_and_writes_nothing(recruiter, world, payload, fields):
    before = snapshot()
    response = client_for(recruiter).post("/api/v1/loops/", payload, format="json")
    assert sorted(field_errors(response)) == sorted(fields)
    assert snapshot() == before


def test_it_lists_loops_newest_first(recruiter, world, panels):
    other = services.candidate_create(name="Blake")
    second = services.loop_create(candidate=other, role=world.role, level=world.level)
    response = client_for(recruiter).get("/api/v1/loops/")
    assert response.status_code == 200
    assert response.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [
            {
                "id": loop.pk,
                "candidate": {"id": loop.candidate_id, "name": loop.candidate.name},
                "role_id": loop.role_id,
                "role": "AI Infrastructure Engineer",
                "level_id": loop.level_id,
                "level": "L5",
                "status": status,
                "warnings": [],
                "decision": None,
                "created_at": iso(loop.created_at),
            }
            for loop, status in [(second, "draft"), (panels, "scheduled")]
        ],
    }


def test_it_filters_loops_by_status_and_candidate(recruiter, world, panels):
    other = services.candidate_create(name="Blake")
    draft = services.loop_create(candidate=other, role=world.role, level=world.level)
    api = client_for(recruiter)
    assert [r["id"] for r in api.get("/api/v1/loops/?status=draft").json()["results"]] == [draft.pk]
    assert [
        r["id"] for r in api.get(f"/api/v1/loops/?candidate={world.candidate.pk}").json()["results"]
    ] == [panels.pk]


def test_it_reads_one_loop_with_its_panels(recruiter, panels):
    response = client_for(recruiter).get(f"/api/v1/loops/{panels.pk}/")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "scheduled"
    assert [i["panel"] for i in data["interviews"]] == [
        [{"username": "ines", "name": "Ines", "is_shadow": False}],
        [{"username": "omar", "name": "Omar", "is_shadow": False}],
    ]
    assert [len(i["questions"]) for i in data["interviews"]] == [2, 2]
    assert InterviewQuestion.objects.filter(loop=panels).count() == 4


@pytest.mark.django_db
def test_a_loop_may_name_its_role_and_level_by_id(world, recruiter: User) -> None:  # type: ignore[no-untyped-def]
    level = Level.objects.get(name="L5")

    response = client_for(recruiter).post(
        "/api/v1/loops/",
        {"candidate": world.candidate.pk, "role": world.role.pk, "level": level.pk},
    )

    assert response.status_code == 201
    body = response.json()
    assert (body["role_id"], body["role"]) == (world.role.pk, world.role.name)
    assert (body["level_id"], body["level"]) == (level.pk, "L5")


@pytest.mark.django_db
def test_an_unknown_role_id_is_a_field_error_and_builds_nothing(world, recruiter: User) -> None:  # type: ignore[no-untyped-def]
    before = Loop.objects.count()

    response = client_for(recruiter).post(
        "/api/v1/loops/", {"candidate": world.candidate.pk, "role": 999_999, "level": "L5"}
    )

    assert field_errors(response) == {"role": ["No object with id 999999."]}
    assert Loop.objects.count() == before
