"""The calibration job: read ratings, compute statistics, store a snapshot.

One code path for the Celery task, the `calibrate` command and the API. The
maths lives in scoring.stats (pure numpy); this module only moves data.
"""

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import BigIntegerField, Case, Count, Max, Q, QuerySet, Value, When
from django.db.models.functions import Cast
from django.utils import timezone

from interviews.models import Candidate, Loop
from interviews.selectors import exposure
from kit.models import Level, Question, Role, RubricItem
from scoring import stats
from scoring.models import CalibrationSnapshot, QuestionRating, Scorecard

Progress = Callable[[int, str], None]
RECOMMENDATION_SCORE = {"strong_no": -2.0, "no": -1.0, "yes": 1.0, "strong_yes": 2.0}
DECISION_SCORE = {"hire": 1.0, "no_hire": 0.0}


def _in_scope(role: Role, level: Level | None, prefix: str = "") -> Q:
    """Ratings that count: submitted, not a shadow's, asked, in the role (and level).

    `prefix` reaches QuestionRating from another model (e.g. "questionrating__").
    """
    conditions = {
        "scorecard__status": Scorecard.Status.SUBMITTED,
        "scorecard__is_shadow": False,
        "not_asked": False,
        "rating__isnull": False,
        "scorecard__interview__loop__role": role,
    }
    if level is not None:
        conditions["scorecard__interview__loop__level"] = level
    return Q(**{prefix + key: value for key, value in conditions.items()})


def watermarks(role: Role) -> dict[int | None, str]:
    """Return the watermark of the role (key None) and of each level with ratings, in one query."""
    rows = list(
        QuestionRating.objects.filter(_in_scope(role, None))
        .values("scorecard__interview__loop__level_id")
        .annotate(
            n=Count("id"),
            last=Max("id"),
            changed=Max("scorecard__updated_at"),
            decided=Max("scorecard__interview__loop__decided_at"),
            decisions=Count("scorecard__interview__loop__decided_at", distinct=True),
        )
        .order_by()
    )
    marks: dict[int | None, str] = {
        row["scorecard__interview__loop__level_id"]: _mark(row) for row in rows
    }
    if rows:
        # Decisions are per loop and loops have one level, so the counts add up.
        total = {
            "n": sum(r["n"] for r in rows),
            "last": max(r["last"] for r in rows),
            "changed": max(r["changed"] for r in rows),
            "decided": max((r["decided"] for r in rows if r["decided"]), default=None),
            "decisions": sum(r["decisions"] for r in rows),
        }
        marks[None] = _mark(total)
    else:
        marks[None] = _mark(
            {"n": 0, "last": None, "changed": None, "decided": None, "decisions": 0}
        )
    return marks


def _mark(row: dict[str, Any]) -> str:
    parts = [row["n"], row["last"], row["changed"], row["decided"], row["decisions"]]
    return "|".join(_text(part) for part in parts)


def watermark(role: Role, level: Level | None = None) -> str:
    """Return a string that changes whenever the inputs of the scope change (one query)."""
    row = QuestionRating.objects.filter(_in_scope(role, level)).aggregate(
        n=Count("id"),
        last=Max("id"),
        changed=Max("scorecard__updated_at"),
        decided=Max("scorecard__interview__loop__decided_at"),
        decisions=Count("scorecard__interview__loop__decided_at", distinct=True),
    )
    return _mark(row)


def _text(value: object) -> str:
    if value is None:
        return "-"
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


@dataclass
class Ratings:
    """The scope's ratings as parallel numpy arrays, one entry per rating."""

    candidate: np.ndarray
    interviewer: np.ndarray
    question: np.ndarray
    rating: np.ndarray
    loop: np.ndarray
    recommendation: np.ndarray
    scale_max: np.ndarray
    scorecard: np.ndarray
    level: np.ndarray

    @property
    def scorecards(self) -> int:
        return int(np.unique(self.scorecard).size)

    def only(self, level: Level | None) -> "Ratings":
        """Return the ratings of one level (all of them for None)."""
        if level is None:
            return self
        keep = self.level == level.pk
        return Ratings(**{name: getattr(self, name)[keep] for name in COLUMNS})


# The columns load_ratings reads, in order; all numeric so they stream into one array.
COLUMNS = (
    "candidate", "interviewer", "question", "rating", "loop", "recommendation",
    "scale_max", "scorecard", "level",
)  # fmt: skip


def load_ratings(role: Role, level: Level | None = None) -> Ratings:
    """Read every rating in scope with one streaming query, straight into numpy.

    No model object per row: every column is cast to bigint in SQL, so on
    PostgreSQL the rows come out of a binary COPY as fixed-size records that
    numpy reads in one call; elsewhere a raw cursor fills arrays in chunks. A
    recommendation is scored -2, -1, 1, 2 in SQL; 0 (none) becomes NaN here.
    """
    recommendation = Cast(
        Case(
            *[When(scorecard__recommendation=key, then=Value(int(score))) for key, score in
              RECOMMENDATION_SCORE.items()],
            default=Value(0),
        ),
        BigIntegerField(),
    )  # fmt: skip
    paths = {
        "candidate": "scorecard__interview__loop__candidate_id",
        "interviewer": "scorecard__interviewer_id",
        "question": "item__question_id",
        "rating": "rating",
        "loop": "scorecard__interview__loop_id",
        "scale_max": "version__scale_max",
        "scorecard": "scorecard_id",
        "level": "scorecard__interview__loop__level_id",
    }
    casts = {f"c_{name}": Cast(path, BigIntegerField()) for name, path in paths.items()}
    rows = (
        QuestionRating.objects.filter(_in_scope(role, level))
        .annotate(c_recommendation=recommendation, **casts)
        .values_list(*[f"c_{name}" for name in COLUMNS])
        .order_by()
    )
    table = _integer_table(rows, len(COLUMNS))
    arrays = {name: table[:, n] for n, name in enumerate(COLUMNS)}
    for name in ("rating", "recommendation", "scale_max"):
        arrays[name] = arrays[name].astype(np.float64)
    arrays["recommendation"][arrays["recommendation"] == 0] = np.nan
    return Ratings(**arrays)


# PostgreSQL's binary COPY: an 11-byte signature, flags and extension length,
# then per row a field count and, per field, a length and the value; a trailer.
_COPY_HEADER = 19
_COPY_TRAILER = 2


def _integer_table(queryset: QuerySet, width: int) -> np.ndarray:
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            buffer = io.BytesIO()
            with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
                for block in copy:
                    buffer.write(block)
            body = buffer.getbuffer()[_COPY_HEADER:-_COPY_TRAILER]
            record = np.dtype(
                [("fields", ">i2")]
                + [item for n in range(width) for item in ((f"len{n}", ">i4"), (f"v{n}", ">i8"))]
            )
            records = np.frombuffer(body, dtype=record)
            return np.column_stack([records[f"v{n}"].astype(np.int64) for n in range(width)])
        cursor.execute(sql, params)
        chunks = [np.zeros((0, width), dtype=np.int64)]
        while batch := cursor.fetchmany(50_000):
            chunks.append(np.asarray(batch, dtype=np.int64))
        return np.concatenate(chunks)


def _codes(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (distinct ids, code per entry) with codes 0..n-1."""
    return np.unique(ids, return_inverse=True)


def compute(
    role: Role,
    level: Level | None = None,
    progress: Progress | None = None,
    data: Ratings | None = None,
) -> dict[str, Any]:
    """Return the calibration snapshot body for the scope (reading its ratings unless given)."""
    report = progress or (lambda pct, stage: None)
    report(5, "reading ratings")
    data = load_ratings(role, level) if data is None else data
    candidate_ids, c_code = _codes(data.candidate)
    interviewer_ids, i_code = _codes(data.interviewer)
    question_ids, q_code = _codes(data.question)
    loop_ids, l_code = _codes(data.loop)
    report(35, "computing statistics")
    decisions = dict(
        Loop.objects.filter(pk__in=loop_ids.tolist()).values_list("candidate_id", "decision")
    )
    decision = np.array(
        [DECISION_SCORE.get(decisions.get(int(cid), ""), np.nan) for cid in candidate_ids]
    )
    scale = np.full(len(question_ids), np.nan)
    scale[q_code] = data.scale_max
    body = stats.summarise(
        c_code,
        i_code,
        q_code,
        data.rating,
        loop=l_code,
        decision=decision,
        recommendation=data.recommendation,
        n_candidates=len(candidate_ids),
        n_interviewers=len(interviewer_ids),
        n_questions=len(question_ids),
        scale_max=scale,
    )
    report(80, "naming results")
    asked = np.bincount(q_code, minlength=len(question_ids))
    _name(
        body, candidate_ids, interviewer_ids, question_ids, asked,
        _in_scope(role, level, prefix="questionrating__"),
    )  # fmt: skip
    body["inputs"]["scorecards"] = data.scorecards
    body["scope"] = {"role": role.name, "level": level.name if level else None}
    return body


def _name(
    body: dict[str, Any],
    candidate_ids: np.ndarray,
    interviewer_ids: np.ndarray,
    question_ids: np.ndarray,
    asked: np.ndarray,
    scope: Q,
) -> None:
    """Replace codes with names and add what only the database knows (hit rates, exposure)."""
    users = dict(User.objects.filter(pk__in=interviewer_ids.tolist()).values_list("pk", "username"))
    for row in body["interviewers"]:
        row["interviewer"] = users[int(interviewer_ids[row["interviewer"]])]
    names = dict(Candidate.objects.filter(pk__in=candidate_ids.tolist()).values_list("pk", "name"))
    for row in body["candidates"]:
        row["candidate"] = names[int(candidate_ids[row["candidate"]])]
    qids = question_ids.tolist()
    titles = dict(Question.objects.filter(pk__in=qids).values_list("pk", "title"))
    icc = body["reliability"].get("icc")
    if icc is not None:
        icc["question"] = titles[int(question_ids[icc["question"]])]
    hits = rubric_hit_rates(qids, asked=dict(zip(qids, asked.tolist(), strict=True)), scope=scope)
    seen = exposure(qids)
    for row in body["questions"]:
        qid = int(question_ids[row["question"]])
        row["question"] = titles[qid]
        row["question_id"] = qid
        row["rubric_hit_rates"] = hits.get(qid, {})
        last_30, last_90 = seen.get(qid, (0, 0))
        row["exposure"] = {"last_30_days": last_30, "last_90_days": last_90}


def rubric_hit_rates(
    question_ids: list[int], *, asked: dict[int, int], scope: Q
) -> dict[int, dict[str, float]]:
    """Return {question id: {rubric item text: share of the scope's ratings that ticked it}}.

    `asked` counts the scope's ratings per question; `scope` selects them from
    the rubric-ticks table (see _in_scope's prefix).
    """
    through = QuestionRating.checked.through
    ticked = (
        through.objects.filter(scope, questionrating__item__question_id__in=question_ids)
        .values_list("questionrating__item__question_id", "rubricitem__text")
        .annotate(n=Count("id"))
        .order_by()
    )
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
) -> tuple[CalibrationSnapshot, bool]:
    """Compute and store the scope's snapshot unless one exists for the same inputs.

    Returns (snapshot, created). The watermark is read before computing: if
    ratings arrive meanwhile, the next run sees a new watermark and stores again.
    `data`, the role's ratings already loaded, saves reading them per level;
    `same_as`, a body computed from exactly the same ratings, saves computing it again.
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
        body = compute(role, level, progress, data.only(level) if data is not None else None)
    body["computed_at"] = timezone.now().isoformat()
    body["watermark"] = mark
    try:
        with transaction.atomic():
            snapshot = CalibrationSnapshot.objects.create(
                role=role, level=level, watermark=mark, result=body
            )
    except IntegrityError:
        # Another run stored the same inputs first (a redelivered task): keep theirs.
        return CalibrationSnapshot.objects.get(role=role, level=level, watermark=mark), False
    return snapshot, True
