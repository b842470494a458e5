"""import_questions refuses hostile structured files fast, naming file and line, and
writes nothing: alias bombs, self-referencing aliases, deep nesting (#15)."""

import resource
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from kit.importers import MAX_DEPTH
from tests.kit.bank import ROLE, run, snapshot

# "Billion laughs": nine levels of nine aliases, 449 bytes that expand to 9**9 items.
BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 9)}]\n" for n in range(8)
    )
    + "questions: *i\n"
)
DEEP = 10_000
ALIAS = "invalid YAML: aliases (*{}) are not accepted; write the value out"


def refused(path: Path) -> CommandError:
    before = snapshot()
    with pytest.raises(CommandError) as error:
        run("import_questions", str(path), "--role", ROLE)
    assert snapshot() == before
    return error.value


@pytest.mark.django_db
def test_it_refuses_an_alias_bomb_at_its_first_alias(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    error = refused(path)

    assert (
        str(error) == f"{path}:2: invalid YAML: aliases (*a) are not accepted; write the value out"
    )
    # ru_maxrss is in KiB on Linux: the peak grew by less than 100 MB.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 100 * 1024


@pytest.mark.django_db
def test_it_refuses_a_self_referencing_alias(tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text("questions: &q [*q]\n")

    error = refused(path)

    assert (
        str(error) == f"{path}:1: invalid YAML: aliases (*q) are not accepted; write the value out"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", '{"questions": ' + "[" * DEEP + "]" * DEEP + "}"),
        ("deep.yaml", "questions:\n" + "".join(f"{' ' * (n + 1)}- \n" for n in range(200))),
        ("flow.yaml", "questions: " + "[" * DEEP + "]" * DEEP + "\n"),
    ],
)
def test_it_refuses_nesting_deeper_than_a_question_file_needs(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text)

    error = refused(path)

    fmt = "JSON" if name.endswith(".json") else "YAML"
    assert str(error).startswith(f"{path}:")
    assert str(error).endswith(f"invalid {fmt}: nested more than {MAX_DEPTH} levels deep")
