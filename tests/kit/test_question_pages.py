"""The bank's server-rendered pages: /bank/ and /bank/questions/<pk>/."""

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django import DjangoAssertNumQueries

from core.models import AuditEvent
from kit import services
from kit.models import Question
from tests.kit.bank import ROLE
from tests.support.factories import RoleFactory, make_question

PLATFORM = "ML Platform Engineer"


@pytest.fixture
def browser(interviewer: User) -> Client:
    client = Client()
    client.force_login(interviewer)
    return client


@pytest.fixture
def bank(db: None) -> dict[str, Question]:
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
            max_level="L5",
            status="retired",
        ),
        "d": make_question(role=ai, title="D any level", prompt="What would you automate first?"),
        "f": make_question(
            role=platform,
            title="F platform",
            prompt="How do you roll out a new serving image?",
            competencies=["inference-serving"],
            min_level="L4",
            max_level="L6",
        ),
    }


def listed(response: Any) -> list[int]:
    return [question.pk for question in response.context["page"]]


def ids(bank: dict[str, Question], keys: str) -> list[int]:
    return [bank[key].pk for key in keys]


def test_it_sends_anonymous_visitors_to_the_login_page(
    client: Client, bank: dict[str, Question]
) -> None:
    listing = client.get("/bank/")
    detail = client.get(f"/bank/questions/{bank['a'].pk}/")
    missing = client.get("/bank/questions/999999/")

    assert (listing.status_code, listing["Location"]) == (302, "/login/?next=/bank/")
    assert (detail.status_code, detail["Location"]) == (
        302,
        f"/login/?next=/bank/questions/{bank['a'].pk}/",
    )
    # An unknown question redirects the same way, so ids leak nothing.
    assert (missing.status_code, missing["Location"]) == (
        302,
        "/login/?next=/bank/questions/999999/",
    )


def test_it_lists_the_bank_in_a_fixed_number_of_queries(
    browser: Client, django_assert_max_num_queries: DjangoAssertNumQueries
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

    # 1. the session
    # 2. the signed-in user
    # 3. the user's groups (persona context processor)
    # 4. COUNT(*) for the paginator
    # 5. one page of questions joined with role, current version and both levels
    # 6. the page's competencies (prefetch)
    # 7-9. the role, level and competency choices of the filter form
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(10):
        response = browser.get("/bank/")

    assert response.status_code == 200
    assert len(listed(response)) == 50
    html = response.content.decode()
    assert "200 questions" in html
    assert "Page 1 of 4" in html
    assert html.count('<span class="tag">distributed-training</span>') == 50
    assert "L4–L6" in html

    # 1-2. the session and the signed-in user
    # 3-5. the role, level and competency named in the query, to validate the filters
    # 6. COUNT(*) of the filtered questions
    # 7. the user's groups (persona context processor)
    # 8-10. the role, level and competency choices of the filter form
    # 11. one page of filtered questions; 12. their competencies (prefetch)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(13):
        response = browser.get(
            f"/bank/?role={role.pk}&level=L5&competency=gpu-performance&status=active&q=mechanism"
        )

    assert response.status_code == 200
    assert len(listed(response)) == 50
    assert "200 questions" in response.content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", "abcdf"),
        ("level=L5", "bcdf"),
        ("level=L3", "acd"),
        ("competency=inference-serving", "bf"),
        ("status=draft", "b"),
        ("status=retired", "c"),
        ("q=allreduce", "a"),
        ("q=lazily", "b"),
        ("q=occupancy", "c"),
        ("q=nothing-like-this", ""),
        ("level=L5&status=active", "df"),
    ],
)
def test_it_filters_and_searches_the_list(
    browser: Client, bank: dict[str, Question], query: str, expected: str
) -> None:
    response = browser.get(f"/bank/?{query}")

    assert response.status_code == 200
    assert listed(response) == ids(bank, expected)
    html = response.content.decode()
    for key, question in bank.items():
        assert (f">{question.title}<" in html) == (key in expected), question.title
    if not expected:
        assert "No questions match these filters." in html


def test_it_filters_the_list_by_role(browser: Client, bank: dict[str, Question]) -> None:
    response = browser.get(f"/bank/?role={bank['f'].role_id}")

    assert listed(response) == ids(bank, "f")


def test_it_keeps_the_search_in_the_form(browser: Client, bank: dict[str, Question]) -> None:
    response = browser.get("/bank/?q=allreduce&status=active")

    html = response.content.decode()
    assert 'name="q" value="allreduce"' in html
    assert '<option value="active" selected>' in html


def test_it_shows_a_question_with_its_rubric_grouped_by_kind(
    browser: Client, bank: dict[str, Question]
) -> None:
    question = bank["a"]

    response = browser.get(f"/bank/questions/{question.pk}/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "How would you tune ring allreduce across a slow NIC?" in html
    assert "15 min" in html
    assert "rated 1–4" in html
    assert "L3–L4" in html
    assert '<span class="tag">distributed-training</span>' in html
    headings = re.findall(r'<h3 class="kind kind-(\w+)">([^<]+)</h3>', html)
    assert headings == [("core", "Core"), ("strong", "Strong"), ("red_flag", "Red flag")]
    core, strong, red_flag = (html.index(f"kind-{kind}") for kind in ("core", "strong", "red_flag"))
    assert core < html.index("Explains the mechanism in plain terms.") < strong
    assert core < html.index("Estimates the cost with numbers.") < strong
    assert strong < html.index("A strong answer also compares two alternatives.") < red_flag
    assert red_flag < html.index("A common miss is ignoring failure modes.")
    assert "<li>What would you measure first?</li>" in html
    assert "You are reading version" not in html


def test_it_leaves_out_a_kind_with_no_items(browser: Client, bank: dict[str, Question]) -> None:
    response = browser.get(f"/bank/questions/{bank['b'].pk}/")

    headings = re.findall(r'<h3 class="kind kind-(\w+)">', response.content.decode())
    assert headings == ["core"]


def test_it_shows_the_version_history_and_an_older_version(browser: Client, lead: User) -> None:
    question = make_question(
        title="Sizing a KV cache",
        prompt="How big is the KV cache of one request?",
        outline="Multiplies layers by tokens. Doubles it for keys and values.",
    )
    services.question_version_mark_used(version=question.current)
    services.question_update(
        question=question,
        content=services.Content(
            prompt="How big is the KV cache of one 4k-token request in fp16?",
            outline="Multiplies layers, heads and tokens. A common miss is the dtype size.",
            follow_ups=("What about grouped-query attention?",),
        ),
        by=lead,
    )

    current = browser.get(f"/bank/questions/{question.pk}/")
    old = browser.get(f"/bank/questions/{question.pk}/?version=1")

    assert current.status_code == 200
    html = current.content.decode()
    assert "How big is the KV cache of one 4k-token request in fp16?" in html
    assert "A common miss is the dtype size." in html
    assert "<strong>v2</strong>" in html
    assert '<a href="?version=1">v1</a>' in html
    assert "· Leo" in html
    assert "You are reading version" not in html

    assert old.status_code == 200
    html = old.content.decode()
    assert "You are reading version 1, kept because interviews used it." in html
    assert "How big is the KV cache of one request?" in html
    assert "Doubles it for keys and values." in html
    assert "A common miss is the dtype size." not in html
    assert "<li>What would you measure first?</li>" in html
    assert "<strong>v1</strong>" in html
    assert '<a href="?version=2">v2</a>' in html


@pytest.mark.parametrize("url", ["/bank/questions/999999/", "/bank/questions/{pk}/?version=9"])
def test_it_answers_404_for_an_unknown_question_or_version(
    browser: Client, bank: dict[str, Question], url: str
) -> None:
    response = browser.get(url.format(pk=bank["a"].pk))

    assert response.status_code == 404


# --- retire and restore (leads) ----------------------------------------------------------


def status_url(question: Question) -> str:
    return f"/bank/questions/{question.pk}/status/"


def test_a_lead_retires_and_restores_a_question_from_its_page(
    lead: User, bank: dict[str, Question]
) -> None:
    web = Client()
    web.force_login(lead)
    question = bank["a"]
    page = web.get(f"/bank/questions/{question.pk}/").content.decode()
    assert 'value="retired" class="danger" data-confirm="Retire' in page

    response = web.post(status_url(question), {"status": "retired"}, follow=True)

    assert response.redirect_chain == [(f"/bank/questions/{question.pk}/", 302)]
    assert "“A ring allreduce” is now Retired." in response.content.decode()
    assert 'value="active">Restore to the bank</button>' in response.content.decode()
    question.refresh_from_db()
    assert question.status == Question.Status.RETIRED
    assert question.current.number == 1  # a status is not content: no new version
    web.post(status_url(question), {"status": "active"})
    question.refresh_from_db()
    assert question.status == Question.Status.ACTIVE
    events = AuditEvent.objects.order_by("id")
    assert [(e.actor, e.action, e.data["status"]) for e in events] == [
        (lead, "question.retired", "active → retired"),
        (lead, "question.restored", "retired → active"),
    ]


def test_the_status_form_is_shown_to_leads_only(
    browser: Client, recruiter: User, bank: dict[str, Question]
) -> None:
    web = Client()
    web.force_login(recruiter)
    for client in (browser, web):
        page = client.get(f"/bank/questions/{bank['a'].pk}/").content.decode()
        assert "/status/" not in page and "Retire" not in page


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_only_leads_change_a_status(
    request: pytest.FixtureRequest, persona: str, bank: dict[str, Question]
) -> None:
    web = Client()
    web.force_login(request.getfixturevalue(persona))

    response = web.post(status_url(bank["a"]), {"status": "retired"})

    assert response.status_code == 404
    bank["a"].refresh_from_db()
    assert bank["a"].status == Question.Status.ACTIVE
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize("status", ["", "deleted", "RETIRED"])
def test_an_unknown_status_is_a_400_naming_the_choices(
    lead: User, bank: dict[str, Question], status: str
) -> None:
    web = Client()
    web.force_login(lead)

    response = web.post(status_url(bank["a"]), {"status": status})

    assert response.status_code == 400
    assert response.content.decode() == (
        f"Unknown status '{status}': choose one of draft, active, retired."
    )
    bank["a"].refresh_from_db()
    assert bank["a"].status == Question.Status.ACTIVE
    assert not AuditEvent.objects.exists()


def test_a_status_change_answers_404_for_an_unknown_question_and_405_for_get(
    lead: User, bank: dict[str, Question]
) -> None:
    web = Client()
    web.force_login(lead)
    assert web.post("/bank/questions/999999/status/", {"status": "retired"}).status_code == 404
    assert web.get(status_url(bank["a"])).status_code == 405
