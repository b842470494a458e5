"""Reading a role's ratings for calibration: its scope, its watermarks, its ratings.

The calibration job (jobs.py) asks here what a scope holds and whether it changed
since the last snapshot (the watermark), and reads the ratings once, as numpy
columns, for the statistics.
"""

import datetime
import hashlib
import weakref
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection, transaction
from django.db.models import BigIntegerField, Case, Count, F, Max, Q, Value, When
from django.db.models.functions import Cast

from core.sql import row
from kit.models import Level, QuestionVersion, Role
from scoring import visibility
from scoring.calibration.columns import NO_TIME, Packed, integer_columns
from scoring.models import QuestionRating, Scorecard

if TYPE_CHECKING:
    import psycopg

RECOMMENDATION_SCORE = {"strong_no": -2.0, "no": -1.0, "yes": 1.0, "strong_yes": 2.0}
DECISION_SCORE = {"hire": 1.0, "no_hire": 0.0}


def _in_scope(role: Role, level: Level | None, prefix: str = "") -> Q:
    """Ratings that count: submitted, not a shadow's, asked, in the role (and level).

    `prefix` reaches QuestionRating from another model (e.g. "questionrating__").
    """
    conditions = {
        **visibility.counted("scorecard__"),
        "not_asked": False,
        "rating__isnull": False,
        "scorecard__interview__loop__role": role,
    }
    if level is not None:
        conditions["scorecard__interview__loop__level"] = level
    return Q(**{prefix + key: value for key, value in conditions.items()})


class Watermarks(dict[int | None, str]):
    """Watermarks by level id (None: the whole role), holding what was read to compute them.

    `seats`: the role's open seats as digested here, for each scope's own rows
    (jobs.own_rows takes its level's), so the run reads them once.
    """

    read: "_Read | None" = None
    seats: list[visibility.OpenSeat]

    def __init__(self, marks: Mapping[int | None, str], seats: list[visibility.OpenSeat]):
        super().__init__(marks)
        self.seats = seats


# The reads behind live Watermarks, by role id: load_ratings takes the role's
# ratings from here while the job that asked for the watermarks holds them,
# instead of reading them again. Weak, so a read lives as long as its marks.
_reads: "weakref.WeakValueDictionary[int, _Read]" = weakref.WeakValueDictionary()


def watermarks(role: Role) -> Watermarks:
    """Return the watermark of the role (key None) and of each level with ratings.

    On PostgreSQL they are computed from the role's scorecards and ratings as
    load_ratings reads them (see _read), and load_ratings(role) then reuses
    that read while the returned marks are alive: the job that asked for them
    computes from exactly the ratings its watermarks describe, read once.
    Elsewhere, one aggregate query. The open seats they digest are kept on
    them (one query either way).
    """
    read = _read(role, None, seats=True) if connection.vendor == "postgresql" else None
    if read is not None and read.seats is not None:
        open_seats = read.seats
    else:
        open_seats = _open_seats(role, None)
    seats = _seat_marks(open_seats)
    rows = read.watermark_rows() if read is not None else _watermark_rows(role, None)
    marks = Watermarks({row["level"]: _mark(row, seats) for row in rows}, open_seats)
    if read is not None:
        marks.read = read
        _reads[role.pk] = read
    marks[None] = _mark({**_total(rows), "level": None}, seats)
    return marks


def loop_scope(role: Role, level: Level | None) -> dict[str, Any]:
    """Return the filters of a Loop queryset for the scope's loops."""
    return {"role": role} if level is None else {"role": role, "level": level}


def _seat_marks(open_seats: Iterable[visibility.OpenSeat]) -> dict[int | None, str]:
    """Return per level (None: all of `open_seats`) a digest of its open seats: who is
    blind in which loop. Each snapshot's own rows (jobs.own_rows) leave those loops
    out, so a seat taken or done must change the watermark, as a rating does."""
    found: dict[int | None, list[tuple[int, int]]] = {None: []}
    for level_id, loop_id, user_id in open_seats:
        found.setdefault(level_id, []).append((loop_id, user_id))
        found[None].append((loop_id, user_id))
    return {key: _digest(sorted(pairs)) for key, pairs in found.items()}


def _digest(pairs: list[tuple[int, int]]) -> str:
    if not pairs:
        return "-"
    return hashlib.sha256(repr(pairs).encode()).hexdigest()[:16]


def _total(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Add up per-level watermark rows; decisions are per loop and loops have one level."""
    return {
        "n": sum(r["n"] for r in rows),
        "last": max((r["last"] for r in rows), default=None),
        "changed": max((r["changed"] for r in rows), default=None),
        "decided": max((r["decided"] for r in rows if r["decided"]), default=None),
        "decisions": sum(r["decisions"] for r in rows),
    }


def _watermark_rows(role: Role, level: Level | None) -> Sequence[Mapping[str, Any]]:
    """Return per level with ratings in scope: their count and highest id, the latest
    scorecard change and decision, and the number of distinct decision times."""
    if connection.vendor == "postgresql":
        # A join of every rating with its scorecard, interview and loop costs
        # seconds per million ratings, minutes without planner statistics.
        return _read(role, level).watermark_rows()
    return list(
        QuestionRating.objects.filter(_in_scope(role, level))
        .values(level=F("scorecard__interview__loop__level_id"))
        .annotate(
            n=Count("id"),
            last=Max("id"),
            changed=Max("scorecard__updated_at"),
            decided=Max("scorecard__interview__loop__decided_at"),
            decisions=Count("scorecard__interview__loop__decided_at", distinct=True),
        )
        .order_by()
    )


def _moment(microseconds: int) -> datetime.datetime | None:
    """Return the UTC time `microseconds` after the epoch (None for NO_TIME)."""
    if microseconds == NO_TIME:
        return None
    return EPOCH + datetime.timedelta(microseconds=microseconds)


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _mark(row: Mapping[str, Any], seats: Mapping[int | None, str]) -> str:
    parts = [row["n"], row["last"], row["changed"], row["decided"], row["decisions"]]
    parts.append(seats.get(row["level"], "-"))
    return "|".join(_text(part) for part in parts)


def watermark(role: Role, level: Level | None = None) -> str:
    """Return a string that changes whenever the inputs of the scope change: its
    ratings, and who is blind in which of its loops (two queries)."""
    total = {**_total(_watermark_rows(role, level)), "level": level.pk if level else None}
    return _mark(total, _seat_marks(visibility.open_seats(loop_scope(role, level))))


def _text(value: object) -> str:
    if value is None:
        return "-"
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


@dataclass(frozen=True)
class Cards:
    """The scope's scorecards, one entry each: what every rating on a card shares."""

    scorecard: np.ndarray  # id
    candidate: np.ndarray
    interviewer: np.ndarray
    loop: np.ndarray
    level: np.ndarray
    recommendation: np.ndarray  # -2, -1, 1, 2 or NaN
    decision: np.ndarray  # the loop's decision, 1 hire, 0 no hire, NaN none


class _OfCard:
    """A field of Ratings.cards read per rating: the card's value for each rating."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, ratings: "Ratings", owner: type) -> np.ndarray:
        return getattr(ratings.cards, self.name)[ratings.card]


@dataclass(frozen=True)
class Ratings:
    """The scope's ratings as numpy arrays: per rating its card (a position in
    `cards`), question, rating and scale.

    What a rating shares with its scorecard is kept once per card: a million
    ratings on two hundred thousand cards would otherwise take seven more
    arrays of a million entries. The attributes named like the card's fields
    give them per rating (a new array each); subsets share `cards`, which may
    then hold cards without ratings (see rated).
    """

    card: np.ndarray
    question: np.ndarray
    rating: np.ndarray
    scale_max: np.ndarray
    cards: Cards

    @property
    def rated(self) -> np.ndarray:
        """Per card, whether it holds any of these ratings."""
        return np.bincount(self.card, minlength=self.cards.scorecard.size) > 0

    @property
    def scorecards(self) -> int:
        return int(np.count_nonzero(self.rated))

    # What a rating shares with its card, per rating (a new array each read).
    scorecard = _OfCard()
    candidate = _OfCard()
    interviewer = _OfCard()
    loop = _OfCard()
    level = _OfCard()
    recommendation = _OfCard()
    decision = _OfCard()

    def only(self, level: Level | None) -> "Ratings":
        """Return the ratings of one level (all of them for None)."""
        if level is None:
            return self
        return self._where(self.cards.level == level.pk)

    def without_loops(self, loops: Iterable[int]) -> "Ratings":
        """Return the ratings of every loop but `loops`."""
        return self._where(~np.isin(self.cards.loop, list(loops)))

    def _where(self, keep_card: np.ndarray) -> "Ratings":
        keep = keep_card[self.card]
        return Ratings(
            self.card[keep], self.question[keep], self.rating[keep], self.scale_max[keep],
            self.cards,
        )  # fmt: skip


COLUMNS = (
    "candidate", "interviewer", "question", "rating", "loop", "recommendation",
    "scale_max", "scorecard", "level", "decision",
)  # fmt: skip


def load_ratings(role: Role, level: Level | None = None) -> Ratings:
    """Return every rating in scope as numpy arrays (see _read).

    Reuses the role's read behind live Watermarks (see watermarks) when there
    is one; else reads.
    """
    read = _reads.get(role.pk) if connection.vendor == "postgresql" else None
    if read is None:
        return _read(role, level).ratings()
    return read.ratings().only(level)


@dataclass
class _Read:
    """A scope's scorecards and their asked ratings, as read from the database."""

    cards: dict[str, np.ndarray]  # see _cards
    asked: dict[str, np.ndarray]  # id, version, rating per asked rating
    card: np.ndarray  # per rating, its scorecard's position in cards
    seats: list[visibility.OpenSeat] | None = None  # the scope's open seats, when asked for

    def ratings(self) -> Ratings:
        """Return the ratings with their scorecards' facts and their questions.

        The question is the one of the version the rating was given against;
        the versions' questions and scales take one more query.
        """
        cards, asked, card = self.cards, self.asked, self.card
        version_ids, version = _codes(asked["version"])
        versions = {
            pk: (question, scale)
            for pk, question, scale in QuestionVersion.objects.filter(
                pk__in=version_ids.tolist()
            ).values_list("pk", "question_id", "scale_max")
        }
        question_of = np.array([versions[v][0] for v in version_ids.tolist()], dtype=np.int64)
        scale_of = np.array([versions[v][1] for v in version_ids.tolist()], dtype=np.float64)
        # Scores come shifted to be non-negative (see _cards); none becomes NaN.
        recommendation = cards["recommendation"].astype(np.float64) - 2.0
        recommendation[recommendation == 0] = np.nan
        decision = cards["decision"].astype(np.float64) - 1.0
        decision[decision < 0] = np.nan
        return Ratings(
            card=card,
            question=question_of[version],
            rating=asked["rating"].astype(np.float64),
            scale_max=scale_of[version],
            cards=Cards(
                scorecard=cards["id"],
                candidate=cards["candidate"],
                interviewer=cards["interviewer"],
                loop=cards["loop"],
                level=cards["level"],
                recommendation=recommendation,
                decision=decision,
            ),
        )

    def watermark_rows(self) -> list[dict[str, Any]]:
        """Return the figures of _watermark_rows, per level with ratings (needs `times`)."""
        cards, ids = self.cards, self.asked["id"]
        per_card = np.bincount(self.card, minlength=cards["id"].size)
        rating_level = cards["level"][self.card]
        rows = []
        for each in np.unique(cards["level"][per_card > 0]).tolist():
            mine = (per_card > 0) & (cards["level"] == each)
            decided = cards["decided"][mine]
            decided = decided[decided != NO_TIME]
            rows.append(
                {
                    "level": each,
                    "n": int(per_card[mine].sum()),
                    "last": int(ids[rating_level == each].max()),
                    "changed": _moment(int(cards["changed"][mine].max())),
                    "decided": _moment(int(decided.max())) if decided.size else None,
                    "decisions": int(np.unique(decided).size),
                }
            )
        return rows


def _read(role: Role, level: Level | None, seats: bool = False) -> _Read:
    """Read the scope's ratings with two queries, straight into numpy.

    1. The scope's scorecards, one entry each (see _cards).
    2. Their asked ratings: scorecard, id, question version and rating only,
       from the ratings table alone (see _asked); everything else about a
       rating is its scorecard's, taken from step 1 by position.
    3. With `seats`, the scope's open seats (visibility.open_seats).

    On PostgreSQL, outside a transaction, the ratings are read on a second
    connection while this one reads the rest (_read_at_once).
    """
    if connection.vendor == "postgresql" and connection.get_autocommit():
        return _read_at_once(role, level, seats)
    cards = _cards(role, level, times=connection.vendor == "postgresql")
    asked, card = _asked(cards["id"], ASKED)
    return _Read(cards, asked, card, _open_seats(role, level) if seats else None)


def _open_seats(role: Role, level: Level | None) -> list[visibility.OpenSeat]:
    return visibility.open_seats(loop_scope(role, level))


ASKED = ("id", "version", "rating")


def _read_at_once(role: Role, level: Level | None, seats: bool = False) -> _Read:
    """Read the scorecards here and their ratings on a second connection, at once.

    The ratings' read needs of the scorecards only their id range, which the
    second connection finds first (an aggregate over the scorecards' joins,
    a fifth of the time of either read). It sees the database exactly as this
    one does: this transaction exports its snapshot and the other imports it
    (pg_export_snapshot, as pg_dump -j does), so the watermarks still describe
    exactly what was read. The open seats, when asked for, are read here after
    the scorecards, in the same snapshot. If the second connection cannot be
    had, or fails, the ratings are read here too.
    """
    import psycopg

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("SELECT pg_export_snapshot()")
        (snapshot,) = cursor.fetchone()
        span = _CardRange(role, level)
        ratings = _asked_query(ASKED)
        params = connection.get_connection_params()
        with ThreadPoolExecutor(max_workers=1) as pool:
            elsewhere = pool.submit(_in_snapshot, snapshot, params, span, ratings)
            cards = _cards(role, level, times=True)
            found_seats = _open_seats(role, level) if seats else None
            try:
                rows = elsewhere.result()
            except psycopg.Error:
                # No second connection (a pooler refusing the snapshot, a lock
                # held by a migration): read here, where the scorecards were.
                rows = ratings.read(first=span.read() or EMPTY_RANGE)
    asked, card = _matched(cards["id"], rows)
    return _Read(cards, asked, card, found_seats)


# An id range that holds nothing.
EMPTY_RANGE = (0, -1)


class _CardRange:
    """The lowest and highest id of the scope's scorecards, compiled on creation:
    it may be read on another thread, on a connection of its own."""

    def __init__(self, role: Role, level: Level | None):
        ids = Scorecard.objects.filter(**_card_scope(role, level)).values_list("pk").order_by()
        inner, self.params = ids.query.sql_with_params()
        self.sql = f"SELECT min(t.id), max(t.id) FROM ({inner}) AS t (id)"

    def read(self, on: "psycopg.Connection[Any] | None" = None) -> tuple[int, int] | None:
        """Return (lowest, highest), None when the scope has no scorecards."""
        if on is None:
            found = row(self.sql, self.params)
        else:
            found = on.execute(self.sql, self.params).fetchone()
        if found is None or found[0] is None:
            return None
        return int(found[0]), int(found[1])


# A second connection waits this long for a lock (a migration's) before the
# read falls back to the first: waiting longer could wait on this run itself.
LOCK_TIMEOUT = "2s"


def _in_snapshot(
    snapshot: str, params: dict[str, Any], span: _CardRange, query: Packed
) -> dict[str, np.ndarray]:
    """Return `query`'s columns over the scorecards of `span`, read on a new
    connection in the exported `snapshot`."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(**params) as other:
        other.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        other.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
        other.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(LOCK_TIMEOUT)))
        return query.read(other, first=span.read(other) or EMPTY_RANGE)


def _cards(role: Role, level: Level | None, times: bool = False) -> dict[str, np.ndarray]:
    """Return the scope's submitted, non-shadow scorecards as integer arrays, one entry each.

    id, interviewer, recommendation (scored -2, -1, 1, 2 plus 2; none 2),
    candidate, level, loop, the loop's decision (no hire 1, hire 2, none 0) and,
    with `times` (PostgreSQL only), the scorecard's last change and the
    loop's decision time in epoch microseconds (NO_TIME for none). The joins here are over
    scorecards, interviews and loops, not over ratings.
    """
    columns = {
        "id": "pk",
        "interviewer": "interviewer_id",
        "recommendation": _scored("recommendation", RECOMMENDATION_SCORE, offset=2, default=2),
        "candidate": "interview__loop__candidate_id",
        "level": "interview__loop__level_id",
        "loop": "interview__loop_id",
        "decision": _scored("interview__loop__decision", DECISION_SCORE, offset=1, default=0),
    }
    if times:
        columns["changed"] = "updated_at"
        columns["decided"] = "interview__loop__decided_at"
    expressions = {
        f"c_{name}": value for name, value in columns.items() if not isinstance(value, str)
    }
    fields = [value if isinstance(value, str) else f"c_{name}" for name, value in columns.items()]
    queryset = (
        Scorecard.objects.filter(**_card_scope(role, level))
        .annotate(**expressions)
        .values_list(*fields)
        .order_by()
    )
    # Scores are 0..4 and 0..2: three and two bits.
    return integer_columns(
        queryset,
        tuple(columns),
        times=("changed", "decided"),
        packed={"recommendation": 3, "decision": 2},
    )


def _card_scope(role: Role, level: Level | None) -> dict[str, Any]:
    """Return the filters of a Scorecard queryset for the scope's counted scorecards."""
    scope: dict[str, Any] = {**visibility.counted(), "interview__loop__role": role}
    if level is not None:
        scope["interview__loop__level"] = level
    return scope


def _asked(
    card_ids: np.ndarray, columns: tuple[str, ...]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the asked ratings of these scorecards (`columns` of QuestionRating, by
    attribute name) and, per rating, its scorecard's position in `card_ids`.

    The ratings table is read alone, within the scorecards' id range, and
    ratings of other scorecards are dropped here: no join for the planner to
    get wrong (a nested loop per scorecard costs seconds per million ratings
    where statistics are missing, as after a bulk import). A rating whose
    scorecard was submitted after the scorecards were read is dropped too; the
    next run counts it, as the watermark was read before either.
    """
    if card_ids.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return {name: empty for name in columns}, empty
    rows = _asked_query(columns).read(first=(int(card_ids.min()), int(card_ids.max())))
    return _matched(card_ids, rows)


# Ratings run 1 to 10 (kit.models.Question.scale_max): four bits.
RATING_BITS = 4


def _asked_query(columns: tuple[str, ...]) -> Packed:
    """Return the read of the asked ratings (see _asked), to be given the scorecards'
    id range.

    On PostgreSQL a rating travels as one int8 when its scorecard's, its own
    and its version's ids and the rating fit in 63 bits together (the largest
    ids, from the primary keys' indexes, say how many bits each needs), else as
    two: the server's cost is mostly per int8 it sends.
    """
    attnames = {"scorecard": "scorecard_id", "version": "version_id", "id": "pk"}
    queryset = (
        QuestionRating.objects.filter(not_asked=False, rating__isnull=False)
        .values_list(*[attnames.get(name, name) for name in ("scorecard", *columns)])
        .order_by()
    )
    names = ("_card", *columns)
    if connection.vendor != "postgresql" or columns != ASKED:
        return Packed(queryset, names)
    tables = [model._meta.db_table for model in (Scorecard, QuestionRating, QuestionVersion)]
    found = row("SELECT " + ", ".join(f"(SELECT max(id) FROM {table})" for table in tables))
    card_bits, id_bits, version_bits = (int(top or 0).bit_length() for top in found or (0, 0, 0))
    if card_bits + id_bits + version_bits + RATING_BITS <= 63:
        pack = {"id": id_bits, "version": version_bits, "rating": RATING_BITS}
    else:
        pack = {"id": 63 - card_bits, "rating": 16}
    return Packed(queryset, names, packed=pack)


def _matched(
    card_ids: np.ndarray, rows: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the rows of scorecards in `card_ids` (without "_card") and each one's position."""
    card, found = _positions(card_ids, rows.pop("_card"))
    if not found.all():
        rows = {name: column[found] for name, column in rows.items()}
        card = card[found]
    return rows, card


def _scored(path: str, scores: dict[str, float], offset: int, default: int) -> Cast:
    """Return an integer SQL expression: the text field at `path` scored, plus `offset`."""
    whens = [When(**{path: key}, then=Value(int(score) + offset)) for key, score in scores.items()]
    return Cast(Case(*whens, default=Value(default)), BigIntegerField())


def _positions(ids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return, for each of `wanted`, its index in the distinct `ids` and whether it is there."""
    if ids.size == 0:
        return np.zeros(wanted.size, dtype=np.int64), np.zeros(wanted.size, dtype=bool)
    top = int(ids.max())
    if int(ids.min()) >= 0 and top <= 4 * ids.size + 1_000_000:
        index = np.full(top + 2, -1, dtype=np.int64)
        index[ids] = np.arange(ids.size)
        at = index[np.clip(wanted, -1, top + 1)]
        return np.maximum(at, 0), at >= 0
    order = np.argsort(ids)
    at = order[np.minimum(np.searchsorted(ids, wanted, sorter=order), ids.size - 1)]
    return at, ids[at] == wanted


def _codes(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (distinct ids, code per entry) with codes 0..n-1 in id order.

    Ids are primary keys, so usually no larger than a few times their count:
    mark the ones present in a table that size instead of sorting.
    """
    if ids.size and int(ids.min()) >= 0 and int(ids.max()) <= 4 * ids.size + 1_000_000:
        present = np.zeros(int(ids.max()) + 1, dtype=bool)
        present[ids] = True
        code = np.cumsum(present) - 1
        return np.flatnonzero(present), code[ids]
    return np.unique(ids, return_inverse=True)
