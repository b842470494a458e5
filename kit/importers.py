"""Read question files into plain records, reporting problems as FILE:LINE: message.

Three formats are understood, told apart by their content:

* the plain-text question document: blocks headed "As asked", "Sample answer
  outline" and "Expect these follow-ups" (with "•" bullets), optionally preceded
  by a heading line naming the role;
* the structured format (JSON or YAML) that `export_questions` writes:
  {"questions": [{"role", "title", "prompt", "outline", "follow_ups", "rubric",
  "competencies", "levels", "minutes", "scale_max", "status"}]}.

Nothing here touches the database: `kit.services.questions_import` writes. It also
holds each question to the bank's limits (kit.models: a prompt of at most 5,000
characters, an outline 10,000, a follow-up 1,000, a rubric item 500, a title 120, names
on one line), naming the line of the part that breaks one; the records keep those lines.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

STATUSES = ("draft", "active", "retired")
RUBRIC_KINDS = ("core", "strong", "red_flag")
DEFAULT_MINUTES = 15
DEFAULT_SCALE_MAX = 4


class ImportProblem(Exception):
    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@dataclass
class QuestionRecord:
    line: int
    prompt: str
    outline: str
    role: str | None = None
    title: str | None = None
    follow_ups: list[str] = field(default_factory=list)
    # None means "derive from the outline".
    rubric: list[tuple[str, str]] | None = None
    competencies: list[str] = field(default_factory=list)
    level_min: str | None = None
    level_max: str | None = None
    minutes: int = DEFAULT_MINUTES
    scale_max: int = DEFAULT_SCALE_MAX
    status: str = "active"
    # Where each part starts, so a problem found later (a text over its length limit, a
    # name with a line break) names its own line: "prompt", "title", "role",
    # "follow_ups.N", "rubric.N", "competencies.N" (N counts from 1).
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, part: str, item: int | None = None) -> int:
        """Return the line `part` (its `item`-th entry, if given) starts on, else the record's."""
        key = f"{part}.{item}" if item is not None else part
        return self.lines.get(key, self.lines.get(part, self.line))


@dataclass
class ParsedFile:
    records: list[QuestionRecord]
    # Plain-text records carry prompt, outline and follow-ups only.
    plain: bool = False
    # The role named by the plain-text document's heading, if any.
    heading_role: str | None = None


def decode(path: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ImportProblem(
            path, line, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})"
        ) from None
    return text.removeprefix("\ufeff")


def parse(path: str, data: bytes) -> ParsedFile:
    """Return the records in a question file of any supported format."""
    text = decode(path, data)
    if not text.strip():
        raise ImportProblem(path, 1, "file is empty")
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return ParsedFile(_parse_structured(path, text, "JSON"))
    if re.search(r"^questions\s*:", text, re.MULTILINE) and not _HEADER.search(text):
        return ParsedFile(_parse_structured(path, text, "YAML"))
    return _parse_plain_text(path, text)


# --- plain text -------------------------------------------------------------------

_SECTIONS = {
    "as asked": "prompt",
    "sample answer outline": "outline",
    "expect these follow-ups": "follow_ups",
    "expect these follow ups": "follow_ups",
}
_HEADER = re.compile(r"^\s*as asked\s*:?\s*$", re.IGNORECASE | re.MULTILINE)
_BULLET = re.compile(r"^\s*[•\-*]\s+(.*)$")
_HEADING_SUFFIX = re.compile(
    r"\s*(?:role[- ]specific\s+)?interview\s+questions\s*$|\s*questions\s*$", re.IGNORECASE
)


def _heading_role(lines: list[str]) -> str | None:
    heading = " ".join(line.strip() for line in lines if line.strip())
    if not heading:
        return None
    role = _HEADING_SUFFIX.sub("", heading).strip(" :-")
    return role or None


def _parse_plain_text(path: str, text: str) -> ParsedFile:
    """Return the question blocks of the plain-text document.

    1. Lines before the first "As asked" are the document heading.
    2. A section header switches the section; text lines add to the current one.
    3. In a follow-ups section each "•" bullet starts a follow-up, indented lines continue it.
    4. A block is finished at the next "As asked" or at the end of the file and checked then.
    """
    records: list[QuestionRecord] = []
    preamble: list[str] = []
    block: dict[str, Any] | None = None
    section: str | None = None

    def finish(block: dict[str, Any]) -> None:
        prompt = " ".join(" ".join(block["prompt"]).split())
        outline = "\n\n".join(p for p in (" ".join(par) for par in block["outline"]) if p.strip())
        if not prompt:
            raise ImportProblem(
                path, block["line"], "question has an empty prompt under 'As asked'"
            )
        if "outline_line" not in block:
            raise ImportProblem(
                path, block["line"], "question has no 'Sample answer outline' section"
            )
        if not outline.strip():
            raise ImportProblem(path, block["outline_line"], "'Sample answer outline' is empty")
        lines = {"prompt": block["line"], "outline": block["outline_line"]}
        if "follow_ups_line" in block:
            lines["follow_ups"] = block["follow_ups_line"]
        for n, line in enumerate(block["follow_up_lines"], start=1):
            lines[f"follow_ups.{n}"] = line
        records.append(
            QuestionRecord(
                line=block["line"],
                prompt=prompt,
                outline=" ".join(outline.split()),
                follow_ups=[" ".join(f.split()) for f in block["follow_ups"]],
                lines=lines,
            )
        )

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        key = line.strip().rstrip(":").strip().lower()
        if key in _SECTIONS:
            name = _SECTIONS[key]
            if name == "prompt":
                if block is not None:
                    finish(block)
                block = {
                    "line": number,
                    "prompt": [],
                    "outline": [[]],
                    "follow_ups": [],
                    "follow_up_lines": [],
                }
            elif block is None:
                raise ImportProblem(path, number, f"'{line.strip()}' before any 'As asked' block")
            elif f"{name}_line" in block:
                raise ImportProblem(path, number, f"second '{line.strip()}' in the same question")
            else:
                block[f"{name}_line"] = number
            section = name
            continue
        bullet = _BULLET.match(line)
        if block is None:
            if line.lstrip().startswith("•"):
                raise ImportProblem(
                    path, number, "follow-up bullet outside an 'Expect these follow-ups' block"
                )
            preamble.append(line)
            continue
        if not line.strip():
            if section == "outline":
                block["outline"].append([])
            continue
        if section == "follow_ups":
            if bullet:
                if not bullet.group(1).strip():
                    raise ImportProblem(path, number, "empty follow-up bullet")
                block["follow_ups"].append(bullet.group(1).strip())
                block["follow_up_lines"].append(number)
            elif block["follow_ups"] and raw[:1].isspace():
                block["follow_ups"][-1] += " " + line.strip()
            else:
                raise ImportProblem(
                    path, number, "expected a '•' bullet in 'Expect these follow-ups'"
                )
        elif line.lstrip().startswith("•"):
            raise ImportProblem(
                path, number, "follow-up bullet outside an 'Expect these follow-ups' block"
            )
        elif section == "prompt":
            block["prompt"].append(line.strip())
        else:
            block["outline"][-1].append(line.strip())
    if block is None:
        raise ImportProblem(path, 1, "no question found (expected an 'As asked' block)")
    finish(block)
    return ParsedFile(records, plain=True, heading_role=_heading_role(preamble))


# --- JSON and YAML ----------------------------------------------------------------

_KEYS = {
    "role", "title", "prompt", "outline", "follow_ups", "rubric",
    "competencies", "levels", "minutes", "scale_max", "status",
}  # fmt: skip


class _DuplicateKey(Exception):
    def __init__(self, key: str, line: int) -> None:
        super().__init__(key)
        self.key = key
        self.line = line


# Deeper than any question file needs (the document, its list, a question, its
# rubric, an item): refusing more keeps a hostile file from exhausting the stack.
MAX_DEPTH = 20


class _Refused(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader without aliases, nested at most MAX_DEPTH deep.

    An alias makes a document a graph: a few hundred bytes of nested aliases
    ("billion laughs") expand to gigabytes, and a self-referencing one never ends.
    A question file has no use for them, so the first is refused with its line.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(line, f"aliases (*{event.anchor}) are not accepted; write the value out")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(line, f"nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Located:
    """A loaded value paired with the line it starts on."""

    __slots__ = ("line", "value")

    def __init__(self, value: Any, line: int) -> None:
        self.value = value
        self.line = line


def _located(node: yaml.Node) -> _Located:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, _Located] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in mapping:
                raise _DuplicateKey(key, key_node.start_mark.line + 1)
            mapping[key] = _located(value_node)
        return _Located(mapping, line)
    if isinstance(node, yaml.SequenceNode):
        return _Located([_located(item) for item in node.value], line)
    return _Located(_scalar(node), line)


def _scalar(node: yaml.Node) -> Any:
    # The composer has already resolved each scalar's tag (int, str, null...).
    constructor = yaml.constructor.SafeConstructor()
    return constructor.construct_object(node, deep=True)


def _parse_structured(path: str, text: str, fmt: str) -> list[QuestionRecord]:
    if fmt == "JSON":
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise ImportProblem(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
        except RecursionError:
            pass  # nested too deep: the composer below says where
        # Valid JSON has raw tabs only as whitespace between tokens, which YAML
        # rejects; spaces keep every line number the same.
        text = text.replace("\t", " ")
    try:
        # YAML's composer keeps line numbers for every node (JSON is valid YAML here).
        root = yaml.compose(text, Loader=_StrictLoader)
    except _Refused as exc:
        raise ImportProblem(path, exc.line, f"invalid {fmt}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise ImportProblem(path, line, f"invalid {fmt}: {problem}") from None
    if root is None:
        raise ImportProblem(path, 1, "file is empty")
    try:
        doc = _located(root)
    except _DuplicateKey as exc:
        raise ImportProblem(path, exc.line, f"duplicate key '{exc.key}'") from None
    if not isinstance(doc.value, dict) or "questions" not in doc.value:
        raise ImportProblem(path, doc.line, "expected a mapping with a 'questions' list")
    unknown = sorted(set(doc.value) - {"questions"})
    if unknown:
        raise ImportProblem(path, doc.value[unknown[0]].line, f"unknown key '{unknown[0]}'")
    questions = doc.value["questions"]
    if not isinstance(questions.value, list):
        raise ImportProblem(path, questions.line, "'questions' must be a list")
    if not questions.value:
        raise ImportProblem(path, questions.line, "'questions' is empty")
    return [_record(path, item) for item in questions.value]


def _want(path: str, item: _Located, kind: type | tuple[type, ...], what: str) -> Any:
    # bool is an int in Python; a rating scale of `true` is a mistake, not 1.
    if not isinstance(item.value, kind) or isinstance(item.value, bool):
        got = type(item.value).__name__ if item.value is not None else "null"
        raise ImportProblem(path, item.line, f"{what} must be {_kind_name(kind)}, not {got}")
    return item.value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "a whole number", list: "a list", dict: "a mapping"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _text(path: str, item: _Located, what: str) -> str:
    value = " ".join(_want(path, item, str, what).split())
    if not value:
        raise ImportProblem(path, item.line, f"{what} is empty")
    return value


def _record(path: str, item: _Located) -> QuestionRecord:
    fields = _want(path, item, dict, "a question")
    unknown = sorted(set(fields) - _KEYS)
    if unknown:
        raise ImportProblem(path, fields[unknown[0]].line, f"unknown key '{unknown[0]}'")
    for required in ("prompt", "outline"):
        if required not in fields:
            raise ImportProblem(path, item.line, f"question has no '{required}'")
    record = QuestionRecord(
        line=item.line,
        prompt=_text(path, fields["prompt"], "'prompt'"),
        outline=_text(path, fields["outline"], "'outline'"),
        lines={name: value.line for name, value in fields.items()},
    )
    if "role" in fields:
        record.role = _text(path, fields["role"], "'role'")
    if "title" in fields:
        record.title = _text(path, fields["title"], "'title'")
    if "follow_ups" in fields:
        items = _want(path, fields["follow_ups"], list, "'follow_ups'")
        record.follow_ups = [_text(path, f, "a follow-up") for f in items]
        record.lines.update({f"follow_ups.{n}": f.line for n, f in enumerate(items, start=1)})
    if "rubric" in fields:
        record.rubric = []
        for n, entry in enumerate(_want(path, fields["rubric"], list, "'rubric'"), start=1):
            record.lines[f"rubric.{n}"] = entry.line
            parts = _want(path, entry, dict, "a rubric item")
            extra = sorted(set(parts) - {"text", "kind"})
            if extra:
                raise ImportProblem(path, parts[extra[0]].line, f"unknown key '{extra[0]}'")
            if "text" not in parts:
                raise ImportProblem(path, entry.line, "rubric item has no 'text'")
            kind = _text(path, parts["kind"], "rubric 'kind'") if "kind" in parts else "core"
            if kind not in RUBRIC_KINDS:
                line = parts["kind"].line
                raise ImportProblem(
                    path, line, f"rubric kind '{kind}' is not one of {', '.join(RUBRIC_KINDS)}"
                )
            record.rubric.append((_text(path, parts["text"], "rubric 'text'"), kind))
    if "competencies" in fields:
        items = _want(path, fields["competencies"], list, "'competencies'")
        record.competencies = [_text(path, c, "a competency") for c in items]
        record.lines.update({f"competencies.{n}": c.line for n, c in enumerate(items, start=1)})
    if "levels" in fields:
        levels = _want(path, fields["levels"], dict, "'levels'")
        extra = sorted(set(levels) - {"min", "max"})
        if extra:
            raise ImportProblem(path, levels[extra[0]].line, f"unknown key '{extra[0]}'")
        for end in ("min", "max"):
            if end in levels and levels[end].value is not None:
                value = _text(path, levels[end], f"levels '{end}'")
                setattr(record, f"level_{end}", value)
    for name, low, high in (("minutes", 1, 240), ("scale_max", 2, 10)):
        if name in fields:
            value = _want(path, fields[name], int, f"'{name}'")
            if not low <= value <= high:
                raise ImportProblem(
                    path,
                    fields[name].line,
                    f"'{name}' must be between {low} and {high}, not {value}",
                )
            setattr(record, name, value)
    if "status" in fields:
        status = _text(path, fields["status"], "'status'")
        if status not in STATUSES:
            raise ImportProblem(
                path,
                fields["status"].line,
                f"status '{status}' is not one of {', '.join(STATUSES)}",
            )
        record.status = status
    return record
