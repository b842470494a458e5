"""The calibration job: read ratings (ratings.py), compute statistics, store a snapshot.

One code path for the Celery task, the `calibrate` command and the API. The
maths lives in scoring.calibration.stats (pure numpy); this module only moves
data.
"""

import datetime
import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from core.sql import bound_row
from core.webhooks.services import webhook_event_emit
from interviews.models import Candidate
from interviews.selectors import exposure
from kit.models import Level, Question, Role, RubricItem
from scoring import visibility
from scoring.calibration import stats, webhooks
from scoring.calibration.definitions import DEFINITIONS
from scoring.calibration.ratings import (
    Ratings,
    _codes,
    _in_scope,
    load_ratings,
    loop_scope,
    watermark,
)
from scoring.models import CalibrationSnapshot, QuestionRating

Progress = Callable[[int, str], None]


class Exposure:
    """The exposure of questions (interviews.selectors.exposure), each read once.

    A run's scopes share one: their questions overlap, and the read costs most
    of a second on a million asked questions. Counts may thus be a few seconds
    older for the last scope than a read of its own would give.
    """

    def __init__(self) -> None:
        self._seen: dict[int, tuple[int, int]] = {}
        self._read: set[int] = set()

    def of(self, question_ids: list[int]) -> dict[int, tuple[int, int]]:
        """Return {question id: (times asked in 30 days, in 90 days)}, covering `question_ids`."""
        missing = [qid for qid in question_ids if qid not in self._read]
        if missing:
            self._seen.update(exposure(missing))
            self._read.update(missing)
        return self._seen


def compute(
    role: Role,
    level: Level | None = None,
    progress: Progress | None = None,
    data: Ratings | None = None,
    *,
    seats: Sequence[visibility.OpenSeat] | None = None,
    seen: Exposure | None = None,
) -> dict[str, Any]:
    """Return the calibration snapshot body for the scope (reading its ratings unless given).

    `seats`, the role's open seats (see own_rows), and `seen`, a run's exposure
    reads, spare each scope of a run reading what they hold again.
    """
    report = progress or (lambda pct, stage: None)
    report(5, "reading ratings")
    data = load_ratings(role, level) if data is None else data
    report(35, "computing statistics")
    codes = Codes.of(data)
    # The statistics are numpy alone: they run on a second thread while this
    # one reads the names, hit rates and exposure they will be labelled with,
    # a few tenths of a second of database time on a million ratings.
    with ThreadPoolExecutor(max_workers=1) as pool:
        computing = pool.submit(summarise, data, codes=codes)
        labels = Labels.read(codes, role, level, seen or Exposure())
        body, _ = computing.result()
    report(80, "naming results")
    labels.apply(body, codes)
    body["inputs"]["scorecards"] = data.scorecards
    body["scope"] = {"role": role.name, "level": level.name if level else None}
    body["definitions"] = DEFINITIONS
    report(90, "rows for interviewers still blind")
    body["own_rows"] = own_rows(
        data, role=role, level=level, rows=body["interviewers"], seats=seats
    )
    return body


@dataclass(frozen=True)
class Codes:
    """The ratings' codes (0..n-1 per candidate, interviewer, question and loop), the
    ids behind them, how often each question was asked and each candidate's decision."""

    candidate: np.ndarray
    interviewer: np.ndarray
    question: np.ndarray
    asked: np.ndarray
    c_code: np.ndarray
    i_code: np.ndarray
    q_code: np.ndarray
    l_code: np.ndarray
    decision: np.ndarray  # per candidate code, see _candidate_decisions

    @classmethod
    def of(cls, data: Ratings) -> "Codes":
        # What a card holds is coded over the cards with ratings, then given to
        # each rating: a fifth of the entries to code.
        rated = data.rated
        on = (np.cumsum(rated) - 1)[data.card]
        cards = data.cards
        candidate_ids, c_card = _codes(cards.candidate[rated])
        interviewer_ids, i_card = _codes(cards.interviewer[rated])
        _, l_card = _codes(cards.loop[rated])
        question_ids, q_code = _codes(data.question)
        asked = np.bincount(q_code, minlength=len(question_ids))
        decision = _candidate_decisions(c_card, l_card, cards.decision[rated], len(candidate_ids))
        return cls(
            candidate_ids, interviewer_ids, question_ids, asked,
            c_card[on], i_card[on], q_code, l_card[on], decision,
        )  # fmt: skip


def summarise(
    data: Ratings, bootstrap_resamples: int | None = None, *, codes: Codes | None = None
) -> tuple[dict[str, Any], Codes]:
    """Return the statistics of `data` (codes, not names, in its rows) and the ids of its codes."""
    if codes is None:
        codes = Codes.of(data)
    n_candidates = len(codes.candidate)
    extra = {} if bootstrap_resamples is None else {"bootstrap_resamples": bootstrap_resamples}
    body = stats.summarise(
        codes.c_code,
        codes.i_code,
        codes.q_code,
        data.rating,
        loop=codes.l_code,
        decision=codes.decision,
        recommendation=data.recommendation,
        n_candidates=n_candidates,
        n_interviewers=len(codes.interviewer),
        n_questions=len(codes.question),
        rating_scale_max=data.scale_max,
        **extra,
    )
    return body, codes


def _candidate_decisions(
    c_code: np.ndarray, l_code: np.ndarray, loop_decision: np.ndarray, n_candidates: int
) -> np.ndarray:
    """Return per candidate code the decision of their first loop in scope (lowest id).

    Entries are ratings or cards: each gives a loop's candidate and decision.
    Loop codes follow loop ids, so the first loop is the lowest code.
    """
    n_loops = int(l_code.max()) + 1 if l_code.size else 0
    per_loop = np.full(n_loops, np.nan)
    per_loop[l_code] = loop_decision
    loop_candidate = np.zeros(n_loops, dtype=np.int64)
    loop_candidate[l_code] = c_code
    first = np.full(n_candidates, n_loops, dtype=np.int64)
    np.minimum.at(first, loop_candidate, np.arange(n_loops))
    return np.append(per_loop, np.nan)[first]


@dataclass(frozen=True)
class Labels:
    """What only the database knows of a body's codes: names, titles, hit rates, exposure."""

    users: dict[int, str]
    candidates: dict[int, str]
    titles: dict[int, str]
    hits: dict[int, dict[str, float]]
    asked_recently: dict[int, tuple[int, int]]

    @classmethod
    def read(cls, codes: Codes, role: Role, level: Level | None, seen: Exposure) -> "Labels":
        # The scope's loops name its candidates: a join, not tens of thousands of ids in the SQL.
        loops = (
            {"loops__role": role} if level is None else {"loops__role": role, "loops__level": level}
        )
        qids = codes.question.tolist()
        with transaction.atomic(), _serial_plans():
            return cls(
                users=_usernames(codes.interviewer),
                candidates=dict(
                    Candidate.objects.filter(**loops).values_list("pk", "name").order_by()
                ),
                titles=dict(Question.objects.filter(pk__in=qids).values_list("pk", "title")),
                hits=rubric_hit_rates(
                    qids,
                    asked=dict(zip(qids, codes.asked.tolist(), strict=True)),
                    scope=_in_scope(role, level, prefix="questionrating__"),
                ),
                asked_recently=seen.of(qids),
            )

    def apply(self, body: dict[str, Any], codes: Codes) -> None:
        """Replace the body's codes with names, and add hit rates and exposure."""
        _label_interviewers(body["interviewers"], codes.interviewer, self.users)
        for row in body["candidates"]:
            # The id too: erasure renames the candidate's rows in stored snapshots by it.
            row["candidate_id"] = int(codes.candidate[row["candidate"]])
            row["candidate"] = self.candidates[row["candidate_id"]]
        icc = body["reliability"].get("icc")
        if icc is not None:
            icc["question"] = self.titles[int(codes.question[icc["question"]])]
        for row in body["questions"]:
            qid = int(codes.question[row["question"]])
            row["question"] = self.titles[qid]
            row["question_id"] = qid
            row["rubric_hit_rates"] = self.hits.get(qid, {})
            last_30, last_90 = self.asked_recently.get(qid, (0, 0))
            row["exposure"] = {"last_30_days": last_30, "last_90_days": last_90}


@contextmanager
def _serial_plans() -> Iterator[None]:
    """Keep PostgreSQL from running the queries inside on parallel workers (in a transaction).

    Labels are read while the statistics run on two threads of this process:
    workers would only take the same cores from them. The exposure count scans
    every question asked in 90 days (a million on the bench) and took three
    processes for 0.25 s each, against one for 0.43 s without them. The setting
    is put back on the way out (a savepoint keeps SET LOCAL until the whole
    transaction ends) and undone by the rollback when the block fails.
    """
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT current_setting('{PARALLEL_WORKERS}')")
        (before,) = cursor.fetchone()
        cursor.execute(f"SET LOCAL {PARALLEL_WORKERS} = 0")
    yield
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [PARALLEL_WORKERS, before])


PARALLEL_WORKERS = "max_parallel_workers_per_gather"


def name_interviewers(rows: list[dict[str, Any]], interviewer_ids: np.ndarray) -> None:
    """Give interviewer rows their user's id and username in place of the code."""
    _label_interviewers(rows, interviewer_ids, _usernames(interviewer_ids))


def _usernames(interviewer_ids: np.ndarray) -> dict[int, str]:
    return dict(User.objects.filter(pk__in=interviewer_ids.tolist()).values_list("pk", "username"))


def _label_interviewers(
    rows: list[dict[str, Any]], interviewer_ids: np.ndarray, users: dict[int, str]
) -> None:
    for row in rows:
        row["interviewer_id"] = int(interviewer_ids[row["interviewer"]])
        row["interviewer"] = users[row["interviewer_id"]]


def own_rows(
    data: Ratings,
    *,
    role: Role,
    level: Level | None,
    rows: list[dict[str, Any]],
    seats: Sequence[visibility.OpenSeat] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return, per user still blind in loops of the scope, the interviewer row they read.

    A blind panelist's own figures must not move when a co-panelist's card lands,
    or their leniency would give the co-panelists' ratings back. So for each user
    with an open seat (see scoring.visibility):

    1. the loops where they are blind are left out of the ratings;
    2. the statistics are computed again over the rest (once per distinct set of
       loops: co-panelists blind in the same loop share the run), without the
       alpha bootstrap, which no interviewer row uses;
    3. their row from that run is kept, with the loops it leaves out (`blind_in`),
       so a reader can tell when the row was computed before they took a seat.

    Keys are user ids as text (JSON objects have text keys); `row` is None when
    nothing of theirs is left. `seats` are the role's open seats, as the run's
    watermarks read and digested them (ratings.Watermarks.seats); read when not given.
    """
    if seats is None:
        seats = visibility.open_seats(loop_scope(role, level))
    blind_in = visibility.blind_loops_of(seats, level=level.pk if level else None)
    present = set(np.unique(data.cards.loop[data.rated]).tolist())
    by_set: dict[frozenset[int], dict[int, dict[str, Any]]] = {}
    mine = {row["interviewer_id"]: row for row in rows}
    out: dict[str, dict[str, Any]] = {}
    for user_id, loops in sorted(blind_in.items()):
        left_out = loops & present
        if not left_out:
            row = mine.get(user_id)
        else:
            if left_out not in by_set:
                body, codes = summarise(data.without_loops(left_out), bootstrap_resamples=0)
                name_interviewers(body["interviewers"], codes.interviewer)
                by_set[left_out] = {r["interviewer_id"]: r for r in body["interviewers"]}
            row = by_set[left_out].get(user_id)
        if row is not None and not row["ratings"]:
            row = None
        out[str(user_id)] = {"blind_in": sorted(loops), "row": row}
    return out


def rubric_hit_rates(
    question_ids: list[int], *, asked: dict[int, int], scope: Q
) -> dict[int, dict[str, float]]:
    """Return {question id: {rubric item text: share of the scope's ratings that ticked it}}.

    `asked` counts the scope's ratings per question; `scope` selects them from
    the rubric-ticks table (see _in_scope's prefix).
    """
    through = QuestionRating.checked.through
    ticked = (
        through.objects.filter(scope, questionrating__version__question_id__in=question_ids)
        .values_list("questionrating__version__question_id", "rubricitem__text")
        .annotate(n=Count("id"))
        .order_by()
    )
    # Imported histories tick nothing: then skip the join over the scope's
    # ratings, which without planner statistics takes seconds to find nothing.
    if not through.objects.filter(rubricitem__version__question_id__in=question_ids).exists():
        ticked = ticked.none()
    rates: dict[int, dict[str, float]] = {}
    # Items nobody ticked matter most: start every rated version's items at zero.
    items = (
        RubricItem.objects.filter(version__question_id__in=question_ids)
        .values_list("version__question_id", "text")
        .distinct()
    )
    for qid, text in items:
        rates.setdefault(qid, {})[text] = 0.0
    for qid, text, n in ticked:
        rates.setdefault(qid, {})[text] = round(n / asked[qid], 4) if asked.get(qid) else 0.0
    return rates


def stored(role: Role, level: Level | None, mark: str) -> CalibrationSnapshot | None:
    return CalibrationSnapshot.objects.filter(role=role, level=level, watermark=mark).first()


def snapshot_store(
    *,
    role: Role,
    level: Level | None = None,
    progress: Progress | None = None,
    data: Ratings | None = None,
    mark: str | None = None,
    same_as: dict[str, Any] | None = None,
    seats: Sequence[visibility.OpenSeat] | None = None,
    seen: Exposure | None = None,
    computed: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[CalibrationSnapshot, bool]:
    """Compute and store the scope's snapshot unless one exists for the same inputs.

    Returns (snapshot, created). The watermark is read before computing: if
    ratings arrive meanwhile, the next run sees a new watermark and stores again.
    `data`, the role's ratings already loaded, saves reading them per level;
    `same_as`, a body computed from exactly the same ratings, saves computing it again.
    `seats` and `seen`, the run's open seats and exposure reads, are shared by its
    scopes (see compute); `seats` must be those `mark` digests. `computed` is
    given the body, complete, before it is stored (and only when it is computed).
    """
    mark = mark or watermark(role, level)
    existing = stored(role, level, mark)
    if existing is not None:
        return existing, False
    if same_as is not None:
        if progress:
            progress(100, "same ratings as all levels")
        body = {**same_as, "scope": {"role": role.name, "level": level.name if level else None}}
    else:
        scoped = data.only(level) if data is not None else None
        body = compute(role, level, progress, scoped, seats=seats, seen=seen)
    now = timezone.now()
    body["computed_at"] = now.isoformat()
    body["watermark"] = mark
    if computed is not None and same_as is None:
        computed(body)
    try:
        with transaction.atomic():
            _compress_fast()
            snapshot = _stored_copy(same_as, body, role=role, level=level, now=now)
            if snapshot is None:
                snapshot = _stored(body, role=role, level=level, now=now)
            webhook_event_emit(kind="calibration.completed", payload=webhooks.snapshot(snapshot))
    except IntegrityError:
        # Another run stored the same inputs first (a redelivered task): keep theirs.
        return CalibrationSnapshot.objects.get(role=role, level=level, watermark=mark), False
    return snapshot, True


def can_store_elsewhere() -> bool:
    """Whether a snapshot may be stored on another thread's connection: PostgreSQL,
    outside a transaction (another connection sees only what is committed)."""
    return connection.vendor == "postgresql" and connection.get_autocommit()


def snapshot_store_elsewhere(**kwargs: Any) -> tuple[CalibrationSnapshot, bool]:
    """Run snapshot_store on this thread's own connection, closed after: for a pool
    thread, whose connection nothing else would close (see can_store_elsewhere)."""
    try:
        return snapshot_store(**kwargs)
    finally:
        connection.close()


def _stored(
    body: dict[str, Any], *, role: Role, level: Level | None, now: datetime.datetime
) -> CalibrationSnapshot:
    """Store `body` (holding its watermark) as a new snapshot computed at `now`.

    On PostgreSQL its JSON is a parameter bound on the server (core.sql.bound_row),
    not text spliced into the statement: a large role's megabytes are parsed
    once, as JSON (0.36 -> 0.25 s for 11 MB, encoding included). orjson encodes
    the body: the same JSON (json.loads reads the same dict back), 0.15 s sooner
    for 11 MB than the standard library.
    """
    if connection.vendor != "postgresql":
        return CalibrationSnapshot.objects.create(
            role=role, level=level, watermark=body["watermark"], result=body
        )
    table = CalibrationSnapshot._meta.db_table
    (pk,) = bound_row(
        f"INSERT INTO {table} (role_id, level_id, watermark, computed_at, result) "
        "VALUES (%s, %s, %s, %s, %s::jsonb) RETURNING id",
        [
            role.pk,
            level.pk if level else None,
            body["watermark"],
            now,
            orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY).decode(),
        ],
    )
    return CalibrationSnapshot(
        pk=pk, role=role, level=level, watermark=body["watermark"], computed_at=now, result=body
    )


def _compress_fast() -> None:
    """Have PostgreSQL compress the values this transaction stores with lz4 where it can.

    A large role's result is megabytes of JSON: pglz, the default, spends about
    twice as long on it as lz4 (PostgreSQL 14 and later, when built with it),
    both to store it and to copy it for a level. Reading either is transparent.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config(name, 'lz4', true) FROM pg_settings "
            "WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
        )


def _stored_copy(
    source: dict[str, Any] | None,
    body: dict[str, Any],
    *,
    role: Role,
    level: Level | None,
    now: datetime.datetime,
) -> CalibrationSnapshot | None:
    """Store `body`, the stored result `source` with a new scope, time and watermark, as a copy.

    On PostgreSQL the source row's result is copied inside the database with
    those three keys replaced: the megabytes of a large role's result are
    neither serialised nor parsed again. None (store as usual) elsewhere or
    when the source row is not found.
    """
    if source is None or connection.vendor != "postgresql":
        return None
    source_level = (source.get("scope") or {}).get("level")
    found = CalibrationSnapshot.objects.filter(
        role=role,
        watermark=source.get("watermark"),
        result__computed_at=source.get("computed_at"),
    )
    if source_level is None:
        found = found.filter(level__isnull=True)
    else:
        found = found.filter(level__name=source_level)
    source_pk = found.values_list("pk", flat=True).first()
    if source_pk is None:
        return None
    changed = {key: body[key] for key in ("scope", "computed_at", "watermark")}
    table = CalibrationSnapshot._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (role_id, level_id, watermark, computed_at, result) "
            f"SELECT %s, %s, %s, %s, result || %s::jsonb FROM {table} WHERE id = %s "
            "RETURNING id",
            [role.pk, level.pk if level else None, body["watermark"], now, json.dumps(changed),
             source_pk],
        )  # fmt: skip
        (pk,) = cursor.fetchone()
    return CalibrationSnapshot(
        pk=pk, role=role, level=level, watermark=body["watermark"], computed_at=now, result=body
    )
