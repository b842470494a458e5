"""Question texts have length limits (kit.models), refused the same way on every path (#15).

Prompt 5,000 characters, outline 10,000, follow-up 1,000, rubric item 500, title 120.
Each path names what is too long (the editor by its field, the API by field and item,
import_questions by FILE:LINE) and writes nothing.
"""

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.test import Client

from kit import services
from kit.models import (
    FOLLOW_UP_MAX_LENGTH,
    OUTLINE_MAX_LENGTH,
    PROMPT_MAX_LENGTH,
    RUBRIC_ITEM_MAX_LENGTH,
    TITLE_MAX_LENGTH,
    Question,
)
from tests.conftest import client_for
from tests.kit.bank import ROLE, SEED, run, snapshot
from tests.problems import field_errors
from tests.support.factories import RoleFactory, make_question

STARTER = Path(settings.BASE_DIR) / "kit" / "data" / "starter_bank.yaml"


def text(length: int, word: str = "word") -> str:
    """Return sentences of exactly `length` characters (a rubric item each, if short)."""
    body = (f"{word} " * (length // (len(word) + 1) + 1))[: length - 1].rstrip()
    return (body + "." * (length - len(body)))[:length]


def too_long(limit: int) -> str:
    return f"Ensure this value has at most {limit} characters (it has {limit + 1})."


# --- the limits and the service every path goes through ---------------------------------


@pytest.mark.django_db
def test_texts_exactly_at_each_limit_are_accepted() -> None:
    question = make_question(
        title="t" * TITLE_MAX_LENGTH,
        prompt=text(PROMPT_MAX_LENGTH),
        # Short sentences, so the derived rubric items are short too.
        outline=("Names the trade-off. " * 600)[: OUTLINE_MAX_LENGTH - 1] + ".",
        follow_ups=(text(FOLLOW_UP_MAX_LENGTH),),
    )
    version = question.current
    assert len(question.title) == TITLE_MAX_LENGTH
    assert (len(version.prompt), len(version.outline)) == (PROMPT_MAX_LENGTH, OUTLINE_MAX_LENGTH)
    assert len(version.follow_ups.get().text) == FOLLOW_UP_MAX_LENGTH


@pytest.mark.parametrize(
    ("content", "errors"),
    [
        ({"prompt": text(PROMPT_MAX_LENGTH + 1)}, {"prompt": [too_long(PROMPT_MAX_LENGTH)]}),
        ({"outline": text(OUTLINE_MAX_LENGTH + 1)}, {"outline": [too_long(OUTLINE_MAX_LENGTH)]}),
        (
            {"follow_ups": ("Fine?", text(FOLLOW_UP_MAX_LENGTH + 1))},
            {"follow_ups": [f"Follow-up 2: {too_long(FOLLOW_UP_MAX_LENGTH)}"]},
        ),
        (
            {"rubric": (("Fine.", "core"), ("Fine too.", "core"),
                        (text(RUBRIC_ITEM_MAX_LENGTH + 1), "strong"))},
            {"rubric": [f"Rubric item 3: {too_long(RUBRIC_ITEM_MAX_LENGTH)}"]},
        ),
    ],
    ids=["prompt", "outline", "follow-up", "rubric-item"],
)  # fmt: skip
@pytest.mark.django_db
def test_the_service_refuses_a_text_over_its_limit_and_writes_nothing(
    content: dict[str, Any], errors: dict[str, list[str]]
) -> None:
    role = RoleFactory()
    given = replace(services.Content(prompt="How?", outline="Explains it. Measures it."), **content)
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.question_create(role=role, meta=services.Meta(title="Long"), content=given)

    assert refused.value.message_dict == errors
    assert snapshot() == before


@pytest.mark.django_db
def test_an_edit_over_a_limit_is_refused_and_the_question_kept() -> None:
    question = make_question(title="Kept")
    services.question_version_mark_used(version=question.current)
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.question_update(
            question=question,
            content=services.Content(prompt=text(PROMPT_MAX_LENGTH + 1), outline="Fine. Fine."),
        )

    assert refused.value.message_dict == {"prompt": [too_long(PROMPT_MAX_LENGTH)]}
    assert snapshot() == before  # no new version either


@pytest.mark.django_db
def test_a_sentence_too_long_for_a_derived_rubric_item_is_the_outlines_problem() -> None:
    long_sentence = text(RUBRIC_ITEM_MAX_LENGTH + 1, word="shard")
    role = RoleFactory()
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.question_create(
            role=role,
            meta=services.Meta(title="Derived"),
            content=services.Content(prompt="How?", outline=f"Short point. {long_sentence}"),
        )

    assert refused.value.message_dict == {
        "outline": [
            f"Each sentence becomes a rubric item, and “{long_sentence[:40]}…” is too long "
            f"for one: {too_long(RUBRIC_ITEM_MAX_LENGTH)} Split the sentence, or write the "
            "rubric."
        ]
    }
    assert snapshot() == before


# --- the question editor ----------------------------------------------------------------


def editor(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(role: int, **changes: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": role,
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one request take?",
        "outline": "Multiplies layers by tokens. Doubles it for keys and values.",
        "rubric": "",
        "follow_ups": "What changes with grouped-query attention?",
        "minutes": "20",
        "scale_max": "4",
    }
    data.update(changes)
    return data


def errors_of(html: str, field: str) -> list[str]:
    """Return the errors the editor shows in the label of `field`."""
    label = re.search(rf'<label>(?:(?!</label>).)*name="{field}"(?:(?!</label>).)*</label>', html,
                      re.S)  # fmt: skip
    assert label, f"no {field} field on the page"
    return re.findall(r'<span class="error-text">(.*?)</span>', label.group(0))


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("prompt", text(PROMPT_MAX_LENGTH + 1), too_long(PROMPT_MAX_LENGTH)),
        ("outline", text(OUTLINE_MAX_LENGTH + 1), too_long(OUTLINE_MAX_LENGTH)),
        (
            "follow_ups",
            f"Fine?\n{text(FOLLOW_UP_MAX_LENGTH + 1)}",
            f"Follow-up 2: {too_long(FOLLOW_UP_MAX_LENGTH)}",
        ),
        (
            "rubric",
            f"core: Fine.\nred flag: {text(RUBRIC_ITEM_MAX_LENGTH + 1)}",
            f"Rubric item 2: {too_long(RUBRIC_ITEM_MAX_LENGTH)}",
        ),
        (
            "title",
            "t" * (TITLE_MAX_LENGTH + 1),
            f"Ensure this value has at most {TITLE_MAX_LENGTH} characters (it has "
            f"{TITLE_MAX_LENGTH + 1}).",
        ),
    ],
    ids=["prompt", "outline", "follow-up", "rubric-item", "title"],
)
@pytest.mark.parametrize("editing", [True, False], ids=["edit", "new"])
def test_the_editor_shows_the_limit_by_its_field_and_writes_nothing(
    lead: User, field: str, value: str, error: str, editing: bool
) -> None:
    question = make_question(title="Sizing a KV cache")
    url = f"/bank/questions/{question.pk}/edit/" if editing else "/bank/questions/new/"
    before = snapshot()

    response = editor(lead).post(url, form(question.role_id, **{field: value}))

    assert response.status_code == 200
    assert errors_of(response.content.decode(), field) == [error]
    assert snapshot() == before


def test_the_editor_says_what_the_limits_are(lead: User) -> None:
    make_question()
    html = editor(lead).get("/bank/questions/new/").content.decode()

    assert "At most 5,000 characters." in html
    assert "At most 10,000 characters." in html
    assert "each at most 500 characters" in html
    assert "One per line, each at most 1,000 characters." in html


# --- the API ----------------------------------------------------------------------------


def payload(**changes: Any) -> dict[str, Any]:
    data = {
        "role": ROLE,
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one request take?",
        "outline": "Multiplies layers by tokens. Doubles it for keys and values.",
        "follow_ups": ["What changes with grouped-query attention?"],
    }
    data.update(changes)
    return data


def no_more_than(limit: int) -> str:
    return f"Ensure this field has no more than {limit} characters."


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"prompt": text(PROMPT_MAX_LENGTH + 1)}, {"prompt": [no_more_than(PROMPT_MAX_LENGTH)]}),
        (
            {"outline": text(OUTLINE_MAX_LENGTH + 1)},
            {"outline": [no_more_than(OUTLINE_MAX_LENGTH)]},
        ),
        (
            {"follow_ups": ["Fine?", "Fine too?", text(FOLLOW_UP_MAX_LENGTH + 1)]},
            {"follow_ups.2": [no_more_than(FOLLOW_UP_MAX_LENGTH)]},
        ),
        (
            {"rubric": [{"text": text(RUBRIC_ITEM_MAX_LENGTH + 1)}, {"text": "Fine."}]},
            {"rubric.0.text": [no_more_than(RUBRIC_ITEM_MAX_LENGTH)]},
        ),
        (
            {"title": "t" * (TITLE_MAX_LENGTH + 1)},
            {"title": [no_more_than(TITLE_MAX_LENGTH)]},
        ),
        (
            # Within every field's own limit, but the derived rubric would not be.
            {"outline": f"Short point. {text(RUBRIC_ITEM_MAX_LENGTH + 1, word='shard')}"},
            {
                "outline": [
                    f"Each sentence becomes a rubric item, and “{'shard ' * 6}shar…” is "
                    f"too long for one: {too_long(RUBRIC_ITEM_MAX_LENGTH)} Split the sentence, "
                    "or write the rubric."
                ]
            },
        ),
    ],
    ids=["prompt", "outline", "follow-up", "rubric-item", "title", "derived-rubric"],
)
@pytest.mark.parametrize("method", ["post", "put"])
def test_the_api_answers_400_naming_the_field_and_writes_nothing(
    lead: User, method: str, changes: dict[str, Any], errors: dict[str, list[str]]
) -> None:
    question = make_question(role=RoleFactory(name=ROLE), title="Sizing a KV cache")
    url = "/api/v1/questions/" + (f"{question.pk}/" if method == "put" else "")
    before = snapshot()

    response = getattr(client_for(lead), method)(url, payload(**changes), format="json")

    assert field_errors(response) == errors
    assert snapshot() == before


def test_the_schema_documents_the_limits(api: Any, db: None) -> None:
    schema = api.get("/api/schema/?format=json").json()
    question = schema["components"]["schemas"]["QuestionInputRequest"]["properties"]
    rubric = schema["components"]["schemas"]["RubricInputRequest"]["properties"]

    assert question["prompt"]["maxLength"] == PROMPT_MAX_LENGTH
    assert question["outline"]["maxLength"] == OUTLINE_MAX_LENGTH
    assert question["follow_ups"]["items"]["maxLength"] == FOLLOW_UP_MAX_LENGTH
    assert question["title"]["maxLength"] == TITLE_MAX_LENGTH
    assert rubric["text"]["maxLength"] == RUBRIC_ITEM_MAX_LENGTH


# --- import_questions --------------------------------------------------------------------


def refused(path: Path) -> str:
    before = snapshot()
    with pytest.raises(CommandError) as error:
        run("import_questions", str(path), "--role", ROLE)
    assert snapshot() == before
    return str(error.value)


def plain(prompt: str = "How would you shard a 70B model?", outline: str = "Shards it. Gathers it.",
          follow_ups: tuple[str, ...] = ("What if one rank is slow?",)) -> str:  # fmt: skip
    bullets = "".join(f"• {f}\n" for f in follow_ups)
    return (
        "AI infrastructure engineer interview questions\n\n"  # line 1, then 2 blank
        f"As asked\n\n{prompt}\n\n"  # lines 3-6
        f"Sample answer outline\n\n{outline}\n\n"  # lines 7-10
        f"Expect these follow-ups\n\n{bullets}"  # lines 11-12, bullets from 13
    )


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (plain(prompt=text(PROMPT_MAX_LENGTH + 1)), 3,
         f"'As asked': {too_long(PROMPT_MAX_LENGTH)}"),
        (plain(outline=text(OUTLINE_MAX_LENGTH + 1)), 7,
         f"'Sample answer outline': {too_long(OUTLINE_MAX_LENGTH)}"),
        (plain(follow_ups=("Fine?", "Fine too?", text(FOLLOW_UP_MAX_LENGTH + 1))), 15,
         f"follow-up 3 under 'Expect these follow-ups': {too_long(FOLLOW_UP_MAX_LENGTH)}"),
        (plain(outline=f"Short point. {text(RUBRIC_ITEM_MAX_LENGTH + 1, word='shard')}"), 7,
         f"'Sample answer outline': Each sentence becomes a rubric item, and "
         f"“{'shard ' * 6}shar…” is too long for one: {too_long(RUBRIC_ITEM_MAX_LENGTH)} "
         "Split the sentence, or write the rubric."),
    ],
    ids=["prompt", "outline", "follow-up", "derived-rubric"],
)  # fmt: skip
def test_plain_text_over_a_limit_is_refused_at_its_line(
    db: None, tmp_path: Path, content: str, line: int, message: str
) -> None:
    path = tmp_path / "questions.txt"
    path.write_text(content)

    assert refused(path) == f"{path}:{line}: {message}"


def question(**fields: Any) -> dict[str, Any]:
    return {"title": "Sharding", "prompt": "How would you shard it?",
            "outline": "Shards it. Gathers it.", **fields}  # fmt: skip


STRUCTURED = [
    pytest.param({"prompt": text(PROMPT_MAX_LENGTH + 1)}, "prompt", None,
                 f"'prompt': {too_long(PROMPT_MAX_LENGTH)}", id="prompt"),
    pytest.param({"outline": text(OUTLINE_MAX_LENGTH + 1)}, "outline", None,
                 f"'outline': {too_long(OUTLINE_MAX_LENGTH)}", id="outline"),
    pytest.param({"follow_ups": ["Fine?", text(FOLLOW_UP_MAX_LENGTH + 1)]}, "follow_ups", 2,
                 f"follow-up 2: {too_long(FOLLOW_UP_MAX_LENGTH)}", id="follow-up"),
    pytest.param({"rubric": [{"text": "Fine."}, {"text": "Fine too."},
                             {"kind": "strong", "text": text(RUBRIC_ITEM_MAX_LENGTH + 1)}]},
                 "rubric", 3, f"rubric item 3: {too_long(RUBRIC_ITEM_MAX_LENGTH)}",
                 id="rubric-item"),
    pytest.param({"title": "t" * (TITLE_MAX_LENGTH + 1)}, "title", None,
                 f"'title': Ensure this value has at most {TITLE_MAX_LENGTH} characters "
                 f"(it has {TITLE_MAX_LENGTH + 1}).", id="title"),
]  # fmt: skip


def yaml_file(tmp_path: Path, changes: dict[str, Any]) -> tuple[Path, dict[str, int]]:
    """Write a two-question YAML file, the second with `changes`, one key a line; return
    it with the line each key (and list entry: "follow_ups.2") of the second starts on."""
    lines = ["questions:", "- title: Fine", "  prompt: How?", "  outline: Fine. Fine."]
    where: dict[str, int] = {}
    for n, (key, value) in enumerate(question(**changes).items()):
        lead = "- " if n == 0 else "  "
        where[key] = len(lines) + 1
        if isinstance(value, list):
            lines.append(f"{lead}{key}:")
            for i, entry in enumerate(value, start=1):
                where[f"{key}.{i}"] = len(lines) + 1
                lines.append(f"  - {json.dumps(entry)}")
        else:
            lines.append(f"{lead}{key}: {json.dumps(value)}")
    path = tmp_path / "questions.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path, where


@pytest.mark.parametrize(("changes", "part", "item", "message"), STRUCTURED)
def test_yaml_over_a_limit_is_refused_at_its_line(
    db: None, tmp_path: Path, changes: dict[str, Any], part: str, item: int | None, message: str
) -> None:
    path, where = yaml_file(tmp_path, changes)

    line = where[f"{part}.{item}" if item else part]
    assert refused(path) == f"{path}:{line}: {message}"


@pytest.mark.parametrize(("changes", "part", "item", "message"), STRUCTURED)
def test_json_over_a_limit_is_refused_at_its_line(
    db: None, tmp_path: Path, changes: dict[str, Any], part: str, item: int | None, message: str
) -> None:
    path = tmp_path / "questions.json"
    document = json.dumps({"questions": [question(title="Fine"), question(**changes)]}, indent=1)
    path.write_text(document)
    # The line of the key, or of the list's `item`-th entry, in the second question
    # (json.dumps indents a question's keys by 3 spaces, their list entries by 4).
    lines = document.splitlines()
    second = [n for n, row in enumerate(lines, start=1) if row.startswith("  {")][1]
    key = next(n for n in range(second, len(lines) + 1) if lines[n - 1].startswith(f'   "{part}"'))
    entries = [n for n in range(key + 1, len(lines) + 1) if re.match(r"    [^\s}\]]", lines[n - 1])]
    line = entries[item - 1] if item else key

    assert refused(path) == f"{path}:{line}: {message}"


def test_the_seed_document_and_the_starter_bank_import_within_the_limits(db: None) -> None:
    out, _ = run("import_questions", str(SEED), "--role", ROLE)
    assert out.endswith(": 25 questions: 25 created, 0 updated, 0 unchanged (28 follow-ups)\n")
    out, _ = run("import_questions", str(STARTER))
    assert ": 28 questions: 28 created, 0 updated, 0 unchanged" in out
    assert Question.objects.count() == 25 + 28
