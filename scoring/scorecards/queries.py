"""The scorecard endpoints' hot path, in plain SQL.

Every autosave, submit and debrief runs a handful of fixed-shape statements.
Through the ORM each costs about 1 ms of CPU, nearly all of it spent building and
compiling the query; the same statement on a cursor costs about 0.1 ms (bench/load.py
measures what that is worth). Each statement here names its tables and columns
from the models' ``_meta``, reads the same on SQLite and PostgreSQL, and has a test
comparing its result with the ORM query it replaces (tests/scoring/scorecards/
test_queries_writes.py, test_queries_reads.py, test_queries_locks.py). The seat and
blind rule's SQL comes from scoring.visibility.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model

from core import sql
from core.sql import Names
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, Level, Question, QuestionVersion, Role, RubricItem
from scoring import visibility
from scoring.models import Amendment, QuestionRating, Scorecard

Row = tuple[Any, ...]

AMENDMENT = Names(Amendment)
ASKED = Names(InterviewQuestion)
CANDIDATE = Names(Candidate)
CARD = Names(Scorecard)
CHECKED = Names(QuestionRating.checked.through)
FOLLOW_UP = Names(FollowUp)
FOLLOW_UPS_ASKED = Names(QuestionRating.follow_ups_asked.through)
INTERVIEW = Names(Interview)
LEVEL = Names(Level)
LOOP = Names(Loop)
QUESTION = Names(Question)
RATING = Names(QuestionRating)
ROLE = Names(Role)
RUBRIC = Names(RubricItem)
SEAT = Names(Panelist)
USER = Names(get_user_model())
VERSION = Names(QuestionVersion)


# --- writing a card ------------------------------------------------------------------------


def seat_with_card(*, interview_id: int, user_id: int) -> Row | None:
    """Return the user's seat on the interview as (is_shadow, loop id, loop status, then
    every column of their card there, all None before they start one); None if they
    hold no seat (a user holds at most one seat an interview)."""
    return sql.row(
        f"""
        SELECT p.{SEAT.is_shadow}, l.{LOOP.id}, l.{LOOP.status}, {sql.columns(Scorecard, "s")}
          FROM {SEAT.table} p
          JOIN {INTERVIEW.table} i ON i.{INTERVIEW.id} = p.{SEAT.interview}
          JOIN {LOOP.table} l ON l.{LOOP.id} = i.{INTERVIEW.loop}
          LEFT JOIN {CARD.table} s
                 ON s.{CARD.interview} = p.{SEAT.interview} AND s.{CARD.interviewer} = p.{SEAT.user}
         WHERE p.{SEAT.interview} = %s AND p.{SEAT.user} = %s
         ORDER BY p.{SEAT.is_shadow}, p.{SEAT.id}
        """,
        [interview_id, user_id],
    ) if sql.in_range(interview_id) else None  # fmt: skip


def draft_insert(*, interview_id: int, user_id: int, is_shadow: bool, now: datetime) -> int | None:
    """Create an empty draft card; return its id, or None if the user already has one
    there (ON CONFLICT DO NOTHING: a card started at the same moment by another
    request wins, without a savepoint). RETURNING needs SQLite 3.35 or newer."""
    created = sql.row(
        f"INSERT INTO {CARD.table} ({CARD.interview}, {CARD.interviewer}, {CARD.is_shadow},"
        f" {CARD.status}, {CARD.recommendation}, {CARD.summary}, {CARD.created_at},"
        f" {CARD.updated_at}) VALUES (%s, %s, %s, %s, '', '', %s, %s)"
        f" ON CONFLICT ({CARD.interview}, {CARD.interviewer}) DO NOTHING RETURNING {CARD.id}",
        [interview_id, user_id, is_shadow, Scorecard.Status.DRAFT, sql.moment(now),
         sql.moment(now)],
    )  # fmt: skip
    return None if created is None else int(created[0])


def interview_items(interview_id: int) -> list[Row]:
    """Return the interview's questions, and the rubric items and follow-ups of their
    pinned versions, as (kind, id, version id, scale or None, title or None, question
    id or None), kind being "question", "rubric" or "follow_up"."""
    pinned = f"SELECT {ASKED.version} FROM {ASKED.table} WHERE {ASKED.interview} = %s"
    return sql.rows(
        f"""
        SELECT 'question', iq.{ASKED.id}, iq.{ASKED.version}, v.{VERSION.scale_max},
               q.{QUESTION.title}, iq.{ASKED.question}
          FROM {ASKED.table} iq
          JOIN {QUESTION.table} q ON q.{QUESTION.id} = iq.{ASKED.question}
          JOIN {VERSION.table} v ON v.{VERSION.id} = iq.{ASKED.version}
         WHERE iq.{ASKED.interview} = %s
        UNION ALL
        SELECT 'rubric', r.{RUBRIC.id}, r.{RUBRIC.version}, NULL, NULL, NULL
          FROM {RUBRIC.table} r WHERE r.{RUBRIC.version} IN ({pinned})
        UNION ALL
        SELECT 'follow_up', f.{FOLLOW_UP.id}, f.{FOLLOW_UP.version}, NULL, NULL, NULL
          FROM {FOLLOW_UP.table} f WHERE f.{FOLLOW_UP.version} IN ({pinned})
        """,
        [interview_id] * 3,
    )


def ratings_delete(scorecard_id: int) -> None:
    """Delete the card's ratings and their ticks (one SELECT when it has none)."""
    mine = f"SELECT {RATING.id} FROM {RATING.table} WHERE {RATING.scorecard} = %s"
    if not sql.row(mine, [scorecard_id]):
        return
    for links in (CHECKED, FOLLOW_UPS_ASKED):
        sql.execute(
            f"DELETE FROM {links.table} WHERE {links.questionrating} IN ({mine})", [scorecard_id]
        )
    sql.execute(f"DELETE FROM {RATING.table} WHERE {RATING.scorecard} = %s", [scorecard_id])


def ratings_insert(values: Sequence[Sequence[Any]]) -> dict[int, int]:
    """Insert ratings, (scorecard, item, version, rating, not_asked, not_asked_reason,
    notes) each, in one statement; return each rating's id by its item."""
    written = sql.rows(
        f"INSERT INTO {RATING.table} ({RATING.scorecard}, {RATING.item}, {RATING.version},"
        f" {RATING.rating}, {RATING.not_asked}, {RATING.not_asked_reason}, {RATING.notes})"
        f" VALUES {sql.tuples(values)} RETURNING {RATING.item}, {RATING.id}",
        [value for row in values for value in row],
    )
    return {item: pk for item, pk in written}


def ticks_insert(
    *, checked: Sequence[tuple[int, int]], follow_ups_asked: Sequence[tuple[int, int]]
) -> None:
    """Insert (rating, rubric item) and (rating, follow-up) links, one statement each."""
    for links, column, rows in (
        (CHECKED, CHECKED.rubricitem, checked),
        (FOLLOW_UPS_ASKED, FOLLOW_UPS_ASKED.followup, follow_ups_asked),
    ):
        if rows:
            sql.execute(
                f"INSERT INTO {links.table} ({links.questionrating}, {column})"
                f" VALUES {sql.tuples(rows)}",
                [value for row in rows for value in row],
            )


def card_locked(*, scorecard_id: int, user_id: int) -> Row | None:
    """Return the user's card under a row lock (of the card only) as (loop id, loop
    status, role id, the interview's scheduled start, then every column of the card);
    None if it is not theirs."""
    return sql.row(
        f"""
        SELECT l.{LOOP.id}, l.{LOOP.status}, l.{LOOP.role}, i.{INTERVIEW.scheduled_start},
               {sql.columns(Scorecard, "s")}
          FROM {CARD.table} s
          JOIN {INTERVIEW.table} i ON i.{INTERVIEW.id} = s.{CARD.interview}
          JOIN {LOOP.table} l ON l.{LOOP.id} = i.{INTERVIEW.loop}
         WHERE s.{CARD.id} = %s AND s.{CARD.interviewer} = %s{sql.for_update("s")}
        """,
        [scorecard_id, user_id],
    ) if sql.in_range(scorecard_id) else None  # fmt: skip


def draft_update(*, scorecard_id: int, recommendation: str, summary: str, now: datetime) -> None:
    """Write a draft's recommendation, summary and time of change."""
    sql.execute(
        f"UPDATE {CARD.table} SET {CARD.recommendation} = %s, {CARD.summary} = %s,"
        f" {CARD.updated_at} = %s WHERE {CARD.id} = %s",
        [recommendation, summary, sql.moment(now), scorecard_id],
    )


def ratings_of_interview(*, scorecard_id: int, interview_id: int) -> list[Row]:
    """Return each of the interview's questions in order with the card's rating of it,
    as (title, rating id, rating, not_asked, not_asked_reason), None where unrated."""
    return sql.rows(
        f"""
        SELECT q.{QUESTION.title}, r.{RATING.id}, r.{RATING.rating}, r.{RATING.not_asked},
               r.{RATING.not_asked_reason}
          FROM {ASKED.table} iq
          JOIN {QUESTION.table} q ON q.{QUESTION.id} = iq.{ASKED.question}
          LEFT JOIN {RATING.table} r
                 ON r.{RATING.item} = iq.{ASKED.id} AND r.{RATING.scorecard} = %s
         WHERE iq.{ASKED.interview} = %s
         ORDER BY iq.{ASKED.order}
        """,
        [scorecard_id, interview_id],
    )


def card_submit(*, scorecard_id: int, now: datetime) -> bool:
    """Submit a draft with a conditional UPDATE; return whether this call won."""
    won = sql.execute(
        f"UPDATE {CARD.table} SET {CARD.status} = %s, {CARD.submitted_at} = %s"
        f" WHERE {CARD.id} = %s AND {CARD.status} = %s",
        [Scorecard.Status.SUBMITTED, sql.moment(now), scorecard_id, Scorecard.Status.DRAFT],
    )
    return won == 1


def loop_holds_up_hire(loop_id: int) -> bool:
    """Return whether any seat of the loop holds up a hire (visibility.holds_up_hire_sql):
    the SQL of ``visibility.seats_holding_up_hire(loop).exists()``."""
    return sql.row(
        f"""
        SELECT 1
          FROM {SEAT.table} p
          JOIN {INTERVIEW.table} i ON i.{INTERVIEW.id} = p.{SEAT.interview}
         WHERE i.{INTERVIEW.loop} = %s AND {visibility.holds_up_hire_sql("p")}
         LIMIT 1
        """,
        [loop_id, visibility.SUBMITTED],
    ) is not None  # fmt: skip


# --- reading cards -------------------------------------------------------------------------


def ratings_of_cards(ids: Sequence[int]) -> list[Row]:
    """Return the cards' ratings in question order as (id, card, item, question,
    title, version number, rating, not_asked, not_asked_reason, notes)."""
    return sql.rows(
        f"""
        SELECT r.{RATING.id}, r.{RATING.scorecard}, r.{RATING.item}, iq.{ASKED.question},
               q.{QUESTION.title}, v.{VERSION.number}, r.{RATING.rating}, r.{RATING.not_asked},
               r.{RATING.not_asked_reason}, r.{RATING.notes}
          FROM {RATING.table} r
          JOIN {ASKED.table} iq ON iq.{ASKED.id} = r.{RATING.item}
          JOIN {QUESTION.table} q ON q.{QUESTION.id} = iq.{ASKED.question}
          JOIN {VERSION.table} v ON v.{VERSION.id} = r.{RATING.version}
         WHERE r.{RATING.scorecard} IN ({sql.marks(ids)})
         ORDER BY r.{RATING.scorecard}, iq.{ASKED.order}
        """,
        ids,
    )


def ticks_of_ratings(ids: Sequence[int]) -> list[Row]:
    """Return the ratings' ticks as (rating, rubric item or follow-up, "checked" or
    "follow_ups_asked")."""
    return sql.rows(
        f"""
        SELECT {CHECKED.questionrating}, {CHECKED.rubricitem}, 'checked'
          FROM {CHECKED.table} WHERE {CHECKED.questionrating} IN ({sql.marks(ids)})
        UNION ALL
        SELECT {FOLLOW_UPS_ASKED.questionrating}, {FOLLOW_UPS_ASKED.followup}, 'follow_ups_asked'
          FROM {FOLLOW_UPS_ASKED.table}
         WHERE {FOLLOW_UPS_ASKED.questionrating} IN ({sql.marks(ids)})
        """,
        [*ids, *ids],
    )


def amendments_of_cards(ids: Sequence[int]) -> list[Row]:
    """Return the cards' amendments, oldest first, as (card, id, by username, at,
    reason, before, after, after reading)."""
    return sql.rows(
        f"""
        SELECT a.{AMENDMENT.scorecard}, a.{AMENDMENT.id}, u.{USER.username}, a.{AMENDMENT.at},
               a.{AMENDMENT.reason}, a.{AMENDMENT.before}, a.{AMENDMENT.after},
               a.{AMENDMENT.after_reading}
          FROM {AMENDMENT.table} a
          JOIN {USER.table} u ON u.{USER.id} = a.{AMENDMENT.by}
         WHERE a.{AMENDMENT.scorecard} IN ({sql.marks(ids)})
         ORDER BY a.{AMENDMENT.scorecard}, a.{AMENDMENT.at}, a.{AMENDMENT.id}
        """,
        ids,
    )


def loop_heading(loop_id: int) -> Row | None:
    """Return the loop as (id, candidate name, role id, role name, level id, level name,
    status, decision, rationale, decided by username, decided at); None if there is no
    such loop."""
    return sql.row(
        f"""
        SELECT l.{LOOP.id}, c.{CANDIDATE.name}, l.{LOOP.role}, r.{ROLE.name}, l.{LOOP.level},
               lv.{LEVEL.name},
               l.{LOOP.status}, l.{LOOP.decision}, l.{LOOP.decision_rationale},
               d.{USER.username}, l.{LOOP.decided_at}
          FROM {LOOP.table} l
          JOIN {CANDIDATE.table} c ON c.{CANDIDATE.id} = l.{LOOP.candidate}
          JOIN {ROLE.table} r ON r.{ROLE.id} = l.{LOOP.role}
          JOIN {LEVEL.table} lv ON lv.{LEVEL.id} = l.{LOOP.level}
          LEFT JOIN {USER.table} d ON d.{USER.id} = l.{LOOP.decided_by}
         WHERE l.{LOOP.id} = %s
        """,
        [loop_id],
    ) if sql.in_range(loop_id) else None  # fmt: skip


def seats_of_loop(loop_id: int) -> list[Row]:
    """Return every seat of the loop in interview order as (interview, user, username,
    is_shadow, done, cancelled)."""
    return sql.rows(
        f"""
        SELECT p.{SEAT.interview}, p.{SEAT.user}, u.{USER.username}, p.{SEAT.is_shadow},
               {visibility.seat_done_sql("p")}, p.{SEAT.cancelled_at} IS NOT NULL
          FROM {SEAT.table} p
          JOIN {INTERVIEW.table} i ON i.{INTERVIEW.id} = p.{SEAT.interview}
          JOIN {USER.table} u ON u.{USER.id} = p.{SEAT.user}
         WHERE i.{INTERVIEW.loop} = %s
         ORDER BY i.{INTERVIEW.order}, p.{SEAT.interview}, p.{SEAT.is_shadow}, p.{SEAT.id}
        """,
        [visibility.SUBMITTED, loop_id],
    )


def readable_cards_of_loop(*, loop_id: int, user_id: int | None, blind: bool) -> list[Row]:
    """Return the loop's cards the user may read (scoring.visibility.readable) as every
    column of the card, then its author's username."""
    readable, params = visibility.readable_sql("s", user_id=user_id, blind=blind)
    return sql.rows(
        f"""
        SELECT {sql.columns(Scorecard, "s")}, u.{USER.username}
          FROM {CARD.table} s
          JOIN {INTERVIEW.table} i ON i.{INTERVIEW.id} = s.{CARD.interview}
          JOIN {USER.table} u ON u.{USER.id} = s.{CARD.interviewer}
         WHERE i.{INTERVIEW.loop} = %s AND {readable}
         ORDER BY s.{CARD.interview}, s.{CARD.is_shadow}, s.{CARD.id}
        """,
        [loop_id, *params],
    )
