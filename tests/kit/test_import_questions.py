"""manage.py import_questions FILE [--role NAME]."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import CommandError

from kit import selectors, services
from kit.models import FollowUp, Question, QuestionVersion, Role, RubricItem
from kit.rubric import derive_rubric
from tests.kit.bank import (
    HEADING_ROLE,
    ROLE,
    SEED,
    SEED_FOLLOW_UPS,
    SEED_QUESTIONS,
    counts,
    import_seed,
    run,
    snapshot,
)
from tests.support.factories import CompetencyFactory, RoleFactory, level

SEED_RESULT = f"{SEED}: 25 questions: 25 created, 0 updated, 0 unchanged (28 follow-ups)\n"
SEED_AGAIN = f"{SEED}: 25 questions: 0 created, 0 updated, 25 unchanged (28 follow-ups)\n"
FSDP_PROMPT = "Walk me through the three sharding strategies in PyTorch FSDP"
OLD_SENTENCE = "NO_SHARD is DDP."
NEW_SENTENCE = "NO_SHARD replicates everything, exactly like DDP."


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def edited_seed(tmp_path: Path) -> Path:
    text = SEED.read_text(encoding="utf-8")
    assert text.count(OLD_SENTENCE) == 1
    return write(tmp_path, "edited.txt", text.replace(OLD_SENTENCE, NEW_SENTENCE))


def fsdp_question() -> Question:
    return Question.objects.get(current__prompt__startswith=FSDP_PROMPT)


def rubric_rows(version: QuestionVersion) -> list[tuple[int, str, str, int]]:
    return list(version.rubric.order_by("order").values_list("pk", "text", "kind", "order"))


# --- the seed document --------------------------------------------------------------


def test_it_imports_the_seed_document(db: None) -> None:
    out, err = run("import_questions", str(SEED), "--role", ROLE)

    assert out == SEED_RESULT
    # Under 1,000 questions there is no progress line.
    assert err == ""
    assert Question.objects.count() == SEED_QUESTIONS
    assert QuestionVersion.objects.count() == SEED_QUESTIONS
    assert FollowUp.objects.count() == SEED_FOLLOW_UPS
    assert list(Role.objects.values_list("name", flat=True)) == [ROLE]
    for question in Question.objects.select_related("current", "role"):
        assert question.role.name == ROLE
        assert question.status == "active"
        assert question.current.number == 1
        assert question.current.in_use is False
        assert question.current.rubric.count() >= 2
        assert question.current.follow_ups.count() >= 1


def test_it_keeps_the_documents_prompt_outline_and_follow_ups(seeded: list[Question]) -> None:
    version = fsdp_question().current

    assert version.prompt == (
        "Walk me through the three sharding strategies in PyTorch FSDP: FULL_SHARD, "
        "SHARD_GRAD_OP, and NO_SHARD. When would you pick each one, and what are the memory "
        "and communication tradeoffs at scale?"
    )
    assert version.outline.startswith("FULL_SHARD shards parameters, gradients, and optimizer")
    assert [f.text for f in version.follow_ups.order_by("order")] == [
        "How does FSDP's auto_wrap_policy interact with transformer layer boundaries, and what "
        "happens if you wrap at the wrong granularity?",
        "How do you profile the all-gather overhead in FSDP and what tools do you use?",
    ]
    assert [(r.text, r.kind) for r in version.rubric.order_by("order")] == [
        (item.text, item.kind) for item in derive_rubric(version.outline)
    ]
    assert (version.minutes, version.scale_max) == (15, 4)


def test_it_changes_nothing_when_importing_the_same_file_again(seeded: list[Question]) -> None:
    before = snapshot()

    out = import_seed("--role", ROLE)

    assert out == SEED_AGAIN
    assert snapshot() == before


def test_it_takes_the_role_from_the_documents_heading(db: None) -> None:
    assert import_seed() == SEED_RESULT

    assert list(Role.objects.values_list("name", flat=True)) == [HEADING_ROLE]
    assert Question.objects.filter(role__name=HEADING_ROLE).count() == SEED_QUESTIONS


def test_it_matches_the_heading_to_an_existing_role_ignoring_case(db: None) -> None:
    role = RoleFactory(name=ROLE)

    assert import_seed() == SEED_RESULT

    assert list(Role.objects.all()) == [role]
    assert Question.objects.filter(role=role).count() == SEED_QUESTIONS


def test_it_finds_the_questions_again_under_the_heading_role(seeded: list[Question]) -> None:
    before = snapshot()

    assert import_seed() == SEED_AGAIN
    assert snapshot() == before


def test_it_keeps_a_leads_edits_on_reimport(seeded: list[Question], lead: User) -> None:
    question = fsdp_question()
    services.question_update(
        question=question,
        meta=services.Meta(
            title="FSDP sharding strategies",
            status="draft",
            competencies=[CompetencyFactory(slug="distributed-training")],
            min_level=level("L5"),
            max_level=level("L7"),
        ),
        by=lead,
    )
    question = fsdp_question()
    content = services.content_of(question.current)
    rubric = (("Says what each of the three strategies shards.", "core"), *content.rubric[1:])
    services.question_update(question=question, content=replace(content, minutes=25, rubric=rubric))
    before = snapshot()

    assert import_seed("--role", ROLE) == SEED_AGAIN

    assert snapshot() == before
    question = fsdp_question()
    assert question.title == "FSDP sharding strategies"
    assert question.status == "draft"
    assert [c.slug for c in question.competencies.all()] == ["distributed-training"]
    assert (question.min_level.name, question.max_level.name) == ("L5", "L7")
    assert question.current.minutes == 25
    assert question.current.rubric.order_by("order")[0].text == (
        "Says what each of the three strategies shards."
    )


def test_it_updates_an_edited_outline_in_place_when_the_version_is_unused(
    seeded: list[Question], tmp_path: Path
) -> None:
    path = edited_seed(tmp_path)
    version = fsdp_question().current

    out, _ = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 25 questions: 0 created, 1 updated, 24 unchanged (28 follow-ups)\n"
    question = fsdp_question()
    assert question.versions.count() == 1
    assert question.current.pk == version.pk
    assert NEW_SENTENCE in question.current.outline
    assert OLD_SENTENCE not in question.current.outline
    assert [(r.text, r.kind) for r in question.current.rubric.order_by("order")] == [
        (item.text, item.kind) for item in derive_rubric(question.current.outline)
    ]
    assert NEW_SENTENCE in [r.text for r in question.current.rubric.all()]
    assert Question.objects.count() == SEED_QUESTIONS


def test_it_makes_version_2_when_the_edited_question_is_in_use(
    seeded: list[Question], tmp_path: Path
) -> None:
    path = edited_seed(tmp_path)
    v1 = fsdp_question().current
    services.question_version_mark_used(version=v1)
    v1_rubric = rubric_rows(v1)
    v1_follow_ups = list(v1.follow_ups.values_list("pk", "text"))

    out, _ = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 25 questions: 0 created, 1 updated, 24 unchanged (28 follow-ups)\n"
    question = fsdp_question()
    assert list(question.versions.values_list("number", flat=True)) == [1, 2]
    assert question.current.number == 2
    assert question.current.in_use is False
    assert NEW_SENTENCE in [r.text for r in question.current.rubric.all()]
    # Version 1 is still readable, with the outline and rubric it was rated against.
    old = selectors.version_detail(question=question, number=1)
    assert old.pk == v1.pk
    assert old.in_use is True
    assert OLD_SENTENCE in old.outline
    assert rubric_rows(old) == v1_rubric
    assert list(old.follow_ups.values_list("pk", "text")) == v1_follow_ups
    assert OLD_SENTENCE in [r.text for r in old.rubric.all()]
    assert QuestionVersion.objects.count() == SEED_QUESTIONS + 1


# --- the structured format ---------------------------------------------------------

STRUCTURED = """\
questions:
- role: ML Platform Engineer
  title: Sizing a KV cache
  prompt: How much memory does the KV cache of one 4k-token request take?
  outline: Multiply layers, heads, head size and tokens. Double it for K and V.
  follow_ups:
  - What changes with grouped-query attention?
  rubric:
  - text: Multiplies layers, heads, head size and tokens.
  - text: Doubles the product for keys and values.
    kind: core
  - text: Mentions paging the cache in blocks.
    kind: strong
  - text: Forgets the bytes per element.
    kind: red_flag
  competencies: [inference-serving, gpu-memory]
  levels: {min: L4, max: l6}
  minutes: 20
  scale_max: 5
  status: draft
- title: Open-ended
  prompt: What would you automate first in a new GPU cluster?
  outline: Names node health checks. Explains why they come before anything else.
"""


def test_it_imports_the_structured_format(db: None, tmp_path: Path) -> None:
    path = write(tmp_path, "bank.yaml", STRUCTURED)

    out, _ = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 2 questions: 2 created, 0 updated, 0 unchanged (1 follow-ups)\n"
    kv = Question.objects.get(title="Sizing a KV cache")
    assert kv.role.name == "ML Platform Engineer"
    assert kv.status == "draft"
    assert [c.slug for c in kv.competencies.all()] == ["gpu-memory", "inference-serving"]
    assert (kv.min_level.name, kv.max_level.name) == ("L4", "L6")
    assert (kv.current.minutes, kv.current.scale_max) == (20, 5)
    assert [(r.text, r.kind) for r in kv.current.rubric.order_by("order")] == [
        ("Multiplies layers, heads, head size and tokens.", "core"),
        ("Doubles the product for keys and values.", "core"),
        ("Mentions paging the cache in blocks.", "strong"),
        ("Forgets the bytes per element.", "red_flag"),
    ]
    open_ended = Question.objects.get(title="Open-ended")
    assert open_ended.role.name == ROLE
    assert (open_ended.min_level, open_ended.max_level) == (None, None)
    assert open_ended.current.rubric.count() == 2


def test_it_changes_nothing_when_importing_the_same_structured_file_again(
    db: None, tmp_path: Path
) -> None:
    path = write(tmp_path, "bank.yaml", STRUCTURED)
    run("import_questions", str(path), "--role", ROLE)
    before = snapshot()

    out, _ = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 2 questions: 0 created, 0 updated, 2 unchanged (1 follow-ups)\n"
    assert snapshot() == before


def test_it_reads_json_indented_with_tabs(db: None, tmp_path: Path) -> None:
    # Valid JSON as many editors write it.
    path = write(
        tmp_path,
        "tabs.json",
        '{\n\t"questions": [\n\t\t{\n\t\t\t"prompt": "How would you shard a 70B model?",\n'
        '\t\t\t"outline": "Shard parameters across ranks. Gather them before each layer."\n'
        "\t\t}\n\t]\n}\n",
    )

    out, _ = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 1 questions: 1 created, 0 updated, 0 unchanged (0 follow-ups)\n"
    assert Question.objects.get().current.prompt == "How would you shard a 70B model?"


@pytest.mark.slow  # a large file
def test_it_reports_progress_on_stderr_for_a_large_file(db: None, tmp_path: Path) -> None:
    lines = ["questions:"]
    for n in range(1000):
        lines += [
            f"- title: Question {n}",
            f"  prompt: What is step {n}?",
            "  outline: Names the step. Explains why it matters.",
        ]
    path = write(tmp_path, "large.yaml", "\n".join(lines) + "\n")

    out, err = run("import_questions", str(path), "--role", ROLE)

    assert out == f"{path}: 1000 questions: 1000 created, 0 updated, 0 unchanged (0 follow-ups)\n"
    assert f"{path}: 500/1000 questions" in err
    assert err.endswith(f"{path}: 1000/1000 questions\n")
    assert Question.objects.count() == 1000
    assert QuestionVersion.objects.count() == 1000
    assert RubricItem.objects.count() == 2000


# --- bad input: the exact message, and nothing written --------------------------------

GOOD_BLOCK = """\
As asked

How would you shard a 70B model?

Sample answer outline

Shard parameters across ranks. Gather them before each layer.

Expect these follow-ups

• What if one rank is slow?
"""

GOOD_YAML = """\
questions:
- title: Sharding
  prompt: How would you shard a 70B model?
  outline: Shard parameters across ranks. Gather them before each layer.
"""

BAD_INPUTS = [
    pytest.param("empty.txt", b"", 1, "file is empty", id="empty-file"),
    pytest.param("blank.txt", b"  \n\t\n   \r\n", 1, "file is empty", id="whitespace-only"),
    pytest.param(
        "no-outline.txt",
        # Lines 1-11: a good block. Line 13: the block without an outline.
        GOOD_BLOCK + "\nAs asked\n\nHow big is a KV cache?\n\n"
        "Expect these follow-ups\n\n• What about paging?\n",
        13,
        "question has no 'Sample answer outline' section",
        id="no-outline",
    ),
    pytest.param(
        "empty-prompt.txt",
        GOOD_BLOCK + "\nAs asked\n\n\nSample answer outline\n\nSizes it. Doubles it.\n",
        13,
        "question has an empty prompt under 'As asked'",
        id="empty-prompt",
    ),
    pytest.param(
        "stray-bullet.txt",
        "As asked\n\nHow would you shard a 70B model?\n\nSample answer outline\n\n"
        "Shard parameters across ranks.\n• Gather them before each layer.\n",
        8,
        "follow-up bullet outside an 'Expect these follow-ups' block",
        id="bullet-in-outline",
    ),
    pytest.param(
        "bullet-before.txt",
        "Platform questions\n• What if one rank is slow?\n\n" + GOOD_BLOCK,
        2,
        "follow-up bullet outside an 'Expect these follow-ups' block",
        id="bullet-before-any-block",
    ),
    pytest.param(
        "latin1.txt",
        GOOD_BLOCK.encode() + b"\nAs asked\n\nWhat does the caf\xe9 cluster run?\n",
        15,
        "not valid UTF-8 (byte 0xe9 at column 18)",
        id="not-utf8",
    ),
    pytest.param(
        "two-outlines.txt",
        "As asked\n\nHow would you shard a 70B model?\n\nSample answer outline\n\n"
        "Shard parameters.\n\nSample answer outline\n\nGather them.\n",
        9,
        "second 'Sample answer outline' in the same question",
        id="second-outline-header",
    ),
    pytest.param(
        "unknown-key.yaml",
        GOOD_YAML + "  difficulty: hard\n",
        5,
        "unknown key 'difficulty'",
        id="yaml-unknown-key",
    ),
    pytest.param(
        "minutes.yaml",
        GOOD_YAML + '  minutes: "ten"\n',
        5,
        "'minutes' must be a whole number, not str",
        id="yaml-minutes-text",
    ),
    pytest.param(
        "scale.yaml",
        GOOD_YAML + "  scale_max: true\n",
        5,
        "'scale_max' must be a whole number, not bool",
        id="yaml-scale-max-bool",
    ),
    pytest.param(
        "follow-ups.yaml",
        GOOD_YAML + "  follow_ups: What if one rank is slow?\n",
        5,
        "'follow_ups' must be a list, not str",
        id="yaml-follow-ups-string",
    ),
    pytest.param(
        "kind.yaml",
        GOOD_YAML + "  rubric:\n  - text: Shards parameters.\n    kind: bonus\n",
        7,
        "rubric kind 'bonus' is not one of core, strong, red_flag",
        id="yaml-unknown-rubric-kind",
    ),
    pytest.param(
        "level.yaml",
        # The first question is good; the second (line 5) names a level that does not exist.
        GOOD_YAML + "- title: KV cache\n  prompt: How big is a KV cache?\n"
        "  outline: Multiply layers and tokens. Double it.\n  levels: {min: L4, max: L9}\n",
        5,
        "unknown level 'L9' (known levels: L3, L4, L5, L6, L7)",
        id="yaml-unknown-level",
    ),
    pytest.param(
        "reversed.yaml",
        GOOD_YAML + "- title: KV cache\n  prompt: How big is a KV cache?\n"
        "  outline: Multiply layers and tokens. Double it.\n  levels: {min: L6, max: L4}\n",
        5,
        "level range is reversed: L6 is above L4",
        id="yaml-levels-reversed",
    ),
    pytest.param(
        "syntax.json",
        '{\n  "questions": [\n    {\n      "prompt": "How would you shard a 70B model?"\n'
        '      "outline": "Shard parameters. Gather them."\n    }\n  ]\n}\n',
        5,
        "invalid JSON: Expecting ',' delimiter",
        id="json-syntax-error",
    ),
    pytest.param(
        "unknown-key.json",
        '{\n  "questions": [\n    {\n      "prompt": "How would you shard a 70B model?",\n'
        '      "outline": "Shard parameters. Gather them.",\n      "weight": 2\n    }\n  ]\n}\n',
        6,
        "unknown key 'weight'",
        id="json-unknown-key",
    ),
]


@pytest.fixture(params=["empty-bank", "seeded-bank"])
def bank(request: pytest.FixtureRequest, db: None) -> None:
    if request.param == "seeded-bank":
        request.getfixturevalue("seeded")


@pytest.mark.parametrize(("name", "content", "line", "message"), BAD_INPUTS)
def test_it_refuses_bad_input_and_writes_nothing(
    bank: None, tmp_path: Path, name: str, content: str | bytes, line: int, message: str
) -> None:
    path = write(tmp_path, name, content)
    before = snapshot()

    with pytest.raises(CommandError) as refused:
        run("import_questions", str(path), "--role", ROLE)

    assert str(refused.value) == f"{path}:{line}: {message}"
    assert refused.value.returncode == 1
    assert snapshot() == before


def test_it_refuses_a_missing_file(bank: None, tmp_path: Path) -> None:
    path = tmp_path / "missing.txt"
    before = snapshot()

    with pytest.raises(CommandError) as refused:
        run("import_questions", str(path), "--role", ROLE)

    assert str(refused.value) == f"{path}: cannot read: No such file or directory"
    assert snapshot() == before


def test_it_refuses_a_plain_text_question_without_a_role(db: None, tmp_path: Path) -> None:
    # No heading line before the first block, and no --role.
    path = write(tmp_path, "no-role.txt", GOOD_BLOCK)

    with pytest.raises(CommandError) as refused:
        run("import_questions", str(path))

    assert str(refused.value) == f"{path}:1: question has no role (add 'role' or use --role)"
    assert counts() == {name: 0 for name in counts()}


def test_it_rolls_back_good_records_before_a_bad_one(
    seeded: list[Question], tmp_path: Path
) -> None:
    existing = fsdp_question()
    # Line 2 updates an existing question, line 5 creates one, line 8 is bad.
    path = write(
        tmp_path,
        "mixed.yaml",
        "questions:\n"
        f"- title: {json.dumps(existing.title)}\n"
        "  prompt: How would you shard a 70B model now?\n"
        "  outline: Shard everything. Gather on demand. Prefetch the next layer.\n"
        "- title: A brand new question\n"
        "  prompt: What is new?\n"
        "  outline: Names something new. Explains why it is new.\n"
        "- title: Another new question\n"
        "  prompt: What else is new?\n"
        "  outline: Names something else. Explains it.\n"
        "  levels: {min: L7, max: L3}\n",
    )
    before = snapshot()

    with pytest.raises(CommandError) as refused:
        run("import_questions", str(path), "--role", ROLE)

    assert str(refused.value) == f"{path}:8: level range is reversed: L7 is above L3"
    assert snapshot() == before


def test_it_exits_non_zero_with_the_message_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "missing.txt"

    done = subprocess.run(
        [sys.executable, "manage.py", "import_questions", str(path)],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"CommandError: {path}: cannot read: No such file or directory\n"
