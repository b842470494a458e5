"""The question editor pages (leads): write a new question, edit one, versions kept."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from kit import services
from kit.models import Competency, Level, Question, QuestionVersion
from tests.kit.bank import snapshot
from tests.support.factories import make_question

ROLE = "AI Infrastructure Engineer"


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(**changes: object) -> dict[str, object]:
    data = {
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one request take?",
        "outline": "Multiplies layers by tokens. Doubles it for keys and values.",
        "rubric": "core: Multiplies layers by tokens.\nstrong: Mentions paging.\n"
        "red flag: Forgets the bytes per element.",
        "follow_ups": "What changes with grouped-query attention?\n\nAnd with paging?",
        "minutes": "20",
        "scale_max": "4",
    }
    data.update(changes)
    return data


@pytest.fixture
def question(db: None) -> Question:
    return make_question(title="Sizing a KV cache", min_level="L4", max_level="L6")


def test_a_lead_edits_a_question_in_place_while_it_is_unused(
    lead: User, question: Question
) -> None:
    url = f"/bank/questions/{question.pk}/edit/"
    page = signed_in(lead)
    shown = page.get(url).content.decode()
    assert "Version 1 has not been used yet: it is changed in place." in shown
    assert "core: " in shown  # the rubric as editable lines

    response = page.post(url, form(min_level=question.min_level.pk,
                                   max_level=question.max_level.pk), follow=True)  # fmt: skip

    assert response.redirect_chain == [(f"/bank/questions/{question.pk}/", 302)]
    assert "Saved." in response.content.decode()
    question.refresh_from_db()
    version = question.current
    assert (version.number, version.minutes) == (1, 20)
    assert list(version.rubric.values_list("kind", "text")) == [
        ("core", "Multiplies layers by tokens."),
        ("strong", "Mentions paging."),
        ("red_flag", "Forgets the bytes per element."),
    ]
    assert list(version.follow_ups.values_list("text", flat=True)) == [
        "What changes with grouped-query attention?",
        "And with paging?",
    ]
    assert (question.min_level.name, question.max_level.name) == ("L4", "L6")


def test_editing_a_used_version_saves_a_new_one(lead: User, question: Question) -> None:
    services.question_version_mark_used(version=question.current)
    url = f"/bank/questions/{question.pk}/edit/"

    response = signed_in(lead).post(url, form(prompt="A new prompt?"), follow=True)

    assert "Saved as version 2: interviews already held keep version 1." in (
        response.content.decode()
    )
    assert QuestionVersion.objects.get(question=question, number=1).prompt != "A new prompt?"
    question.refresh_from_db()
    assert (question.current.number, question.current.prompt) == (2, "A new prompt?")


def test_an_empty_rubric_is_derived_from_the_outline(lead: User, question: Question) -> None:
    signed_in(lead).post(f"/bank/questions/{question.pk}/edit/", form(rubric=""))

    question.refresh_from_db()
    assert list(question.current.rubric.values_list("text", flat=True)) == [
        "Multiplies layers by tokens.",
        "Doubles it for keys and values.",
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rubric": "core: Fine.\nmaybe: Unclear."},
         "Line 2 (“maybe: Unclear.”): start it with core:, strong: or red flag:, then the point."),
        ({"title": ""}, "This field is required."),
        ({"scale_max": "1"}, "Ensure this value is greater than or equal to 2."),
        ({"min_level": "L6", "max_level": "L4"}, "level range is reversed: L6 is above L4"),
    ],
    ids=["bad-rubric-line", "no-title", "scale-1", "reversed-levels"],
)  # fmt: skip
@pytest.mark.parametrize("editing", [True, False], ids=["edit", "new"])
def test_bad_input_is_shown_by_its_field_and_nothing_is_written(
    lead: User, question: Question, changes: dict[str, str], message: str, editing: bool
) -> None:
    levels = {name: Level.objects.get(name=value).pk
              for name, value in changes.items() if name.endswith("_level")}  # fmt: skip
    url = f"/bank/questions/{question.pk}/edit/" if editing else "/bank/questions/new/"
    before = snapshot()

    response = signed_in(lead).post(url, form(role=question.role_id, **{**changes, **levels}))

    assert response.status_code == 200
    assert message in response.content.decode()
    assert snapshot() == before


def test_a_lead_writes_a_new_question_as_a_draft(lead: User, question: Question) -> None:
    role = question.role
    serving = Competency.objects.create(slug="inference-serving", name="Inference serving")

    response = signed_in(lead).post(
        "/bank/questions/new/",
        form(role=role.pk, title="Paged attention", competencies=[serving.pk]),
        follow=True,
    )

    created = Question.objects.get(title="Paged attention")
    assert response.redirect_chain == [(f"/bank/questions/{created.pk}/", 302)]
    assert "“Paged attention” saved as a draft: activate it to use it." in (
        response.content.decode()
    )
    assert (created.role, created.status, created.current.created_by) == (role, "draft", lead)
    assert list(created.competencies.all()) == [serving]


@pytest.mark.parametrize("who", ["interviewer", "recruiter"])
def test_only_leads_may_write_the_bank(
    who: str, request: pytest.FixtureRequest, question: Question
) -> None:
    user = request.getfixturevalue(who)
    page = signed_in(user)
    before = snapshot()

    for url in (f"/bank/questions/{question.pk}/edit/", "/bank/questions/new/"):
        assert page.get(url).status_code == 404
        assert page.post(url, form(role=question.role_id)).status_code == 404
    assert "New question" not in page.get("/bank/").content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("editing", [True, False], ids=["edit", "new"])
def test_each_error_is_beside_its_field_with_a_summary_linking_to_it(
    lead: User, question: Question, editing: bool
) -> None:
    url = f"/bank/questions/{question.pk}/edit/" if editing else "/bank/questions/new/"
    levels = {
        "min_level": Level.objects.get(name="L6").pk,
        "max_level": Level.objects.get(name="L4").pk,
    }
    before = snapshot()

    response = signed_in(lead).post(url, form(role=question.role_id, title="", **levels))

    body = response.content.decode()
    assert response.status_code == 200
    # The summary comes first, focusable (form-errors.js focuses it), a link per field.
    summary = body[
        body.index("data-error-summary") : body.index("</div>", body.index("data-error-summary"))
    ]
    assert body.index("data-error-summary") < body.index('name="title"')
    assert "Not saved yet: 2 things to fix" in summary
    assert re.findall(r'<a href="(#[^"]+)">', summary) == ["#id_title", "#id_min_level"]
    assert "Levels, from: The level range is reversed: L6 is above L4." in summary
    # Each field names its message (aria-describedby) and says it is invalid.
    assert re.search(
        r'<select name="min_level"[^>]* aria-invalid="true" aria-describedby="id_min_level_error"',
        body,
    )
    assert (
        '<span class="field-error" id="id_min_level_error"><span class="error-text">'
        "The level range is reversed: L6 is above L4. Choose a “From” level at or below the “To”"
        " level.</span></span>"
    ) in body
    assert re.search(
        r'<input[^>]*name="title"[^>]*aria-invalid="true"[^>]*aria-describedby="id_title_error"',
        body,
    )
    assert (
        '<span class="field-error" id="id_title_error"><span class="error-text">'
        "This field is required.</span></span>"
    ) in body
    prompt = re.search(r'<textarea name="prompt"[^>]*>', body)
    assert prompt and "aria-invalid" not in prompt.group(0)
    assert snapshot() == before


def test_a_valid_form_has_no_error_summary_and_its_hints_are_named(
    lead: User, question: Question
) -> None:
    body = signed_in(lead).get(f"/bank/questions/{question.pk}/edit/").content.decode()

    assert "data-error-summary" not in body
    assert 'aria-describedby="id_prompt_helptext"' in body
    assert '<span class="hint" id="id_prompt_helptext">' in body
