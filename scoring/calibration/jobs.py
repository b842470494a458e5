"""The calibration job: read ratings (ratings.py), compute statistics, store a snapshot.

One code path for the Celery task, the `calibrate` command and the API. The
maths lives in scoring.calibration.stats (pure numpy); this module only moves
data.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from core.webhooks.services import webhook_event_emit
from interviews.models import Candidate
from interviews.selectors import exposure
from kit.models import Level, Question, Role, RubricItem
from scoring import visibility
from scoring.calibration import stats, webhooks
from scoring.calibration.definitions import DEFINITIONS
from scoring.calibration.ratings import (
    Ratings,
    id_codes,
    in_scope,
    load_ratings,
    loop_scope,
    watermark,
)
from scoring.calibration.stats.periods import Period
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
    period = stated_period(data)
    body, codes = summarise(data, period=period)
    report(80, "naming results")
    labels = Labels.read(codes, role, level, seen or Exposure())
    labels.apply(body, codes)
    body["inputs"]["scorecards"] = data.scorecards
    body["scope"] = scope_of(role, level, period)
    body["definitions"] = DEFINITIONS
    report(90, "rows for interviewers still blind")
    body["own_rows"] = own_rows(
        data, role=role, level=level, rows=body["interviewers"], seats=seats, period=period
    )
    stamp_period(body["interviewers"], period)
    return body


def stamp_period(rows: list[dict[str, Any]], period: Period | None) -> None:
    """Say on each row the period its figures describe."""
    if period is None:
        return
    bounds = period.as_json()
    for row in rows:
        row["period"] = {"start": bounds["start"], "end": bounds["end"]}


def stated_period(data: Ratings) -> Period | None:
    """Return the period severities describe: CALIBRATION_PERIOD_MONTHS up to the scope's
    newest interview (None without ratings). Ending at the newest interview, not today,
    keeps a snapshot a function of its ratings, as its watermark says it is."""
    return Period.of(data.cards.time[data.rated], settings.CALIBRATION_PERIOD_MONTHS)


def scope_of(role: Role, level: Level | None, period: Period | None) -> dict[str, Any]:
    """Return the snapshot's `scope`: role, level, the stated period and, for a level,
    that its flags are exploratory (each snapshot adjusts for its own tests only)."""
    scope: dict[str, Any] = {"role": role.name, "level": level.name if level else None}
    scope["period"] = None if period is None else period.as_json()
    scope["flags"] = "exploratory" if level is not None else "confirmatory"
    return scope


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
        candidate_ids, c_card = id_codes(cards.candidate[rated])
        interviewer_ids, i_card = id_codes(cards.interviewer[rated])
        _, l_card = id_codes(cards.loop[rated])
        question_ids, q_code = id_codes(data.question)
        asked = np.bincount(q_code, minlength=len(question_ids))
        decision = _candidate_decisions(c_card, l_card, cards.decision[rated], len(candidate_ids))
        return cls(
            candidate_ids, interviewer_ids, question_ids, asked,
            c_card[on], i_card[on], q_code, l_card[on], decision,
        )  # fmt: skip


def summarise(
    data: Ratings,
    bootstrap_resamples: int | None = None,
    *,
    codes: Codes | None = None,
    period: Period | None = None,
) -> tuple[dict[str, Any], Codes]:
    """Return the statistics of `data` (codes, not names, in its rows) and the ids of its codes.

    With `period`, interviewer figures describe it (stats.periods); without, all ratings.
    """
    if codes is None:
        codes = Codes.of(data)
    n_candidates = len(codes.candidate)
    extra: dict[str, Any] = (
        {} if bootstrap_resamples is None else {"bootstrap_resamples": bootstrap_resamples}
    )
    if period is not None:
        # Coded per card, then given to each rating, as the other card fields are.
        extra["period"] = period.code(data.cards.time)[data.card]
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
        return cls(
            users=_usernames(codes.interviewer),
            candidates=dict(Candidate.objects.filter(**loops).values_list("pk", "name").order_by()),
            titles=dict(Question.objects.filter(pk__in=qids).values_list("pk", "title")),
            hits=rubric_hit_rates(
                qids,
                asked=dict(zip(qids, codes.asked.tolist(), strict=True)),
                scope=in_scope(role, level, prefix="questionrating__"),
            ),
            asked_recently=seen.of(qids),
        )

    def apply(self, body: dict[str, Any], codes: Codes) -> None:
        """Replace the body's codes with names, and add hit rates and exposure."""
        names = self._name_groups(body, codes)
        for row in body["interviewers"]:
            if row.get("compared_within"):
                row["compared_within"]["names"] = names.get(row["compared_within"]["group"], [])
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

    def _name_groups(self, body: dict[str, Any], codes: Codes) -> dict[int, list[str]]:
        """Give the estimability groups their interviewers' usernames and the questions
        only they ask (else every question they ask); return each group's usernames."""
        named: dict[int, list[str]] = {}
        for group in body["model"]["estimability"]["groups"]:
            members = group["interviewers"]
            ids = [int(codes.interviewer[code]) for code in members]
            mine = np.isin(codes.i_code, members)
            asked = set(np.unique(codes.q_code[mine]).tolist())
            only = asked - set(np.unique(codes.q_code[~mine]).tolist())
            qids = [int(codes.question[q]) for q in sorted(only or asked)]
            group["interviewers"] = [self.users[pk] for pk in ids]
            group["interviewer_ids"] = ids
            group["questions"] = [self.titles[pk] for pk in qids if pk in self.titles]
            group["questions_only_theirs"] = bool(only)
            named[group["group"]] = group["interviewers"]
        return named


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
    period: Period | None = None,
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
                # The period too is the rest's: the scope's ends at the newest
                # interview, which may be the very loop they are blind in.
                rest = data.without_loops(left_out)
                rest_period = stated_period(rest) if period is not None else None
                body, codes = summarise(rest, bootstrap_resamples=0, period=rest_period)
                name_interviewers(body["interviewers"], codes.interviewer)
                stamp_period(body["interviewers"], rest_period)
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
    the rubric-ticks table (see in_scope's prefix).
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
    """Return the scope's snapshot of these inputs, its result read only when used: a run
    asks for each scope's twice, and on unchanged inputs (most of a nightly run) reading
    the 11.6 MB results of bench/calibrate.py's role and level took 3-4 s of 6."""
    found = CalibrationSnapshot.objects.filter(role=role, level=level, watermark=mark)
    return found.defer("result").first()


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
) -> tuple[CalibrationSnapshot, bool]:
    """Compute and store the scope's snapshot unless one exists for the same inputs.

    Returns (snapshot, created). The watermark is read before computing: if
    ratings arrive meanwhile, the next run sees a new watermark and stores again.
    `data`, the role's ratings already loaded, saves reading them per level;
    `same_as`, a body computed from exactly the same ratings, saves computing it again.
    `seats` and `seen`, the run's open seats and exposure reads, are shared by its
    scopes (see compute); `seats` must be those `mark` digests.
    """
    mark = mark or watermark(role, level)
    existing = stored(role, level, mark)
    if existing is not None:
        return existing, False
    if same_as is not None:
        if progress:
            progress(100, "same ratings as all levels")
        same_scope = same_as.get("scope") or {}
        body = {**same_as, "scope": {**same_scope, **scope_of(role, level, None)}}
        body["scope"]["period"] = same_scope.get("period")
    else:
        scoped = data.only(level) if data is not None else None
        body = compute(role, level, progress, scoped, seats=seats, seen=seen)
    now = timezone.now()
    body["computed_at"] = now.isoformat()
    body["watermark"] = mark
    try:
        with transaction.atomic():
            snapshot = CalibrationSnapshot.objects.create(
                role=role, level=level, watermark=mark, result=body
            )
            webhook_event_emit(kind="calibration.completed", payload=webhooks.snapshot(snapshot))
    except IntegrityError:
        # Another run stored the same inputs first (a redelivered task): keep theirs.
        return CalibrationSnapshot.objects.get(role=role, level=level, watermark=mark), False
    return snapshot, True
