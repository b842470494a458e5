"""Reading a role's ratings for calibration: its scope, its watermarks, its ratings.

The calibration job (jobs.py) asks here what a scope holds and whether it changed
since the last snapshot (the watermark), and reads the ratings once, as numpy
columns, for the statistics.
"""

import hashlib
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    DateTimeField,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.expressions import Func
from django.db.models.functions import Cast, Coalesce

from kit.models import Level, QuestionVersion, Role
from scoring import visibility
from scoring.models import QuestionRating, Scorecard

RECOMMENDATION_SCORE = {"strong_no": -2.0, "no": -1.0, "yes": 1.0, "strong_yes": 2.0}
DECISION_SCORE = {"hire": 1.0, "no_hire": 0.0}


def in_scope(role: Role, level: Level | None, prefix: str = "") -> Q:
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
    (jobs.own_rows takes its level's), so the run reads them once. `ratings()`:
    the role's ratings, from the very read the marks were computed from.
    """

    def __init__(
        self, marks: Mapping[int | None, str], seats: list[visibility.OpenSeat], read: "_Read"
    ):
        super().__init__(marks)
        self.seats = seats
        self._read = read

    def ratings(self) -> "Ratings":
        """Return the role's ratings as read for these marks (one more query: the versions)."""
        return self._read.ratings()


def watermarks(role: Role) -> Watermarks:
    """Return the watermark of the role (key None) and of each level with ratings.

    They are computed from the role's scorecards and ratings as load_ratings
    reads them (see _read), and the read is kept on the marks: the job that
    asked for them computes from exactly the ratings its watermarks describe,
    read once. The open seats they digest are kept on them too (one query).
    """
    read = _read(role, None, times=True)
    open_seats = _open_seats(role, None)
    seats = _seat_marks(open_seats)
    rows = read.watermark_rows()
    marks = Watermarks({row["level"]: _mark(row, seats) for row in rows}, open_seats, read)
    marks[None] = _mark({**_total(rows), "level": None, "times": read.times_digest()}, seats)
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


def _mark(row: Mapping[str, Any], seats: Mapping[int | None, str]) -> str:
    parts = [row["n"], row["last"], row["changed"], row["decided"], row["decisions"]]
    parts += [row["times"], seats.get(row["level"], "-")]
    return "|".join(_text(part) for part in parts)


def _times_digest(ids: np.ndarray, times: np.ndarray) -> str:
    """Return a digest of scorecards' interview times (seconds), paired with their ids.

    An interview given another time after its cards were submitted moves its ratings
    to another period (jobs.stated_period) and changes no card, so the watermark digests
    the times the read carries: no query more, a few passes over two int64 columns.
    Each (id, time) is mixed (splitmix64's finaliser, a bijection) and the mixes summed
    modulo 2**64, so the read's order does not matter and one card's time moving always
    changes the sum.
    """
    if ids.size == 0:
        return "-"
    x = ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ times.astype(np.uint64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return f"{int(x.sum(dtype=np.uint64)):016x}"


def watermark(role: Role, level: Level | None = None) -> str:
    """Return a string that changes whenever the inputs of the scope change: its
    ratings, their interviews' times, and who is blind in which of its loops (see
    _read; one more query)."""
    read = _read(role, level, times=True)
    rows = read.watermark_rows()
    total = {**_total(rows), "level": level.pk if level else None, "times": read.times_digest()}
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
    time: np.ndarray  # when the interview was held, in seconds since 1970 (see _cards)


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
    time = _OfCard()

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
    """Return every rating in scope as numpy arrays (see _read)."""
    return _read(role, level).ratings()


@dataclass
class _Read:
    """A scope's scorecards and their asked ratings, as read from the database."""

    cards: dict[str, np.ndarray]  # see _cards
    asked: dict[str, np.ndarray]  # id, version, rating per asked rating
    card: np.ndarray  # per rating, its scorecard's position in cards
    times: dict[int, dict[str, Any]]  # per level, see _times (empty unless asked for)

    def ratings(self) -> Ratings:
        """Return the ratings with their scorecards' facts and their questions.

        The question is the one of the version the rating was given against;
        the versions' questions and scales take one more query.
        """
        cards, asked, card = self.cards, self.asked, self.card
        version_ids, version = id_codes(asked["version"])
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
                time=cards["time"],
            ),
        )

    def times_digest(self) -> str:
        """Return the digest of the interview times of the scorecards with ratings read."""
        rated = np.bincount(self.card, minlength=self.cards["id"].size) > 0
        return _times_digest(self.cards["id"][rated], self.cards["time"][rated])

    def watermark_rows(self) -> list[dict[str, Any]]:
        """Return per level with ratings in scope: their count and highest id, the latest
        scorecard change and decision, the number of distinct decision times and a
        digest of their scorecards' interview times."""
        cards, ids = self.cards, self.asked["id"]
        per_card = np.bincount(self.card, minlength=cards["id"].size)
        rating_level = cards["level"][self.card]
        rows = []
        for each in np.unique(cards["level"][per_card > 0]).tolist():
            mine = (per_card > 0) & (cards["level"] == each)
            times = self.times.get(each, {})
            rows.append(
                {
                    "level": each,
                    "n": int(per_card[mine].sum()),
                    "last": int(ids[rating_level == each].max()),
                    "changed": times.get("changed"),
                    "decided": times.get("decided"),
                    "decisions": times.get("decisions", 0),
                    "times": _times_digest(cards["id"][mine], cards["time"][mine]),
                }
            )
        return rows


def _read(role: Role, level: Level | None, times: bool = False) -> _Read:
    """Read the scope's ratings with plain queries, the same on every database.

    1. The scope's scorecards, one entry each (see _cards).
    2. Their asked ratings: scorecard, id, question version and rating only,
       from the ratings table alone (see _asked); everything else about a
       rating is its scorecard's, taken from step 1 by position.
    3. With `times` (for the watermarks), per level, the scorecards' latest
       change and their loops' decision times (see _times).
    """
    cards = _cards(role, level)
    asked, card = _asked(cards["id"])
    return _Read(cards, asked, card, _times(role, level) if times else {})


def _open_seats(role: Role, level: Level | None) -> list[visibility.OpenSeat]:
    return visibility.open_seats(loop_scope(role, level))


CARD_COLUMNS = (
    "id", "interviewer", "recommendation", "candidate", "level", "loop", "decision", "time",
)  # fmt: skip


class EpochSeconds(Func):
    """A date-time as whole seconds since 1970 (UTC), an integer on either database: the
    fraction dropped on both (PostgreSQL's CAST alone would round it, SQLite's strftime
    drops it)."""

    output_field = BigIntegerField()
    template = "CAST(FLOOR(EXTRACT(EPOCH FROM %(expressions)s)) AS BIGINT)"

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # SQLite keeps date-times as UTC text; strftime reads them in C. The %% pairs
        # survive this template and then the placeholders' formatting.
        template = "CAST(strftime('%%%%s', %(expressions)s) AS INTEGER)"
        return self.as_sql(compiler, connection, template=template, **extra)


# When a scorecard's ratings were given, for the periods severities describe: the
# interview's scheduled start (an imported file's interviewed_at is stored there),
# else when the card was submitted (imports without interviewed_at: the import),
# else when it was started.
INTERVIEW_TIME = Coalesce(
    "interview__scheduled_start", "submitted_at", "created_at", output_field=DateTimeField()
)


def _cards(role: Role, level: Level | None) -> dict[str, np.ndarray]:
    """Return the scope's submitted, non-shadow scorecards as integer arrays, one entry each.

    id, interviewer, recommendation (scored -2, -1, 1, 2 plus 2; none 2),
    candidate, level, loop, the loop's decision (no hire 1, hire 2, none 0) and
    the interview's time (INTERVIEW_TIME, seconds since 1970).
    The joins here are over scorecards, interviews and loops, not over ratings.
    """
    queryset = (
        Scorecard.objects.filter(**_card_scope(role, level))
        .annotate(
            c_recommendation=_scored("recommendation", RECOMMENDATION_SCORE, offset=2, default=2),
            c_decision=_scored("interview__loop__decision", DECISION_SCORE, offset=1, default=0),
            c_time=EpochSeconds(INTERVIEW_TIME),
        )
        .values_list(
            "pk", "interviewer_id", "c_recommendation", "interview__loop__candidate_id",
            "interview__loop__level_id", "interview__loop_id", "c_decision", "c_time",
        )
        .order_by()
    )  # fmt: skip
    table = _integers(queryset, len(CARD_COLUMNS))
    return {name: table[:, n] for n, name in enumerate(CARD_COLUMNS)}


def _integers(queryset: QuerySet[Any, Any], width: int) -> np.ndarray:
    """Return the rows of a values_list of `width` integer columns as an int64 table.

    One plain query through the cursor, fetched in chunks straight into numpy:
    the ORM would build a tuple and run its converters per row. np.fromiter over
    the chained rows, 10,000 at a time (they stay in the CPU's cache), costs a
    third of what np.array takes to find the shape of a list of tuples: on the
    1.25 M ratings of bench/calibrate.py, 0.11 s against 0.30 s above the fetch.
    """
    sql, params = queryset.query.sql_with_params()
    chunks = [np.zeros((0, width), dtype=np.int64)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(10_000):
            values = itertools.chain.from_iterable(batch)
            chunk = np.fromiter(values, dtype=np.int64, count=width * len(batch))
            chunks.append(chunk.reshape(len(batch), width))
    return np.concatenate(chunks)


def _times(role: Role, level: Level | None) -> dict[int, dict[str, Any]]:
    """Return per level the latest change of its scorecards with counted ratings, the
    latest decision of their loops and the number of distinct decision times.

    One aggregate over scorecards, interviews and loops (the ratings only through
    EXISTS): reading a time per scorecard into Python costs seconds per million
    ratings, most of it parsing timestamps.
    """
    rated = QuestionRating.objects.filter(
        scorecard=OuterRef("pk"), not_asked=False, rating__isnull=False
    )
    rows = (
        Scorecard.objects.filter(Exists(rated), **_card_scope(role, level))
        .values(level=F("interview__loop__level_id"))
        .annotate(
            changed=Max("updated_at"),
            decided=Max("interview__loop__decided_at"),
            decisions=Count("interview__loop__decided_at", distinct=True),
        )
        .order_by()
    )
    return {
        row["level"]: {key: row[key] for key in ("changed", "decided", "decisions")} for row in rows
    }


def _card_scope(role: Role, level: Level | None) -> dict[str, Any]:
    """Return the filters of a Scorecard queryset for the scope's counted scorecards."""
    scope: dict[str, Any] = {**visibility.counted(), "interview__loop__role": role}
    if level is not None:
        scope["interview__loop__level"] = level
    return scope


ASKED = ("id", "version", "rating")


def _asked(card_ids: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the asked ratings of these scorecards (id, version, rating) and, per
    rating, its scorecard's position in `card_ids`.

    The ratings table is read alone, within the scorecards' id range, and
    ratings of other scorecards are dropped here: no join for the planner to
    get wrong (a nested loop per scorecard costs seconds per million ratings
    where statistics are missing, as after a bulk import). A rating whose
    scorecard was submitted after the scorecards were read is dropped too; the
    next run counts it, as the watermark was read before either.
    """
    if card_ids.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return {name: empty for name in ASKED}, empty
    queryset = (
        QuestionRating.objects.filter(
            not_asked=False,
            rating__isnull=False,
            scorecard_id__gte=int(card_ids.min()),
            scorecard_id__lte=int(card_ids.max()),
        )
        .values_list("scorecard_id", "pk", "version_id", "rating")
        .order_by()
    )
    table = _integers(queryset, 4)
    card, found = _positions(card_ids, table[:, 0])
    if not found.all():
        table, card = table[found], card[found]
    return {name: table[:, n + 1] for n, name in enumerate(ASKED)}, card


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


def id_codes(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
