"""manage.py export_questions [--role NAME] [--format yaml|json]."""

import json
from pathlib import Path

import pytest
import yaml
from django.core.management.base import CommandError

from kit.models import Question, QuestionVersion
from tests.kit.bank import ROLE, SEED_QUESTIONS, counts, import_seed, run, snapshot
from tests.support.factories import RoleFactory, make_question

QUESTION_KEYS = {
    "role", "title", "prompt", "outline", "follow_ups", "rubric",
    "competencies", "levels", "minutes", "scale_max", "status",
}  # fmt: skip


@pytest.fixture
def starter_like(db: None) -> None:
    """The seed document plus one question with the metadata only the product adds."""
    import_seed("--role", ROLE)
    make_question(
        title="Sizing a KV cache",
        prompt="How much memory does the KV cache of one 4k-token request take?",
        outline=(
            "Multiplies layers, heads, head size and tokens. Doubles it for keys and values. "
            "A strong answer mentions paging. A common miss is forgetting bytes per element."
        ),
        follow_ups=("What changes with grouped-query attention?", "And with an 8-bit cache?"),
        competencies=["inference-serving", "gpu-memory"],
        min_level="L4",
        max_level="L6",
        minutes=20,
        scale_max=5,
        status="draft",
    )


def export(*args: str) -> str:
    out, err = run("export_questions", *args)
    assert err == ""
    return out


def test_it_exports_exactly_the_contract_keys_as_json(starter_like: None) -> None:
    document = json.loads(export("--format", "json"))

    assert list(document) == ["questions"]
    assert len(document["questions"]) == SEED_QUESTIONS + 1
    for question in document["questions"]:
        assert set(question) == QUESTION_KEYS
        assert set(question["levels"]) == {"min", "max"}
        assert len(question["rubric"]) >= 2
        for item in question["rubric"]:
            assert set(item) == {"text", "kind"}
            assert item["kind"] in {"core", "strong", "red_flag"}
    assert document["questions"][-1] == {
        "role": ROLE,
        "title": "Sizing a KV cache",
        "prompt": "How much memory does the KV cache of one 4k-token request take?",
        "outline": (
            "Multiplies layers, heads, head size and tokens. Doubles it for keys and values. "
            "A strong answer mentions paging. A common miss is forgetting bytes per element."
        ),
        "follow_ups": ["What changes with grouped-query attention?", "And with an 8-bit cache?"],
        "rubric": [
            {"text": "Multiplies layers, heads, head size and tokens.", "kind": "core"},
            {"text": "Doubles it for keys and values.", "kind": "core"},
            {"text": "A strong answer mentions paging.", "kind": "strong"},
            {"text": "A common miss is forgetting bytes per element.", "kind": "red_flag"},
        ],
        "competencies": ["gpu-memory", "inference-serving"],
        "levels": {"min": "L4", "max": "L6"},
        "minutes": 20,
        "scale_max": 5,
        "status": "draft",
    }
    first = document["questions"][0]
    assert first["levels"] == {"min": None, "max": None}
    assert first["competencies"] == []
    assert (first["minutes"], first["scale_max"], first["status"]) == (15, 4, "active")


def test_it_exports_the_same_content_as_yaml(starter_like: None) -> None:
    as_json = json.loads(export("--format", "json"))
    as_yaml = yaml.safe_load(export("--format", "yaml"))

    assert as_yaml == as_json


def test_it_exports_json_by_default(starter_like: None) -> None:
    assert export() == export("--format", "json")


def test_it_exports_only_the_named_role(starter_like: None) -> None:
    make_question(role=RoleFactory(name="ML Platform Engineer"), title="Platform question")

    document = json.loads(export("--role", "ml platform engineer"))

    assert [(q["role"], q["title"]) for q in document["questions"]] == [
        ("ML Platform Engineer", "Platform question")
    ]
    ai_infra = json.loads(export("--role", ROLE))["questions"]
    assert len(ai_infra) == SEED_QUESTIONS + 1
    assert {q["role"] for q in ai_infra} == {ROLE}


def test_it_refuses_an_unknown_role(starter_like: None) -> None:
    with pytest.raises(CommandError) as refused:
        run("export_questions", "--role", "Astronaut")

    assert str(refused.value) == "no role named 'Astronaut'"


def test_it_exports_an_empty_bank_as_an_empty_list(db: None) -> None:
    assert json.loads(export()) == {"questions": []}


def delete_all_questions() -> None:
    # A question points at its current version and the version at its question;
    # unhook the current version first so the cascade can run.
    Question.objects.update(current=None)
    Question.objects.all().delete()
    assert not QuestionVersion.objects.exists()


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_it_round_trips_through_import_questions(
    starter_like: None, tmp_path: Path, fmt: str
) -> None:
    first = export("--format", fmt)
    path = Path(tmp_path, f"bank.{fmt}")
    path.write_text(first, encoding="utf-8")
    delete_all_questions()

    out, _ = run("import_questions", str(path))

    assert out == (f"{path}: 26 questions: 26 created, 0 updated, 0 unchanged (30 follow-ups)\n")
    assert export("--format", fmt) == first


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_it_changes_nothing_when_its_own_export_is_imported_back(
    starter_like: None, tmp_path: Path, fmt: str
) -> None:
    path = Path(tmp_path, f"bank.{fmt}")
    path.write_text(export("--format", fmt), encoding="utf-8")
    before = snapshot()

    out, _ = run("import_questions", str(path))

    assert out == f"{path}: 26 questions: 0 created, 0 updated, 26 unchanged (30 follow-ups)\n"
    assert snapshot() == before
    assert counts()["questions"] == 26
