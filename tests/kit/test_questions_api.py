"""/api/v1/questions/ and the bank's reference endpoints, token auth, schema and docs."""

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoAssertNumQueries
from rest_framework.test import APIClient

from core.accounts.tokens import key_digest
from core.models import ApiToken
from kit import services
from kit.models import Level, Question, QuestionVersion
from tests.conftest import client_for
from tests.kit.bank import ROLE, snapshot
from tests.problems import NOT_ALLOWED, NOT_FOUND, detail, field_errors, not_signed_in
from tests.support.api import iso
from tests.support.factories import CompetencyFactory, RoleFactory, make_question

PLATFORM = "ML Platform Engineer"


def detail_json(question: Question) -> dict[str, Any]:
    """Return the detail representation, built from the rows the API should show."""
    question = Question.objects.get(pk=question.pk)
    version = question.current
    return {
        "id": question.pk,
        "title": question.title,
        "role": question.role.name,
        "status": question.status,
        "competencies": [c.slug for c in question.competencies.order_by("slug")],
        "levels": {
            "min": question.min_level.name if question.min_level else None,
            "max": question.max_level.name if question.max_level else None,
        },
        "version": version.number,
        "prompt": version.prompt,
        "minutes": version.minutes,
        "scale_max": version.scale_max,
        "asked_30_days": 0,
        "asked_90_days": 0,
        "current": {
            "id": version.pk,
            "number": version.number,
            "prompt": version.prompt,
            "outline": version.outline,
            "minutes": version.minutes,
            "scale_max": version.scale_max,
            "rubric": [
                {"id": r.pk, "text": r.text, "kind": r.kind, "order": r.order}
                for r in version.rubric.order_by("order")
            ],
            "follow_ups": [
                {"id": f.pk, "text": f.text, "order": f.order}
                for f in version.follow_ups.order_by("order")
            ],
            "in_use": version.in_use,
            "created_at": iso(version.created_at),
        },
        "versions": list(question.versions.order_by("number").values_list("number", flat=True)),
    }


@pytest.fixture
def bank(db: None) -> dict[str, Question]:
    """Six questions whose filters each pick a different subset."""
    ai, platform = RoleFactory(name=ROLE), RoleFactory(name=PLATFORM)
    return {
        "a": make_question(
            role=ai,
            title="A ring allreduce",
            prompt="How would you tune ring allreduce across a slow NIC?",
            competencies=["distributed-training"],
            min_level="L3",
            max_level="L4",
        ),
        "b": make_question(
            role=ai,
            title="B paged cache",
            prompt="How does a paged KV cache work?",
            outline="Allocates blocks lazily. Shares prefixes between requests.",
            competencies=["inference-serving"],
            min_level="L5",
            status="draft",
        ),
        "c": make_question(
            role=ai,
            title="C kernel occupancy",
            prompt="Why is this kernel at 40% occupancy?",
            competencies=["distributed-training", "gpu-performance"],
            max_level="L5",
            status="retired",
        ),
        "d": make_question(role=ai, title="D any level", prompt="What would you automate first?"),
        "e": make_question(
            role=ai,
            title="E principal",
            prompt="How would you plan a 10,000-GPU cluster?",
            min_level="L6",
            max_level="L7",
        ),
        "f": make_question(
            role=platform,
            title="F platform",
            prompt="How do you roll out a new serving image?",
            competencies=["inference-serving"],
            min_level="L4",
            max_level="L6",
        ),
    }


def payload(**changes: Any) -> dict[str, Any]:
    data = {
        "role": ROLE,
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one 4k-token request take?",
        "outline": (
            "Multiplies layers, heads, head size and tokens. Doubles it for keys and values. "
            "A strong answer mentions paging. A common miss is forgetting bytes per element."
        ),
        "follow_ups": ["What changes with grouped-query attention?"],
        "competencies": ["inference-serving"],
        "min_level": "L4",
        "max_level": "L6",
        "minutes": 20,
        "scale_max": 5,
        "status": "draft",
    }
    data.update(changes)
    return data


@pytest.fixture
def vocabulary(db: None) -> None:
    RoleFactory(name=ROLE)
    RoleFactory(name=PLATFORM)
    CompetencyFactory(slug="inference-serving")


# --- who may read ----------------------------------------------------------------------


def test_it_refuses_anonymous_callers_with_401(api: APIClient, bank: dict[str, Question]) -> None:
    # Token auth comes first and sends its WWW-Authenticate challenge, so DRF answers 401.
    listing = api.get("/api/v1/questions/")
    existing = api.get(f"/api/v1/questions/{bank['a'].pk}/")
    missing = api.get("/api/v1/questions/999999/")

    not_signed_in(listing)
    # The same answer whether or not the question exists: ids leak nothing.
    not_signed_in(existing)
    not_signed_in(missing)


@pytest.mark.parametrize("url", ["/api/v1/roles/", "/api/v1/levels/", "/api/v1/competencies/"])
def test_it_refuses_anonymous_callers_on_the_reference_lists(
    api: APIClient, db: None, url: str
) -> None:
    response = api.get(url)

    not_signed_in(response)


def test_it_lists_the_bank_in_a_fixed_number_of_queries(
    interviewer: User, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    role = RoleFactory(name=ROLE)
    for n in range(200):
        make_question(
            role=role,
            title=f"Question {n:03}",
            competencies=["distributed-training", "gpu-performance"],
            min_level="L4",
            max_level="L6",
        )
    client = client_for(interviewer)

    # 1. COUNT(*) for the paginator
    # 2. one page of questions joined with role, current version and both levels
    # 3. the page's competencies (prefetch)
    with django_assert_max_num_queries(3):
        response = client.get("/api/v1/questions/")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 200
    assert body["next"] == "http://testserver/api/v1/questions/?page=2"
    assert body["previous"] is None
    assert len(body["results"]) == 50
    first = Question.objects.get(title="Question 000")
    assert body["results"][0] == {
        "id": first.pk,
        "title": "Question 000",
        "role": ROLE,
        "status": "active",
        "competencies": ["distributed-training", "gpu-performance"],
        "levels": {"min": "L4", "max": "L6"},
        "version": 1,
        "prompt": first.current.prompt,
        "minutes": 15,
        "scale_max": 4,
        "asked_30_days": 0,
        "asked_90_days": 0,
    }
    last_page = client.get("/api/v1/questions/?page=4").json()
    assert last_page["next"] is None
    assert [q["title"] for q in last_page["results"]][-1] == "Question 199"

    # 1-3. the role, level and competency named in the query, to validate the filters
    # 4. COUNT(*) of the filtered questions
    # 5. one page of them; 6. their competencies (prefetch)
    with django_assert_max_num_queries(6):
        response = client.get(
            f"/api/v1/questions/?role={role.pk}&level=L5&competency=gpu-performance"
            "&status=active&q=mechanism"
        )

    assert response.status_code == 200
    assert response.json()["count"] == 200
    assert len(response.json()["results"]) == 50


# --- filters -------------------------------------------------------------------------------


def ids(bank: dict[str, Question], keys: str) -> list[int]:
    return [bank[key].pk for key in keys]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", "abcdef"),
        ("level=L3", "acd"),
        ("level=L4", "acdf"),
        # Open ends: B is L5 and up, C is up to L5, D has no range at all.
        ("level=L5", "bcdf"),
        ("level=L6", "bdef"),
        ("level=L7", "bde"),
        ("competency=distributed-training", "ac"),
        ("competency=inference-serving", "bf"),
        ("competency=gpu-performance", "c"),
        ("status=active", "adef"),
        ("status=draft", "b"),
        ("status=retired", "c"),
        ("q=allreduce", "a"),
        ("q=ring+NIC", "a"),
        # A word only in B's outline.
        ("q=lazily", "b"),
        # A word in the title.
        ("q=occupancy", "c"),
        # A word in every outline but B's.
        ("q=mechanism", "acdef"),
        ("q=nothing-like-this", ""),
        ("level=L5&status=active", "df"),
        ("competency=inference-serving&level=L4", "f"),
    ],
)
def test_it_filters_the_list(
    interviewer: User, bank: dict[str, Question], query: str, expected: str
) -> None:
    response = client_for(interviewer).get(f"/api/v1/questions/?{query}")

    assert response.status_code == 200
    assert [q["id"] for q in response.json()["results"]] == ids(bank, expected)
    assert response.json()["count"] == len(expected)


def test_it_filters_by_role(interviewer: User, bank: dict[str, Question]) -> None:
    platform = bank["f"].role
    client = client_for(interviewer)

    by_platform = client.get(f"/api/v1/questions/?role={platform.pk}").json()
    by_ai_infra = client.get(f"/api/v1/questions/?role={bank['a'].role_id}").json()

    assert [q["id"] for q in by_platform["results"]] == ids(bank, "f")
    assert [q["id"] for q in by_ai_infra["results"]] == ids(bank, "abcde")


@pytest.mark.parametrize(
    ("query", "field"),
    [("level=L9", "level"), ("competency=no-such", "competency"), ("status=gone", "status")],
)
def test_it_refuses_an_unknown_filter_value(
    interviewer: User, bank: dict[str, Question], query: str, field: str
) -> None:
    response = client_for(interviewer).get(f"/api/v1/questions/?{query}")

    assert list(field_errors(response)) == [field]


# --- detail ----------------------------------------------------------------------------------


def test_it_shows_a_question_with_its_rubric_follow_ups_and_versions(
    interviewer: User, bank: dict[str, Question]
) -> None:
    question = bank["f"]

    response = client_for(interviewer).get(f"/api/v1/questions/{question.pk}/")

    assert response.status_code == 200
    body = response.json()
    assert body == detail_json(question)
    assert [(r["text"], r["kind"]) for r in body["current"]["rubric"]] == [
        ("Explains the mechanism in plain terms.", "core"),
        ("Estimates the cost with numbers.", "core"),
        ("A strong answer also compares two alternatives.", "strong"),
        ("A common miss is ignoring failure modes.", "red_flag"),
    ]
    assert [f["text"] for f in body["current"]["follow_ups"]] == ["What would you measure first?"]
    assert body["versions"] == [1]


def test_it_answers_404_for_an_unknown_question(interviewer: User, db: None) -> None:
    response = client_for(interviewer).get("/api/v1/questions/999999/")

    assert detail(response, 404, "not_found") == NOT_FOUND


# --- writes ------------------------------------------------------------------------------------


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


# --- token auth ---------------------------------------------------------------------------


def test_it_issues_a_token_for_good_credentials(api: APIClient, lead: User) -> None:
    response = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"})

    assert response.status_code == 200
    key = response.json()["token"]
    assert list(response.json()) == ["token"]
    # Stored as its hash only (core/accounts/tokens.py).
    assert ApiToken.objects.get(user=lead).digest == key_digest(key)


def test_each_sign_in_issues_its_own_token(api: APIClient, lead: User) -> None:
    first = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()
    second = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()

    assert first != second
    assert ApiToken.objects.count() == 2


@pytest.mark.parametrize(
    "data",
    [{"username": "leo", "password": "wrong"}, {"username": "nobody", "password": "pw"}],
    ids=["wrong-password", "unknown-user"],
)
def test_it_refuses_a_token_for_bad_credentials_with_a_401_challenge(
    api: APIClient, lead: User, data: dict[str, str]
) -> None:
    response = api.post("/api/v1/auth/token/", data)

    assert detail(response, 401, "authentication_failed") == (
        "Unable to log in with provided credentials."
    )
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"username": "leo"}, {"password": ["This field is required."]}),
        ({"password": "pw"}, {"username": ["This field is required."]}),
    ],
    ids=["no-password", "no-username"],
)
def test_it_refuses_a_sign_in_missing_a_field_with_a_400_naming_it(
    api: APIClient, lead: User, data: dict[str, str], expected: dict[str, list[str]]
) -> None:
    response = api.post("/api/v1/auth/token/", data)

    assert field_errors(response) == expected
    assert not ApiToken.objects.exists()


def test_it_accepts_a_token_in_the_authorization_header(
    api: APIClient, lead: User, bank: dict[str, Question], vocabulary: None
) -> None:
    token = api.post("/api/v1/auth/token/", {"username": "leo", "password": "pw"}).json()["token"]
    caller = type(api)()
    caller.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    listing = caller.get("/api/v1/questions/")
    created = caller.post("/api/v1/questions/", payload(), format="json")

    assert listing.status_code == 200
    assert listing.json()["count"] == len(bank)
    # Token requests carry no session cookie, so no CSRF token is needed to write.
    assert created.status_code == 201
    assert Question.objects.get(title="Sizing a KV cache").current.created_by == lead


def test_it_refuses_an_unknown_token(api: APIClient, bank: dict[str, Question]) -> None:
    api.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")

    response = api.get("/api/v1/questions/")

    assert detail(response, 401, "authentication_failed") == "Invalid token."
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'


# --- reference lists ----------------------------------------------------------------------


def test_it_lists_roles(
    interviewer: User, vocabulary: None, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    client = client_for(interviewer)

    # 1. COUNT(*) for the paginator; 2. the page of roles
    with django_assert_max_num_queries(2):
        response = client.get("/api/v1/roles/")

    assert response.status_code == 200
    ai, platform = RoleFactory(name=ROLE), RoleFactory(name=PLATFORM)
    assert response.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [
            {"id": ai.pk, "name": ROLE, "description": ""},
            {"id": platform.pk, "name": PLATFORM, "description": ""},
        ],
    }


def test_it_lists_the_levels_in_ladder_order(
    interviewer: User, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    client = client_for(interviewer)

    # 1. the count, for the page
    # 2. the levels, ordered by rank
    with django_assert_max_num_queries(2):
        response = client.get("/api/v1/levels/")

    assert response.status_code == 200
    body = response.json()
    assert (body["count"], body["next"], body["previous"]) == (5, None, None)
    assert body["results"] == [
        {"id": Level.objects.get(name=name).pk, "name": name, "rank": rank, "title": title}
        for name, rank, title in [
            ("L3", 3, "Engineer"),
            ("L4", 4, "Engineer II"),
            ("L5", 5, "Senior Engineer"),
            ("L6", 6, "Staff Engineer"),
            ("L7", 7, "Principal Engineer"),
        ]
    ]


def test_it_lists_the_competencies(
    interviewer: User,
    bank: dict[str, Question],
    django_assert_max_num_queries: DjangoAssertNumQueries,
) -> None:
    client = client_for(interviewer)

    # 1. the count, for the page
    # 2. the competencies, ordered by slug
    with django_assert_max_num_queries(2):
        response = client.get("/api/v1/competencies/")

    assert response.status_code == 200
    assert [c["slug"] for c in response.json()["results"]] == [
        "distributed-training",
        "gpu-performance",
        "inference-serving",
    ]
    assert response.json()["results"][0] == {
        "id": CompetencyFactory(slug="distributed-training").pk,
        "slug": "distributed-training",
        "name": "Distributed training",
        "description": "",
    }


# --- schema and docs ------------------------------------------------------------------------------


def test_it_serves_an_openapi_3_schema(api: APIClient, db: None) -> None:
    response = api.get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Interview Kit API"
    # Paths are relative to the one server, /api/v1 (SPECTACULAR_SETTINGS["SERVERS"]).
    assert [server["url"] for server in schema["servers"]] == ["/api/v1"]
    for path in (
        "/questions/",
        "/questions/{id}/",
        "/roles/",
        "/levels/",
        "/competencies/",
        "/auth/token/",
    ):
        assert path in schema["paths"], path


def test_it_serves_the_docs_without_any_external_url(api: APIClient, db: None) -> None:
    response = api.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls)
    # Everything the page loads comes from this server: relative URLs or the test host.
    for url in urls:
        assert not url.startswith("//"), url
        assert not re.match(r"https?://", url) or url.startswith("http://testserver/"), url
    hosts = set(re.findall(r"https?://([^/\"'\s)]+)", html))
    assert hosts <= {"testserver"}, hosts
