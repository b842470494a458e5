"""Names are one line: a line break, another control character or a format character
(bidirectional controls, zero-width spaces: #30) is refused wherever a name is written
(#15).

A candidate name with a line break was accepted, and stopped a reminder run part-way
(an e-mail subject cannot hold one). One validator (core.validators.validate_one_line)
sits on every name and title field of the models, so the services' full_clean(), the
ModelForms and the ModelSerializers all apply it; each path answers naming the field
and writes nothing.
"""

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import models
from django.test import Client
from django.urls import reverse

from core.validators import validate_one_line
from interviews import services
from interviews.models import Candidate, Interview
from kit import services as kit_services
from kit.models import Competency, Level, LoopSlot, LoopTemplate, Question, Role
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.kit.bank import run
from tests.kit.bank import snapshot as bank_snapshot
from tests.problems import field_errors
from tests.support.factories import make_question
from tests.support.loops import World


@pytest.fixture
def world(world_per_test: World) -> World:
    """Built for each test: these tests read whole tables (Candidate.objects.get())."""
    return world_per_test


def refusal(what: str, code: int, position: int) -> str:
    return f"Names are one line of text: remove the {what} (U+{code:04X}) at character {position}."


LINE_BREAK = refusal("line break", 0x0A, 6)  # in "Casey\nQuinn"


# --- the validator --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Casey\nQuinn", LINE_BREAK),
        ("Casey\r\nQuinn", refusal("carriage return", 0x0D, 6)),
        ("Casey\rQuinn", refusal("carriage return", 0x0D, 6)),
        ("Casey\tQuinn", refusal("tab", 0x09, 6)),
        ("Casey\x00", refusal("control character", 0x00, 6)),
        ("Ca\x07sey", refusal("control character", 0x07, 3)),
        ("Casey\x1bQuinn", refusal("control character", 0x1B, 6)),
        ("Casey\x7f", refusal("control character", 0x7F, 6)),
        ("Casey\x85Quinn", refusal("control character", 0x85, 6)),  # NEL
        ("Casey\u2028Quinn", refusal("line separator", 0x2028, 6)),
        ("Casey\u2029Quinn", refusal("paragraph separator", 0x2029, 6)),
        # Format characters (#30): bidirectional controls and invisible characters.
        ("Eve\u202egnp.exe\u200b", refusal("bidirectional control character", 0x202E, 4)),
        ("Eve\u200b", refusal("zero-width space", 0x200B, 4)),
        ("\u05d3\u05e0\u05d4 \u200f(Dana)", refusal("bidirectional control character", 0x200F, 5)),
        ("Casey\u2066Quinn\u2069", refusal("bidirectional control character", 0x2066, 6)),
        ("\ufeffCasey", refusal("zero-width no-break space (byte order mark)", 0xFEFF, 1)),
        ("Ca\u00adsey", refusal("soft hyphen", 0xAD, 3)),
        ("Ca\u2060sey", refusal("word joiner", 0x2060, 3)),
        ("Casey\U000e0041", refusal("invisible format character", 0xE0041, 6)),  # a tag
        ("Casey\ud800", refusal("control character", 0xD800, 6)),  # a lone surrogate
    ],
    ids=[
        "lf",
        "crlf",
        "cr",
        "tab",
        "nul",
        "bell",
        "escape",
        "del",
        "nel",
        "ls",
        "ps",
        "rlo-zwsp",
        "zwsp",
        "rlm",
        "isolate",
        "bom",
        "soft-hyphen",
        "word-joiner",
        "tag",
        "surrogate",
    ],
)
def test_it_refuses_line_breaks_and_control_characters(value: str, message: str) -> None:
    with pytest.raises(ValidationError) as refused:
        validate_one_line(value)

    assert refused.value.messages == [message]
    assert refused.value.code == "control_characters"


@pytest.mark.parametrize(
    "value",
    [
        "Casey Quinn",
        "Zoë O'Brien-Núñez",
        "李小龍",
        "\u05d3\u05e0\u05d4 (Dana)",  # right to left needs no mark in a name
        "Anaïs 👩\u200d💻",  # the zero-width joiner of an emoji sequence
        "\u0646\u06cc\u06a9\u200c\u067e\u0648\u0631",  # Persian spells with a non-joiner
        "",
    ],
)
def test_it_accepts_names_of_every_script(value: str) -> None:
    validate_one_line(value)


NAME_FIELDS = [
    (Candidate, "name"), (Interview, "title"), (Role, "name"), (Level, "name"),
    (Level, "title"), (Competency, "name"), (Question, "title"), (LoopTemplate, "name"),
    (LoopSlot, "title"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("model", "name"), NAME_FIELDS, ids=[f"{m.__name__}.{n}" for m, n in NAME_FIELDS]
)
def test_every_name_field_refuses_a_line_break(model: type[models.Model], name: str) -> None:
    # What full_clean(), a ModelForm (the admin's too) and a ModelSerializer check.
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)

    with pytest.raises(ValidationError) as refused:
        field.clean("Casey\nQuinn", None)

    assert refused.value.messages == [LINE_BREAK]


# --- candidates: service, API, page ---------------------------------------------------


@pytest.mark.django_db
def test_the_service_refuses_a_candidate_name_with_a_line_break_and_writes_nothing() -> None:
    with pytest.raises(ValidationError) as refused:
        services.candidate_create(name="Casey\nQuinn")

    assert refused.value.message_dict == {"name": [LINE_BREAK]}
    assert not Candidate.objects.exists()


def test_the_service_refuses_renaming_a_candidate_with_a_line_break(world: World) -> None:
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.candidate_update(candidate=world.candidate, name="Casey\nQuinn")

    assert refused.value.message_dict == {"name": [LINE_BREAK]}
    assert snapshot() == before


def test_a_trailing_line_break_is_trimmed_not_stored(recruiter: User) -> None:
    response = client_for(recruiter).post(
        "/api/v1/candidates/", {"name": "Casey Quinn\r\n"}, format="json"
    )

    assert response.status_code == 201
    assert Candidate.objects.get().name == "Casey Quinn"


@pytest.mark.parametrize("name", ["Casey\nQuinn", "Casey\r\nQuinn", "Casey\u2028Quinn"])
def test_the_api_refuses_a_new_candidate_name_with_a_line_break(recruiter: User, name: str) -> None:
    response = client_for(recruiter).post(
        "/api/v1/candidates/", {"name": name, "email": "casey@example.com"}, format="json"
    )

    errors = field_errors(response)
    assert list(errors) == ["name"]
    assert errors["name"][0].startswith("Names are one line of text: remove the ")
    assert not Candidate.objects.exists()


def test_the_api_refuses_renaming_a_candidate_with_a_line_break(
    recruiter: User, world: World
) -> None:
    before = snapshot()

    response = client_for(recruiter).patch(
        f"/api/v1/candidates/{world.candidate.pk}/", {"name": "Casey\nQuinn"}, format="json"
    )

    assert field_errors(response) == {"name": [LINE_BREAK]}
    assert snapshot() == before


def test_the_candidate_page_shows_the_refusal_by_the_name_and_writes_nothing(
    client: Client, recruiter: User, world: World
) -> None:
    client.force_login(recruiter)
    before = snapshot()

    for url in (
        reverse("interviews:candidate-new"),
        reverse("interviews:candidate-edit", args=[world.candidate.pk]),
    ):
        response = client.post(url, {"name": "Casey\nQuinn", "email": "casey@example.com"})

        assert response.status_code == 200
        html = response.content.decode()
        assert f'<span class="field-error">{LINE_BREAK}</span>' in html
    assert snapshot() == before


# --- the bank's names: roles, competencies, loop templates, question titles ------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/v1/roles/", {"name": "Casey\nQuinn"}),
        ("patch", "/api/v1/roles/{role}/", {"name": "Casey\nQuinn"}),
        ("post", "/api/v1/competencies/", {"slug": "casey", "name": "Casey\nQuinn"}),
    ],
    ids=["new-role", "renamed-role", "new-competency"],
)
def test_the_api_refuses_a_role_or_competency_name_with_a_line_break(
    lead: User, world: World, method: str, path: str, body: dict[str, str]
) -> None:
    before = {**snapshot(), **bank_snapshot()}

    response = getattr(client_for(lead), method)(
        path.format(role=world.role.pk), body, format="json"
    )

    assert field_errors(response) == {"name": [LINE_BREAK]}
    assert {**snapshot(), **bank_snapshot()} == before


def template(**changes: Any) -> dict[str, Any]:
    return {
        "role": "AI Infrastructure Engineer",
        "level": "L6",
        "name": "Serving-heavy L6",
        "slots": [
            {"title": "Serving", "minutes": 60, "competencies": ["serving"]},
            {"title": "Training", "minutes": 45, "competencies": ["training"]},
        ],
        **changes,
    }


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"name": "Casey\nQuinn"}, {"name": [LINE_BREAK]}),
        (
            {"slots": [{"title": "Serving", "minutes": 60},
                       {"title": "Casey\nQuinn", "minutes": 45}]},
            {"slots.1.title": [LINE_BREAK]},
        ),
    ],
    ids=["template-name", "slot-title"],
)  # fmt: skip
@pytest.mark.parametrize("method", ["post", "put"])
def test_the_api_refuses_a_loop_template_name_or_slot_title_with_a_line_break(
    recruiter: User, world: World, method: str, changes: dict[str, Any], errors: dict[str, Any]
) -> None:
    before = snapshot()
    api = client_for(recruiter)

    if method == "post":
        response = api.post("/api/v1/loop-templates/", template(**changes), format="json")
    else:
        url = f"/api/v1/loop-templates/{world.template.pk}/"
        response = api.put(url, template(level="L5", **changes), format="json")

    assert field_errors(response) == errors
    assert snapshot() == before


def test_a_loop_template_saved_by_the_service_refuses_a_line_break(world: World) -> None:
    # Interview titles are copied from these slots when a loop is built.
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        kit_services.loop_template_save(
            role=world.role,
            level=world.level,
            name="Small L5",
            slots=[kit_services.SlotData(title="Casey\nQuinn", minutes=45)],
        )

    assert refused.value.message_dict == {"title": [LINE_BREAK]}
    assert snapshot() == before


@pytest.mark.parametrize("method", ["post", "put"])
def test_the_api_refuses_a_question_title_with_a_line_break(lead: User, method: str) -> None:
    question = make_question(title="Sizing a KV cache")
    url = "/api/v1/questions/" + (f"{question.pk}/" if method == "put" else "")
    body = {
        "role": question.role.name,
        "title": "Sizing a\nKV cache",
        "prompt": "How big is a KV cache?",
        "outline": "Multiplies layers by tokens. Doubles it.",
    }
    before = bank_snapshot()

    response = getattr(client_for(lead), method)(url, body, format="json")

    assert field_errors(response) == {"title": [refusal("line break", 10, 9)]}
    assert bank_snapshot() == before


@pytest.mark.parametrize("editing", [True, False], ids=["edit", "new"])
def test_the_question_editor_refuses_a_title_with_a_control_character(
    client: Client, lead: User, editing: bool
) -> None:
    question = make_question(title="Sizing a KV cache")
    url = f"/bank/questions/{question.pk}/edit/" if editing else "/bank/questions/new/"
    client.force_login(lead)
    before = bank_snapshot()

    response = client.post(
        url,
        {
            "role": question.role_id,
            "title": "Sizing a\x07KV cache",
            "prompt": "How big is a KV cache?",
            "outline": "Multiplies layers by tokens. Doubles it.",
            "minutes": "15",
            "scale_max": "4",
        },
    )

    assert response.status_code == 200
    message = refusal("control character", 7, 9)
    assert f'<span class="error-text">{message}</span>' in response.content.decode()
    assert bank_snapshot() == before


# --- import_questions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "line", "message"),
    [
        # YAML's "\a" escape is the bell character; whitespace (line breaks included)
        # inside a value is folded to spaces on import, so those never get this far.
        ('questions:\n- title: "Sizing a\\aKV cache"\n  prompt: How big?\n'
         "  outline: Multiplies layers. Doubles it.\n",
         2, f"'title': {refusal('control character', 7, 9)}"),
        ('questions:\n- role: "Serving\\aTeam"\n  prompt: How big?\n'
         "  outline: Multiplies layers. Doubles it.\n",
         2, f"role: {refusal('control character', 7, 8)}"),
        ("questions:\n- prompt: How big?\n  outline: Multiplies layers. Doubles it.\n"
         '  competencies:\n  - serving\n  - "kv\\acache"\n',
         6, f"competency: {refusal('control character', 7, 3)}"),
        ('{"questions": [\n {"prompt": "How big?",\n  "title": "Sizing a\\u0007KV cache",\n'
         '  "outline": "Multiplies layers. Doubles it."}]}\n',
         3, f"'title': {refusal('control character', 7, 9)}"),
    ],
    ids=["yaml-title", "yaml-role", "yaml-competency", "json-title"],
)  # fmt: skip
def test_import_refuses_a_name_with_a_control_character_at_its_line(
    db: None, tmp_path: Path, document: str, line: int, message: str
) -> None:
    path = tmp_path / ("questions.json" if document.startswith("{") else "questions.yaml")
    path.write_text(document)
    before = bank_snapshot()

    with pytest.raises(CommandError) as refused:
        kit_import(path)

    assert str(refused.value) == f"{path}:{line}: {message}"
    assert bank_snapshot() == before


def test_import_refuses_a_plain_text_title_made_from_a_prompt_with_a_control_character(
    db: None, tmp_path: Path
) -> None:
    path = tmp_path / "questions.txt"
    path.write_text(
        "As asked\n\nHow big\x07 is it?\n\nSample answer outline\n\nDoubles it. Twice.\n"
    )
    before = bank_snapshot()

    with pytest.raises(CommandError) as refused:
        kit_import(path)

    message = refusal("control character", 7, 8)
    assert str(refused.value) == f"{path}:1: the title made from 'As asked': {message}"
    assert bank_snapshot() == before


def kit_import(path: Path) -> None:
    run("import_questions", str(path), "--role", "AI Infrastructure Engineer")


def test_the_schema_tells_clients_names_are_one_line(db: None) -> None:
    # As a pattern, so generated clients and the API fuzz know the rule too.
    response = Client().get("/api/schema/", {"format": "json"})
    schemas = response.json()["components"]["schemas"]
    pattern = schemas["Candidate"]["properties"]["name"]["pattern"]

    assert pattern.startswith("^[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad") and pattern.endswith(
        "]*$"
    )
    assert "\\U" not in pattern  # no astral escape, which ECMAScript would misread
    assert schemas["LoopTemplate"]["properties"]["name"]["pattern"] == pattern
    for name in ("Ada Lovelace-Byron", "Anaïs 👩\u200d💻", "\u05d3\u05e0\u05d4 (Dana)"):
        assert re.fullmatch(pattern, name)
    for name in ("Ada\nByron", "Eve\u202egnp.exe", "Eve\u200b", "\ufeffAda", "Ada\u2066"):
        assert not re.fullmatch(pattern, name)
