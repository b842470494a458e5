"""/api/v1/loop-templates/: everyone signed in reads; recruiters and leads write."""

import pytest

from kit.models import LoopSlot, LoopTemplate
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.problems import detail, field_errors, problem

URL = "/api/v1/loop-templates/"


def template_json(template: LoopTemplate) -> dict:
    return {
        "id": template.pk,
        "role": template.role.name,
        "level": template.level.name,
        "name": template.name,
        "slots": [
            {
                "id": slot.pk,
                "order": slot.order,
                "title": slot.title,
                "minutes": slot.minutes,
                "competencies": sorted(c.slug for c in slot.competencies.all()),
                "question_count": slot.question_count,
                "interviewer_count": slot.interviewer_count,
            }
            for slot in template.slots.order_by("order")
        ],
    }


def payload(level: str = "L6", **changes) -> dict:  # type: ignore[no-untyped-def]
    return {
        "role": "AI Infrastructure Engineer",
        "level": level,
        "name": f"Serving-heavy {level}",
        "slots": [
            {"title": "Serving", "minutes": 60, "competencies": ["serving"], "question_count": 3},
            {
                "title": "Training",
                "minutes": 45,
                "competencies": ["networking", "training"],
                "interviewer_count": 2,
            },
        ],
        **changes,
    }


@pytest.mark.parametrize("persona", ["recruiter", "lead", "interviewer"])
def test_everyone_signed_in_lists_and_reads_templates(world, persona, request):
    api = client_for(request.getfixturevalue(persona))
    listed = api.get(URL)
    assert listed.status_code == 200
    assert listed.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [template_json(world.template)],
    }
    assert listed.json()["results"][0]["slots"][1] == {
        "id": world.template.slots.get(order=2).pk,
        "order": 2,
        "title": "Training",
        "minutes": 45,
        "competencies": ["networking", "training"],
        "question_count": 2,
        "interviewer_count": 2,
    }
    one = api.get(f"{URL}{world.template.pk}/")
    assert one.status_code == 200
    assert one.json() == template_json(world.template)


@pytest.mark.parametrize("persona", ["recruiter", "lead"])
def test_recruiters_and_leads_create_a_template(world, persona, request):
    response = client_for(request.getfixturevalue(persona)).post(URL, payload(), format="json")
    assert response.status_code == 201
    template = LoopTemplate.objects.get(level__name="L6")
    assert response.json() == template_json(template)
    assert [
        (s.title, s.minutes, s.question_count, s.interviewer_count)
        for s in template.slots.order_by("order")
    ] == [("Serving", 60, 3, 1), ("Training", 45, 2, 2)]


@pytest.mark.parametrize("persona", ["recruiter", "lead"])
def test_recruiters_and_leads_replace_a_template(world, persona, request):
    body = payload(
        "L5",
        name="Lean L5",
        slots=[{"title": "Only serving", "minutes": 30, "competencies": ["serving"]}],
    )
    response = client_for(request.getfixturevalue(persona)).put(
        f"{URL}{world.template.pk}/", body, format="json"
    )
    assert response.status_code == 200
    template = LoopTemplate.objects.get()
    assert template.pk == world.template.pk
    assert response.json() == template_json(template)
    assert template.name == "Lean L5"
    assert list(template.slots.values_list("title", "minutes")) == [("Only serving", 30)]
    assert LoopSlot.objects.count() == 1


def test_posting_a_template_for_an_existing_role_and_level_replaces_it(recruiter, world):
    response = client_for(recruiter).post(URL, payload("L5"), format="json")
    assert response.status_code == 201
    assert LoopTemplate.objects.get().pk == world.template.pk
    assert list(LoopSlot.objects.values_list("title", "minutes")) == [
        ("Serving", 60),
        ("Training", 45),
    ]
    assert response.json()["name"] == "Serving-heavy L5"


def test_a_template_keeps_its_role_and_level(recruiter, world):
    before = snapshot()
    response = client_for(recruiter).put(f"{URL}{world.template.pk}/", payload("L6"), format="json")
    assert detail(response, 400, "template_moved") == "A template keeps its role and level."
    assert snapshot() == before


@pytest.mark.parametrize("method", ["post", "put"])
def test_interviewers_may_not_write_templates(interviewer, world, method):
    before = snapshot()
    api = client_for(interviewer)
    if method == "post":
        response = api.post(URL, payload(), format="json")
    else:
        response = api.put(f"{URL}{world.template.pk}/", payload("L5"), format="json")
    problem(response, 403, "permission_denied")
    assert snapshot() == before


@pytest.mark.parametrize("method", ["post", "put"])
def test_an_unknown_competency_is_refused_and_nothing_is_written(recruiter, world, method):
    body = payload(
        "L5",
        slots=[
            {"title": "Serving", "minutes": 60, "competencies": ["serving"]},
            {"title": "Mystery", "minutes": 30, "competencies": ["quantum-annealing"]},
        ],
    )
    before = snapshot()
    api = client_for(recruiter)
    if method == "post":
        response = api.post(URL, {**body, "level": "L6"}, format="json")
    else:
        response = api.put(f"{URL}{world.template.pk}/", body, format="json")
    assert detail(response, 400, "unknown_competency") == (
        "slot 'Mystery': unknown competency 'quantum-annealing'"
    )
    assert snapshot() == before


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"slots": []}, "slots.non_field_errors"),
        ({"level": "L9"}, "level"),
        ({"role": "Astronaut"}, "role"),
        ({"slots": [{"title": "Short", "minutes": 2}]}, "slots.0.minutes"),
        (
            {"slots": [{"title": "Crowded", "minutes": 60, "question_count": 11}]},
            "slots.0.question_count",
        ),
    ],
)
def test_it_rejects_a_malformed_template_and_writes_nothing(recruiter, world, changes, field):
    before = snapshot()
    response = client_for(recruiter).post(URL, payload(**changes), format="json")
    assert list(field_errors(response)) == [field]
    assert snapshot() == before


def test_templates_cannot_be_deleted(recruiter, world):
    before = snapshot()
    response = client_for(recruiter).delete(f"{URL}{world.template.pk}/")
    problem(response, 405, "method_not_allowed")
    assert snapshot() == before
