"""/api/v1/questions/ writes: who may, versions, the level range, bad input."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from kit import services
from kit.models import Question, QuestionVersion
from tests.conftest import client_for
from tests.kit.bank import ROLE, snapshot
from tests.kit.questions_api import PLATFORM, detail_json, payload
from tests.problems import NOT_ALLOWED, NOT_FOUND, detail, field_errors, not_signed_in
from tests.support.api import iso
from tests.support.factories import make_question


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_it_refuses_writes_from_anyone_but_a_lead(
    request: pytest.FixtureRequest, bank: dict[str, Question], vocabulary: None, persona: str
) -> None:
    client = client_for(request.getfixturevalue(persona))
    before = snapshot()

    created = client.post("/api/v1/questions/", payload(), format="json")
    updated = client.put(
        f"/api/v1/questions/{bank['a'].pk}/",
        payload(title=bank["a"].title, outline="Rewritten. Entirely."),
        format="json",
    )

    assert detail(created, 403, "permission_denied") == NOT_ALLOWED
    assert detail(updated, 403, "permission_denied") == NOT_ALLOWED
    assert snapshot() == before


def test_it_refuses_anonymous_writes(
    api: APIClient, bank: dict[str, Question], vocabulary: None
) -> None:
    before = snapshot()

    created = api.post("/api/v1/questions/", payload(), format="json")

    not_signed_in(created)
    assert snapshot() == before


def test_it_lets_a_lead_create_a_question(lead: User, vocabulary: None) -> None:
    response = client_for(lead).post("/api/v1/questions/", payload(), format="json")

    assert response.status_code == 201
    question = Question.objects.get()
    version = question.current
    rubric = list(version.rubric.order_by("order"))
    (follow_up,) = version.follow_ups.all()
    assert response.json() == {
        "id": question.pk,
        "title": "Sizing a KV cache",
        "role": ROLE,
        "status": "draft",
        "competencies": ["inference-serving"],
        "levels": {"min": "L4", "max": "L6"},
        "version": 1,
        "prompt": "How much memory does the KV cache of one 4k-token request take?",
        "minutes": 20,
        "scale_max": 5,
        "asked_30_days": 0,
        "asked_90_days": 0,
        "current": {
            "id": version.pk,
            "number": 1,
            "prompt": "How much memory does the KV cache of one 4k-token request take?",
            "outline": (
                "Multiplies layers, heads, head size and tokens. Doubles it for keys and values. "
                "A strong answer mentions paging. A common miss is forgetting bytes per element."
            ),
            "minutes": 20,
            "scale_max": 5,
            "rubric": [
                {
                    "id": rubric[0].pk,
                    "text": "Multiplies layers, heads, head size and tokens.",
                    "kind": "core",
                    "order": 1,
                },
                {
                    "id": rubric[1].pk,
                    "text": "Doubles it for keys and values.",
                    "kind": "core",
                    "order": 2,
                },
                {
                    "id": rubric[2].pk,
                    "text": "A strong answer mentions paging.",
                    "kind": "strong",
                    "order": 3,
                },
                {
                    "id": rubric[3].pk,
                    "text": "A common miss is forgetting bytes per element.",
                    "kind": "red_flag",
                    "order": 4,
                },
            ],
            "follow_ups": [
                {
                    "id": follow_up.pk,
                    "text": "What changes with grouped-query attention?",
                    "order": 1,
                }
            ],
            "in_use": False,
            "created_at": iso(version.created_at),
        },
        "versions": [1],
    }
    assert version.created_by == lead


def test_it_takes_an_explicit_rubric_from_a_lead(lead: User, vocabulary: None) -> None:
    rubric = [
        {"text": "Multiplies layers by tokens.", "kind": "core"},
        {"text": "Forgets the bytes per element.", "kind": "red_flag"},
    ]

    response = client_for(lead).post("/api/v1/questions/", payload(rubric=rubric), format="json")

    assert response.status_code == 201
    assert [
        {"text": r["text"], "kind": r["kind"]} for r in response.json()["current"]["rubric"]
    ] == rubric


def test_it_makes_version_2_when_a_lead_edits_a_question_in_use(
    lead: User, vocabulary: None
) -> None:
    question = make_question(title="Sizing a KV cache", min_level="L4", max_level="L6")
    v1 = question.current
    services.question_version_mark_used(version=v1)
    v1_rubric = list(v1.rubric.values_list("pk", "text", "kind", "order"))
    new_outline = "Multiplies layers by tokens. Doubles it. A common miss is the dtype size."

    response = client_for(lead).put(
        f"/api/v1/questions/{question.pk}/", payload(outline=new_outline), format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert body == detail_json(question)
    assert (body["version"], body["versions"]) == (2, [1, 2])
    assert body["current"]["outline"] == new_outline
    assert [r["text"] for r in body["current"]["rubric"]] == [
        "Multiplies layers by tokens.",
        "Doubles it.",
        "A common miss is the dtype size.",
    ]
    v1.refresh_from_db()
    assert v1.in_use is True
    assert list(v1.rubric.values_list("pk", "text", "kind", "order")) == v1_rubric
    assert QuestionVersion.objects.get(question=question, number=2).created_by == lead


def test_it_edits_an_unused_version_in_place(lead: User, vocabulary: None) -> None:
    question = make_question(title="Sizing a KV cache")
    version = question.current

    response = client_for(lead).put(
        f"/api/v1/questions/{question.pk}/",
        payload(outline="Multiplies layers by tokens. Doubles it."),
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["versions"] == [1]
    assert response.json()["current"]["id"] == version.pk
    assert response.json() == detail_json(question)


def test_it_refuses_to_move_a_question_to_another_role(lead: User, vocabulary: None) -> None:
    question = make_question(title="Sizing a KV cache")
    before = snapshot()

    response = client_for(lead).put(
        f"/api/v1/questions/{question.pk}/", payload(role=PLATFORM), format="json"
    )

    assert field_errors(response) == {"role": ["A question cannot move to another role."]}
    assert snapshot() == before


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"scale_max": 1}, {"scale_max": ["Ensure this value is greater than or equal to 2."]}),
        (
            {"competencies": ["no-such-thing"]},
            {"competencies": ["Object with slug=no-such-thing does not exist."]},
        ),
        ({"prompt": ""}, {"prompt": ["This field may not be blank."]}),
        ({"min_level": "L9"}, {"min_level": ["Object with name=L9 does not exist."]}),
        ({"status": "gone"}, {"status": ['"gone" is not a valid choice.']}),
    ],
    ids=["scale-max-1", "unknown-competency", "empty-prompt", "unknown-level", "bad-status"],
)
def test_it_refuses_bad_input_naming_the_field(
    lead: User, vocabulary: None, changes: dict[str, Any], expected: dict[str, list[str]]
) -> None:
    before = snapshot()

    response = client_for(lead).post("/api/v1/questions/", payload(**changes), format="json")

    assert field_errors(response) == expected
    assert snapshot() == before


def test_it_refuses_a_reversed_level_range_naming_the_field(lead: User, vocabulary: None) -> None:
    before = snapshot()

    response = client_for(lead).post(
        "/api/v1/questions/", payload(min_level="L6", max_level="L4"), format="json"
    )

    errors = field_errors(response)
    # A client must be able to tell which field to fix, as with every other bad field.
    assert list(errors) == ["min_level"], errors
    assert "L6" in errors["min_level"][0]
    assert "L4" in errors["min_level"][0]
    assert snapshot() == before


def without_range(**changes: Any) -> dict[str, Any]:
    data = payload()
    del data["min_level"], data["max_level"]
    return {**data, **changes}


def test_it_keeps_the_level_range_a_question_is_sent_back_with(
    lead: User, vocabulary: None
) -> None:
    question = make_question(title="Sizing a KV cache", min_level="L4", max_level="L6")
    services.question_version_mark_used(version=question.current)
    api = client_for(lead)
    shown = api.get(f"/api/v1/questions/{question.pk}/").json()

    response = api.put(
        f"/api/v1/questions/{question.pk}/",
        without_range(levels=shown["levels"], outline="Multiplies layers by tokens."),
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["levels"] == {"min": "L4", "max": "L6"}
    assert response.json()["version"] == 2
    question.refresh_from_db()
    assert (question.min_level.name, question.max_level.name) == ("L4", "L6")


def test_it_takes_an_open_ended_range_as_levels(lead: User, vocabulary: None) -> None:
    response = client_for(lead).post(
        "/api/v1/questions/", without_range(levels={"min": "L5", "max": None}), format="json"
    )

    assert response.status_code == 201
    assert response.json()["levels"] == {"min": "L5", "max": None}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"levels": {"min": "L4", "max": "L6"}, "min_level": "L4"},
            {"levels": ["Give the range as levels or as min_level, not both."]},
        ),
        ({"levels": {"min": "L9"}}, {"levels.min": ["Object with name=L9 does not exist."]}),
        (
            {"levels": "L4"},
            {"levels.non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
        ),
        (
            {"levels": {"min": "L6", "max": "L4"}},
            {"levels": ["level range is reversed: L6 is above L4"]},
        ),
    ],
    ids=["both-ways", "unknown-level", "not-an-object", "reversed"],
)
def test_it_refuses_a_bad_levels_range_naming_the_field(
    lead: User, vocabulary: None, changes: dict[str, Any], expected: dict[str, list[str]]
) -> None:
    before = snapshot()

    response = client_for(lead).post("/api/v1/questions/", without_range(**changes), format="json")

    assert field_errors(response) == expected
    assert snapshot() == before


def test_it_answers_404_to_a_lead_editing_an_unknown_question(lead: User, vocabulary: None) -> None:
    response = client_for(lead).put("/api/v1/questions/999999/", payload(), format="json")

    assert detail(response, 404, "not_found") == NOT_FOUND
