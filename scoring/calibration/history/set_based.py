"""The set-based import path (PostgreSQL): COPY, then SQL over integer codes."""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from django.db import connection
from django.db.models import Model
from django.utils import timezone

from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import Level, Role
from scoring.calibration import importers
from scoring.calibration.history.shared import (
    IMPORTED,
    HistoryImportResult,
    Progress,
    aware,
    entities_create,
    role_questions,
    scale_of,
)
from scoring.models import QuestionRating, Scorecard


class ExactPathNeeded(Exception):
    """The file is not one the set-based path can vouch for; the exact path takes it."""


# Temporary tables, dropped at the end (ON COMMIT DROP alone would keep them for a
# second import in the same transaction).
_TEMP = (
    "import_raw", "import_candidate", "import_interviewer", "import_question", "import_rating",
    "import_recommendation", "import_decision", "import_moment", "import_norm", "import_card",
    "import_loop", "import_item", "import_candidate_id", "import_user_id", "import_question_id",
)  # fmt: skip


def set_based_import(
    path: str, role: Role, level: Level, scale_max: int, report: Progress
) -> HistoryImportResult:
    """Import with COPY and SQL; raise ExactPathNeeded for a file the exact path must take.

    1. COPY the rows, as text, into a temporary table; one row must be one line.
    2. Read each column's distinct values in Python (the exact path's readers):
       names become integer codes, ratings numbers, dates moments.
    3. One pass joins every row to its codes; aggregates over it check what
       spans rows (scale, one recommendation per scorecard, one decision per
       candidate) and shape the scorecards, loops and questions asked.
    4. Create the missing interviewers, candidates and questions, then
       INSERT … SELECT the loops, interviews, panels, questions asked,
       scorecards and ratings. A repeated rating breaks the one-rating-per-
       question constraint, which sends the file to the exact path.
    """
    columns, start = importers.read_header(path)
    with connection.cursor() as django_cursor:
        cur: psycopg.Cursor[Any] = django_cursor.cursor
        # Room for the temporary tables in memory (temp_buffers counts only if set before
        # this session's first temporary table) and for their hashes and sorts.
        cur.execute("SET LOCAL temp_buffers = '1GB'")
        cur.execute("SET LOCAL work_mem = '256MB'")
        rows = _copy_raw(cur, path, columns, start, report)

        # 2. Distinct values, read in Python.
        seen: dict[str, list[tuple[str, int]]] = {column: [] for column in columns}
        listed = ", ".join(columns)
        sets = ", ".join(f"({column})" for column in columns)
        cur.execute(f"SELECT {listed}, min(n) FROM import_raw GROUP BY GROUPING SETS ({sets})")
        for *values, first in cur:
            # Each result row groups by one column; the others are NULL there.
            n, value = next((n, value) for n, value in enumerate(values) if value is not None)
            seen[columns[n]].append((value, first))
        for values in seen.values():
            values.sort(key=lambda pair: pair[1])

        candidates = _codes(seen["candidate"], importers.candidate_name)
        interviewers = _codes(seen["interviewer"], importers.interviewer_name)
        titles = _codes(seen["question"], importers.question_title)
        keys: dict[str, str] = {}  # casefolded title -> title as first written
        for title in titles.names:
            keys.setdefault(title.casefold(), title)
        key_codes = {key: code for code, key in enumerate(keys)}
        questions = role_questions(role)
        _temp_table(cur, "import_candidate", "raw text, code int", candidates.raw.items())
        _temp_table(cur, "import_interviewer", "raw text, code int", interviewers.raw.items())
        _temp_table(
            cur,
            "import_question",
            "raw text, code int, scale int",
            ((raw, key_codes[name.casefold()], scale_of(questions, name.casefold(), scale_max))
             for raw, name in titles.values.items()),
        )  # fmt: skip
        ratings = ((raw, _rating(text)) for raw, text in _texts(seen["rating"], required=True))
        _temp_table(cur, "import_rating", "raw text, value bigint", ratings)
        optional = {
            "recommendation": ("text", importers.recommendation_value),
            "decision": ("text", importers.decision_value),
            "interviewed_at": ("timestamptz", lambda t: aware(importers.moment_value(t))),
        }
        joins, picks = [], []
        for column, (kind, reader) in optional.items():
            table = "import_moment" if column == "interviewed_at" else f"import_{column}"
            if column in columns:
                read = ((raw, _read(reader, text)) for raw, text in _texts(seen[column]))
                _temp_table(cur, table, f"raw text, value {kind}", read)
                joins.append(f"JOIN {table} ON {table}.raw = r.{column}")
                picks.append(f"{table}.value AS {column}")
            else:
                empty = "NULL::timestamptz" if kind == "timestamptz" else "''::text"
                picks.append(f"{empty} AS {column}")
        report("checked", rows)

        # 3. Codes for every row, then the checks and shapes that span rows.
        cur.execute(
            f"""
            CREATE TEMP TABLE import_norm ON COMMIT DROP AS
            SELECT r.n, c.code AS c, i.code AS i, q.code AS q, v.value AS rating,
                   v.value BETWEEN 1 AND q.scale AS in_scale, {", ".join(picks)}
            FROM import_raw r
            JOIN import_candidate c ON c.raw = r.candidate
            JOIN import_interviewer i ON i.raw = r.interviewer
            JOIN import_question q ON q.raw = r.question
            JOIN import_rating v ON v.raw = r.rating
            {" ".join(joins)}
            """
        )
        cur.execute("DROP TABLE import_raw")
        # Tables made by CREATE TABLE AS have no statistics; the plans below need them.
        cur.execute("ANALYZE import_norm")
        cur.execute(
            f"""
            CREATE TEMP TABLE import_card ON COMMIT DROP AS
            SELECT c, i, min(n) AS first, bool_and(in_scale) AS in_scale,
                   min(nullif(recommendation, '')) AS recommendation,
                   max(nullif(recommendation, '')) AS recommendation_hi,
                   min(nullif(decision, '')) AS decision, max(nullif(decision, '')) AS decision_hi,
                   min(interviewed_at) AS interviewed_at,
                   nextval({_sequence(cur, Scorecard)}) AS scorecard_id
            FROM import_norm GROUP BY c, i
            """
        )
        cur.execute(
            f"""
            CREATE TEMP TABLE import_loop ON COMMIT DROP AS
            SELECT c, first, decision, decision_hi, interviewed_at,
                   nextval({_sequence(cur, Loop)}) AS loop_id,
                   nextval({_sequence(cur, Interview)}) AS interview_id
            FROM (
                SELECT c, min(first) AS first, min(decision) AS decision,
                       max(decision_hi) AS decision_hi, min(interviewed_at) AS interviewed_at
                FROM import_card GROUP BY c ORDER BY first
            ) candidate
            """
        )
        cur.execute(
            """
            SELECT (SELECT bool_and(in_scale) AND NOT bool_or(recommendation <> recommendation_hi)
                    FROM import_card),
                   (SELECT NOT bool_or(decision <> decision_hi) FROM import_loop),
                   (SELECT count(*) FROM import_card)
            """
        )
        cards_ok, loops_ok, scorecards = cur.fetchone()  # type: ignore[misc]
        # bool_or over no disagreement at all is NULL, hence "is not False".
        if cards_ok is False or loops_ok is False:
            raise ExactPathNeeded
        cur.execute(
            f"""
            CREATE TEMP TABLE import_item ON COMMIT DROP AS
            SELECT c, q, row_number() OVER (PARTITION BY c ORDER BY first) AS "order",
                   nextval({_sequence(cur, InterviewQuestion)}) AS item_id
            FROM (SELECT c, q, min(n) AS first FROM import_norm GROUP BY c, q) asked
            """
        )
        cur.execute("ANALYZE import_card, import_loop, import_item")

        # 4. Entities, then everything else set by set.
        made = entities_create(
            role=role, scale_max=scale_max, questions=questions, interviewers=interviewers.names,
            candidates=candidates.names, titles=keys,
        )  # fmt: skip
        _temp_table(cur, "import_candidate_id", "c int, id bigint",
                    enumerate(made.candidates[name] for name in candidates.names))  # fmt: skip
        _temp_table(cur, "import_user_id", "i int, id bigint",
                    enumerate(made.users[name] for name in interviewers.names))  # fmt: skip
        _temp_table(
            cur,
            "import_question_id",
            "q int, id bigint, version_id bigint",
            ((code, made.questions[key].pk, made.questions[key].current_id)
             for key, code in key_codes.items()),
        )  # fmt: skip
        report("entities", 0)
        _insert_rest(cur, role, level)
        report("written", rows)
        cur.execute(f"DROP TABLE IF EXISTS {', '.join(_TEMP)}")
        # Fresh statistics for the planner after a bulk load (PostgreSQL's advice), so
        # the calibration the import queues does not plan against empty tables.
        written = (Candidate, Loop, Interview, InterviewQuestion, Panelist, Scorecard,
                   QuestionRating)  # fmt: skip
        cur.execute(f"ANALYZE {', '.join(model._meta.db_table for model in written)}")
    return HistoryImportResult(
        rows=rows,
        scorecards=scorecards,
        candidates_created=made.candidates_created,
        interviewers_created=made.users_created,
        questions_created=made.questions_created,
    )


def _copy_raw(
    cur: "psycopg.Cursor[Any]", path: str, columns: list[str], start: int, report: Progress
) -> int:
    """COPY the rows after the header into import_raw; return how many there are."""
    listed = ", ".join(columns)
    cur.execute(
        f"CREATE TEMP TABLE import_raw (n bigint GENERATED ALWAYS AS IDENTITY, "
        f"{', '.join(f'{column} text' for column in columns)}) ON COMMIT DROP"
    )
    lines, last = 0, b"\n"
    # FORCE_NOT_NULL: an empty field is '' (as the exact path reads it), not NULL.
    statement = f"COPY import_raw ({listed}) FROM STDIN (FORMAT csv, FORCE_NOT_NULL ({listed}))"
    with Path(path).open("rb") as data, cur.copy(statement) as pipe:
        data.seek(start)
        while block := data.read(1 << 20):
            pipe.write(block)
            lines += block.count(b"\n")
            last = block[-1:]
            report("read", lines)
    lines += last != b"\n"
    rows = cur.rowcount
    if rows == 0 or rows != lines:
        # A quoted line break or blank line: line numbers would not be row numbers.
        raise ExactPathNeeded
    return rows


@dataclass
class _Codes:
    raw: dict[str, int]  # field as written -> code
    values: dict[str, str]  # field as written -> value
    names: list[str]  # values in order of first appearance; the code is the index


def _texts(seen: list[tuple[str, int]], required: bool = False) -> Iterator[tuple[str, str]]:
    for raw, _ in seen:
        text = raw.strip()
        if required and not text:
            raise ExactPathNeeded
        yield raw, text


def _read(reader: Callable[[str], Any], text: str) -> Any:
    try:
        return reader(text)
    except ValueError:
        raise ExactPathNeeded from None


def _codes(seen: list[tuple[str, int]], reader: Callable[[str], str]) -> _Codes:
    """Read each distinct field; give equal values (say, after stripping) one code."""
    codes = _Codes({}, {}, [])
    index: dict[str, int] = {}
    for raw, text in _texts(seen, required=True):
        value = _read(reader, text)
        if value not in index:
            index[value] = len(codes.names)
            codes.names.append(value)
        codes.raw[raw] = index[value]
        codes.values[raw] = value
    return codes


def _rating(text: str) -> int:
    value = _read(importers.rating_value, text)
    if not -(2**63) <= value < 2**63:
        raise ExactPathNeeded
    return value


def _sequence(cur: "psycopg.Cursor[Any]", model: type[Model]) -> int:
    """Return the oid of the id sequence of the model's table, to inline as a constant.

    (pg_get_serial_sequence in the statement itself would run once per row.)
    """
    cur.execute("SELECT pg_get_serial_sequence(%s, 'id')::regclass::oid", [model._meta.db_table])
    return int(cur.fetchone()[0])  # type: ignore[index]


def _temp_table(
    cur: "psycopg.Cursor[Any]", name: str, columns: str, rows: Iterable[tuple[Any, ...]]
) -> None:
    cur.execute(f"CREATE TEMP TABLE {name} ({columns}) ON COMMIT DROP")
    with cur.copy(f"COPY {name} FROM STDIN") as pipe:
        for row in rows:
            pipe.write_row(row)
    cur.execute(f"ANALYZE {name}")


def _insert_rest(cur: "psycopg.Cursor[Any]", role: Role, level: Level) -> None:
    """INSERT … SELECT loops, interviews, panels, questions asked, scorecards and ratings."""
    now = timezone.now()
    decided, debrief = Loop.Status.DECIDED.value, Loop.Status.DEBRIEF.value
    cur.execute(
        f"""
        INSERT INTO {Loop._meta.db_table}
            (id, candidate_id, role_id, level_id, status, warnings, decision,
             decision_rationale, decided_at, created_at)
        SELECT l.loop_id, ci.id, %(role)s, %(level)s,
               CASE WHEN l.decision IS NULL THEN %(debrief)s ELSE %(decided)s END, '[]'::jsonb,
               coalesce(l.decision, ''),
               CASE WHEN l.decision IS NULL THEN '' ELSE %(imported)s END,
               CASE WHEN l.decision IS NULL THEN NULL ELSE coalesce(l.interviewed_at, %(now)s) END,
               %(now)s
        FROM import_loop l JOIN import_candidate_id ci ON ci.c = l.c
        ORDER BY l.loop_id
        """,
        {"role": role.pk, "level": level.pk, "debrief": debrief, "decided": decided,
         "imported": IMPORTED, "now": now},
    )  # fmt: skip
    cur.execute(
        f"""
        INSERT INTO {Interview._meta.db_table}
            (id, loop_id, "order", title, minutes, competencies, scheduled_start, scheduled_end,
             created_at)
        SELECT interview_id, loop_id, 1, 'Imported interview', 60, '[]'::jsonb, interviewed_at,
               interviewed_at + interval '1 hour', %(now)s
        FROM import_loop ORDER BY interview_id
        """,
        {"now": now},
    )
    cur.execute(
        f"""
        INSERT INTO {InterviewQuestion._meta.db_table}
            (id, interview_id, loop_id, question_id, version_id, "order", reason, assigned_at)
        SELECT a.item_id, l.interview_id, l.loop_id, qi.id, qi.version_id, a."order", 'imported',
               %(now)s
        FROM import_item a JOIN import_loop l ON l.c = a.c JOIN import_question_id qi ON qi.q = a.q
        ORDER BY a.item_id
        """,
        {"now": now},
    )
    cur.execute(
        f"""
        INSERT INTO {Panelist._meta.db_table} (interview_id, user_id, is_shadow)
        SELECT l.interview_id, u.id, false
        FROM import_card s JOIN import_loop l ON l.c = s.c JOIN import_user_id u ON u.i = s.i
        ORDER BY s.scorecard_id
        """
    )
    cur.execute(
        f"""
        INSERT INTO {Scorecard._meta.db_table}
            (id, interview_id, interviewer_id, is_shadow, status, recommendation, summary,
             created_at, updated_at, submitted_at)
        SELECT s.scorecard_id, l.interview_id, u.id, false, %(submitted)s,
               coalesce(s.recommendation, ''), '', %(now)s, %(now)s,
               coalesce(l.interviewed_at, %(now)s)
        FROM import_card s JOIN import_loop l ON l.c = s.c JOIN import_user_id u ON u.i = s.i
        ORDER BY s.scorecard_id
        """,
        {"submitted": Scorecard.Status.SUBMITTED.value, "now": now},
    )
    cur.execute(
        f"""
        INSERT INTO {QuestionRating._meta.db_table}
            (scorecard_id, item_id, version_id, rating, not_asked, not_asked_reason, notes)
        SELECT s.scorecard_id, a.item_id, qi.version_id, r.rating, false, '', ''
        FROM import_norm r
        JOIN import_card s ON s.c = r.c AND s.i = r.i
        JOIN import_item a ON a.c = r.c AND a.q = r.q
        JOIN import_question_id qi ON qi.q = r.q
        """
    )
