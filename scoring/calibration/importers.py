"""Read historical ratings from CSV, checking every row before anything is written.

Columns: candidate, interviewer, question, rating; optional recommendation,
decision, interviewed_at. One row is one rating; the rows of one candidate
and one interviewer form one submitted scorecard. The file is read as a
stream (twice: once to check and collect what must exist, once to write the
ratings), so memory grows with the number of distinct candidates,
interviewers, questions and scorecards, not with the number of rows.
"""

import csv
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_date, parse_datetime

from core.validators import validate_one_line

REQUIRED = ("candidate", "interviewer", "question", "rating")
OPTIONAL = ("recommendation", "decision", "interviewed_at")
RECOMMENDATIONS = {"strong_no", "no", "yes", "strong_yes"}
DECISIONS = {"hire", "no_hire"}
USERNAME = re.compile(r"^[\w.@+-]{1,150}$")
MAX_ERRORS = 20
# Longer names are cut to the columns' lengths (Candidate.name, Question.title).
CANDIDATE_LENGTH = 200
QUESTION_LENGTH = 120


class ImportFailed(Exception):
    """The file has problems; `problems` lists them as FILE:LINE: message."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Row:
    line: int
    candidate: str
    interviewer: str
    question: str
    rating: int
    recommendation: str = ""
    decision: str = ""
    interviewed_at: datetime | None = None


@dataclass
class Survey:
    """What the first pass learned: the distinct entities and the scorecards to create."""

    rows: int = 0
    candidates: dict[str, int] = field(default_factory=dict)  # name -> first line
    interviewers: dict[str, int] = field(default_factory=dict)
    # Questions are told apart ignoring case: key (casefolded) -> title as first written.
    questions: dict[str, str] = field(default_factory=dict)
    # (candidate, interviewer) -> recommendation
    scorecards: dict[tuple[str, str], str] = field(default_factory=dict)
    # candidate -> ordered distinct question keys
    candidate_questions: dict[str, dict[str, None]] = field(default_factory=dict)
    decisions: dict[str, str] = field(default_factory=dict)
    interviewed_at: dict[str, datetime] = field(default_factory=dict)


def _decoded(raw: Iterator[bytes], path: str) -> Iterator[str]:
    # Decode line by line (not in buffered chunks) so bad bytes are reported
    # on the physical line they are on.
    for number, line in enumerate(raw, start=1):
        try:
            yield line.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            byte = f"byte 0x{line[exc.start]:02x} at column {exc.start + 1}"
            raise ImportFailed([f"{path}:{number}: not valid UTF-8 ({byte})"]) from None


def _open(path: str) -> Generator[tuple[int, list[str]], None, None]:
    """Yield (line number, fields) from the CSV file, decoding it as UTF-8."""
    with Path(path).open("rb") as raw:
        reader = csv.reader(_decoded(raw, path))
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise ImportFailed([f"{path}:{reader.line_num}: {exc}"]) from None
            yield reader.line_num, fields


def read_header(path: str) -> tuple[list[str], int]:
    """Return the header's column names and the byte offset where the rows start."""
    with Path(path).open("rb") as raw:
        first = raw.readline()
    lines = _open(path)
    try:
        _, header = next(lines)
    except StopIteration:
        raise ImportFailed([f"{path}:1: file is empty (expected a header row)"]) from None
    finally:
        lines.close()
    columns = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ImportFailed([f"{path}:1: header lacks column(s) {', '.join(missing)}"])
    unknown = [c for c in columns if c not in REQUIRED + OPTIONAL]
    if unknown:
        raise ImportFailed([f"{path}:1: unknown column '{unknown[0]}'"])
    if len(set(columns)) != len(columns):
        repeated = next(c for c in columns if columns.count(c) > 1)
        raise ImportFailed([f"{path}:1: column '{repeated}' appears twice"])
    return columns, len(first)


def read_rows(
    path: str, *, scale_max_for: Callable[[str], int], problems: list[str] | None = None
) -> Iterator[Row]:
    """Yield the file's rows checked one by one; collect problems instead of stopping if asked."""
    columns, _ = read_header(path)
    index = {name: n for n, name in enumerate(columns)}
    lines = _open(path)
    next(lines)
    for line, fields in lines:
        if not any(f.strip() for f in fields):
            continue
        try:
            yield _row(path, line, fields, index, scale_max_for)
        except ValueError as exc:
            if problems is None:
                raise ImportFailed([str(exc)]) from None
            problems.append(str(exc))
            if len(problems) >= MAX_ERRORS:
                stop = f"{path}: stopped after {MAX_ERRORS} problems"
                raise ImportFailed([*problems, stop]) from None


# One reader per column: the text of a field (already stripped) to its value, or
# ValueError saying what is wrong. Both import paths go through these.


def _one_line(column: str, text: str) -> str:
    try:
        validate_one_line(text)
    except ValidationError as exc:
        raise ValueError(f"{column}: {exc.messages[0]}") from None
    return text


def candidate_name(text: str) -> str:
    return _one_line("candidate", text)[:CANDIDATE_LENGTH]


def question_title(text: str) -> str:
    return _one_line("question", text)[:QUESTION_LENGTH]


def interviewer_name(text: str) -> str:
    if not USERNAME.match(text):
        raise ValueError(
            f"interviewer '{text}' is not a valid username (letters, digits and @.+-_ only)"
        )
    return text


def rating_value(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"rating '{text}' is not a whole number") from None


def recommendation_value(text: str) -> str:
    value = text.lower()
    if value and value not in RECOMMENDATIONS:
        raise ValueError(
            f"recommendation '{value}' is not one of {', '.join(sorted(RECOMMENDATIONS))}"
        )
    return value


def decision_value(text: str) -> str:
    value = text.lower()
    if value and value not in DECISIONS:
        raise ValueError(f"decision '{value}' is not hire or no_hire")
    return value


def moment_value(text: str) -> datetime | None:
    if not text:
        return None
    try:
        when = parse_datetime(text)
        if when is None and (day := parse_date(text)) is not None:
            when = datetime(day.year, day.month, day.day)
    except ValueError:  # well formed but impossible, such as 2024-02-30
        when = None
    if when is None:
        raise ValueError(f"interviewed_at '{text}' is not a date (YYYY-MM-DD[ HH:MM])")
    return when


def _row(
    path: str,
    line: int,
    fields: list[str],
    index: dict[str, int],
    scale_max_for: Callable[[str], int],
) -> Row:
    if len(fields) != len(index):
        raise ValueError(f"{path}:{line}: expected {len(index)} fields, found {len(fields)}")

    def get(name: str) -> str:
        return fields[index[name]].strip() if name in index else ""

    for name in REQUIRED:
        if not get(name):
            raise ValueError(f"{path}:{line}: '{name}' is empty")
    try:
        candidate = candidate_name(get("candidate"))
        interviewer = interviewer_name(get("interviewer"))
        question = question_title(get("question"))
        scale = scale_max_for(question)
        rating = rating_value(get("rating"))
        if not 1 <= rating <= scale:
            raise ValueError(f"rating {rating} is outside the scale 1–{scale}")
        recommendation = recommendation_value(get("recommendation"))
        decision = decision_value(get("decision"))
        when = moment_value(get("interviewed_at"))
    except ValueError as exc:
        raise ValueError(f"{path}:{line}: {exc}") from None
    return Row(
        line=line,
        candidate=candidate,
        interviewer=interviewer,
        question=question,
        rating=rating,
        recommendation=recommendation,
        decision=decision,
        interviewed_at=when,
    )


def survey(
    path: str,
    *,
    scale_max_for: Callable[[str], int],
    progress: Callable[[int], None] | None = None,
) -> Survey:
    """First pass: check every row and collect what must exist. Raises ImportFailed."""
    problems: list[str] = []
    found = Survey()
    seen: set[tuple[int, int, int]] = set()
    ids: dict[str, int] = {}

    def code(value: str) -> int:
        return ids.setdefault(value, len(ids))

    for row in read_rows(path, scale_max_for=scale_max_for, problems=problems):
        found.rows += 1
        if progress and found.rows % 50_000 == 0:
            progress(found.rows)
        key = (row.candidate, row.interviewer)
        question = row.question.casefold()
        # Interned integer codes keep the duplicate check small.
        triple = (code(row.candidate), code("\0" + row.interviewer), code("\1" + question))
        if triple in seen:
            problems.append(
                f"{path}:{row.line}: {row.interviewer} already rated '{row.question}' "
                f"for {row.candidate}"
            )
            if len(problems) >= MAX_ERRORS:
                break
            continue
        seen.add(triple)
        found.candidates.setdefault(row.candidate, row.line)
        found.interviewers.setdefault(row.interviewer, row.line)
        found.questions.setdefault(question, row.question)
        found.candidate_questions.setdefault(row.candidate, {})[question] = None
        previous = found.scorecards.setdefault(key, row.recommendation)
        if row.recommendation and previous and previous != row.recommendation:
            problems.append(
                f"{path}:{row.line}: recommendation '{row.recommendation}' differs from "
                f"'{previous}' given earlier for {row.interviewer} on {row.candidate}"
            )
        elif row.recommendation:
            found.scorecards[key] = row.recommendation
        if row.decision:
            earlier = found.decisions.setdefault(row.candidate, row.decision)
            if earlier != row.decision:
                problems.append(
                    f"{path}:{row.line}: decision '{row.decision}' differs from '{earlier}' "
                    f"given earlier for {row.candidate}"
                )
        if row.interviewed_at:
            current = found.interviewed_at.get(row.candidate)
            if current is None or row.interviewed_at < current:
                found.interviewed_at[row.candidate] = row.interviewed_at
        if len(problems) >= MAX_ERRORS:
            break
    if len(problems) >= MAX_ERRORS:
        raise ImportFailed([*problems, f"{path}: stopped after {MAX_ERRORS} problems"])
    if problems:
        raise ImportFailed(problems)
    if not found.rows:
        raise ImportFailed([f"{path}:2: no rows after the header"])
    return found
