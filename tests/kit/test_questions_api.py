"""/api/v1/questions/ read (who may, filters, detail) and the bank's reference endpoints."""

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoAssertNumQueries
from rest_framework.test import APIClient

from kit.models import Level, Question
from tests.conftest import client_for
from tests.kit.bank import ROLE
from tests.kit.questions_api import PLATFORM, detail_json
from tests.problems import NOT_FOUND, detail, field_errors, not_signed_in
from tests.support.factories import CompetencyFactory, RoleFactory, make_question

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
