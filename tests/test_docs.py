"""The README and docs/ say only what runs: their shell blocks, links and paths.

Every ```sh, ```bash and ```console block of README.md and docs/*.md is read:

* a block whose first line is ``# offline`` runs as written, in bash from the repository
  root, against a throwaway SQLite database and no broker (``python`` is this
  interpreter); it must exit 0;
* in every other block each command is checked, not run: ``manage.py X`` names a
  management command, ``make X`` a Makefile target, ``python -m X`` an importable module,
  and every repository path it names exists (``node_modules`` excepted: ``npm ci`` makes
  it). In a console block only the lines after ``$ `` are commands.

Every relative link must reach a file (and a heading, when it names one), and every
repository path written in backquotes in the prose must exist. The README stays a
newcomer's page: at most 200 lines.
"""

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELLS = {"sh", "bash", "console"}
OFFLINE = "# offline"
TOP = r"(?:config|core|kit|interviews|scoring|tests|bench|tools|docs|templates|static|\.ci)"
REPO_PATH = re.compile(rf"^(?:\./)?{TOP}/[\w./-]*$")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def offline(self) -> bool:
        return self.text.lstrip().startswith(OFFLINE)


def blocks(path: Path) -> list[Block]:
    """Return the fenced blocks of a Markdown file, dedented, with their opening line."""
    found: list[Block] = []
    lines = path.read_text().splitlines()
    start: int | None = None
    language = ""
    body: list[str] = []
    for number, line in enumerate(lines, 1):
        fence = FENCE.match(line)
        if start is None and fence:
            start, language, body = number, fence.group(2), []
        elif start is not None and fence and not fence.group(2):
            found.append(Block(path, start, language, textwrap.dedent("\n".join(body))))
            start = None
        elif start is not None:
            body.append(line)
    return found


def prose(path: Path) -> str:
    """Return the file's text outside its fenced blocks."""
    kept: list[str] = []
    inside = False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            inside = not inside
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


SHELL_BLOCKS = [block for path in DOCS for block in blocks(path) if block.language in SHELLS]


def commands(block: Block) -> list[list[str]]:
    """Return each command of a block as its words: continuations joined, comments and
    leading VAR=value assignments dropped, `export`s and a console's output left out."""
    lines = block.text.splitlines()
    if block.language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined = "\n".join(lines).replace("\\\n", " ")
    found: list[list[str]] = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            words.pop(0)
        if words and words[0] not in {"export", "&"}:
            found.append([word for word in words if word != "&"])
    return found


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([\w.-]+):", text, flags=re.MULTILINE))


def problems_in(words: list[str]) -> list[str]:
    """Return what is wrong with one command of a block that is checked, not run."""
    wrong: list[str] = []
    if "manage.py" in words[:3]:
        at = words.index("manage.py")
        name = words[at + 1] if at + 1 < len(words) else ""
        if name not in get_commands():
            wrong.append(f"manage.py {name!r} is no management command")
    targets = makefile_targets()
    if words[0] == "make":
        for target in words[1:]:
            if not target.startswith("-") and "=" not in target and target not in targets:
                wrong.append(f"make {target!r} is no Makefile target")
    if Path(words[0]).name.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
        module = words[2]
        if importlib.util.find_spec(module) is None:
            wrong.append(f"python -m {module}: no such module")
    for word in words:
        if REPO_PATH.match(word) and "node_modules" not in word and not (ROOT / word).exists():
            wrong.append(f"{word}: no such file in the repository")
    return wrong


def offline_environment(tmp_path: Path) -> dict[str, str]:
    """This environment, on a throwaway SQLite database, no broker, no cache server."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"CELERY_BROKER_URL", "CACHE_URL", "EMAIL_URL", "EMAIL_HOST"}
    }
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.parametrize("block", [b for b in SHELL_BLOCKS if b.offline], ids=lambda b: b.name)
def test_it_runs_every_offline_block_as_written(block: Block, tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.text],
        cwd=ROOT,
        env=offline_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{block.name} failed:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("block", [b for b in SHELL_BLOCKS if not b.offline], ids=lambda b: b.name)
def test_it_names_only_commands_targets_and_files_that_exist(block: Block) -> None:
    wrong = [problem for words in commands(block) for problem in problems_in(words)]
    assert wrong == [], f"{block.name}: {wrong}"


def test_it_runs_some_blocks_and_checks_the_rest() -> None:
    assert any(block.offline for block in SHELL_BLOCKS)
    assert any(not block.offline for block in SHELL_BLOCKS)


def slug(heading: str) -> str:
    """Return the anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(m) for m in re.findall(r"^#+ (.+)$", prose(path), flags=re.MULTILINE)}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_it_links_only_to_files_and_headings_that_exist(path: Path) -> None:
    wrong: list[str] = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(path)):
        if re.match(r"^[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(linked):
            wrong.append(f"{target}: no such heading")
    assert wrong == [], f"{path.relative_to(ROOT)}: {wrong}"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_it_names_only_repository_paths_that_exist(path: Path) -> None:
    named = {word for word in re.findall(r"`([^`\s]+)`", prose(path)) if REPO_PATH.match(word)}
    missing = sorted(word for word in named if not (ROOT / word).exists())
    assert missing == [], f"{path.relative_to(ROOT)} names missing paths: {missing}"


def test_it_keeps_the_readme_a_page_a_newcomer_reads_in_five_minutes() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move the manual to docs/"


def test_it_checks_what_the_offline_convention_and_the_checks_catch(tmp_path: Path) -> None:
    """The checks would fail a wrong command, target, module, path or link."""
    doc = tmp_path / "doc.md"
    doc.write_text(
        "```sh\npython manage.py no_such_command\nmake no-such-target\n"
        "python -m no_such_module\npython bench/no_such_bench.py\n```\n"
        "```console\n$ make run\nmake output-not-a-command\n```\n"
    )
    checked, console = blocks(doc)
    assert [problem for words in commands(checked) for problem in problems_in(words)] == [
        "manage.py 'no_such_command' is no management command",
        "make 'no-such-target' is no Makefile target",
        "python -m no_such_module: no such module",
        "bench/no_such_bench.py: no such file in the repository",
    ]
    assert commands(console) == [["make", "run"]]
    assert not checked.offline
