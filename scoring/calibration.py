"""The calibration job: read ratings, compute statistics, store a snapshot.

One code path for the Celery task, the `calibrate` command and the API. The
maths lives in scoring.stats (pure numpy); this module only moves data.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from interviews.models import Candidate, Loop
from interviews.selectors import exposure
from kit.models import Level, Question, Role, RubricItem
from scoring import stats
from scoring.models import CalibrationSnapshot, QuestionRating, Scorecard

Progress = Callable[[int, str], None]
RECOMMENDATION_SCORE = {"strong_no": -2.0, "no": -1.0, "yes": 1.0, "strong_yes": 2.0}
DECISION_SCORE = {"hire": 1.0, "no_hire": 0.0}


def _in_scope(role: Role, level: Level | None) -> Q:
    """Ratings that count: submitted, not a shadow's, asked, in the role (and level)."""
    scope = Q(
        scorecard__status=Scorecard.Status.SUBMITTED,
        scorecard__is_shadow=False,
        not_asked=False,
        rating__isnull=False,
        scorecard__interview__loop__role=role,
    )
    if level is not None:
        scope &= Q(scorecard__interview__loop__level=level)
    return scope


def watermark(role: Role, level: Level | None = None) -> str:
    """Return a string that changes whenever the inputs of the scope change (one query)."""
    row = QuestionRating.objects.filter(_in_scope(role, level)).aggregate(
        n=Count("id"),
        last=Max("id"),
        changed=Max("scorecard__updated_at"),
        decided=Max("scorecard__interview__loop__decided_at"),
        decisions=Count("scorecard__interview__loop__decided_at", distinct=True),
    )
    parts = [row["n"], row["last"], row["changed"], row["decided"], row["decisions"]]
    return "|".join(_text(part) for part in parts)


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
    scorecards: int


def load_ratings(role: Role, level: Level | None = None) -> Ratings:
    """Read every rating in scope with one streaming query of plain tuples (no model objects)."""
    rows = (
        QuestionRating.objects.filter(_in_scope(role, level))
        .values_list(
            "scorecard__interview__loop__candidate_id",
            "scorecard__interviewer_id",
            "item__question_id",
            "rating",
            "scorecard__interview__loop_id",
            "scorecard__recommendation",
            "version__scale_max",
            "scorecard_id",
        )
        .order_by()
    )
    data = list(rows.iterator(chunk_size=20_000))
    if not data:
        empty = np.zeros(0, dtype=np.int64)
        return Ratings(empty, empty, empty, np.zeros(0), empty, np.zeros(0), np.zeros(0), 0)
    columns = list(zip(*data, strict=True))
    recommendation = np.array(
        [RECOMMENDATION_SCORE.get(r, np.nan) for r in columns[5]], dtype=np.float64
    )
    return Ratings(
        candidate=np.asarray(columns[0], dtype=np.int64),
        interviewer=np.asarray(columns[1], dtype=np.int64),
        question=np.asarray(columns[2], dtype=np.int64),
        rating=np.asarray(columns[3], dtype=np.float64),
        loop=np.asarray(columns[4], dtype=np.int64),
        recommendation=recommendation,
        scale_max=np.asarray(columns[6], dtype=np.float64),
        scorecards=len(set(columns[7])),
    )


def _codes(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (distinct ids, code per entry) with codes 0..n-1."""
    return np.unique(ids, return_inverse=True)


def compute(
    role: Role, level: Level | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Return the calibration snapshot body for the scope."""
    report = progress or (lambda pct, stage: None)
    report(5, "reading ratings")
    data = load_ratings(role, level)
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
    _name(body, candidate_ids, interviewer_ids, question_ids)
    body["inputs"]["scorecards"] = data.scorecards
    body["scope"] = {"role": role.name, "level": level.name if level else None}
    return body


def _name(
    body: dict[str, Any],
    candidate_ids: np.ndarray,
    interviewer_ids: np.ndarray,
    question_ids: np.ndarray,
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
    hits = rubric_hit_rates(qids)
    seen = exposure(qids)
    for row in body["questions"]:
        qid = int(question_ids[row["question"]])
        row["question"] = titles[qid]
        row["question_id"] = qid
        row["rubric_hit_rates"] = hits.get(qid, {})
        last_30, last_90 = seen.get(qid, (0, 0))
        row["exposure"] = {"last_30_days": last_30, "last_90_days": last_90}


def rubric_hit_rates(question_ids: list[int]) -> dict[int, dict[str, float]]:
    """Return {question id: {rubric item text: share of submitted ratings that ticked it}}."""
    asked = dict(
        QuestionRating.objects.filter(
            item__question_id__in=question_ids,
            scorecard__status=Scorecard.Status.SUBMITTED,
            not_asked=False,
        )
        .values_list("item__question_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    through = QuestionRating.checked.through
    ticked = (
        through.objects.filter(
            questionrating__item__question_id__in=question_ids,
            questionrating__scorecard__status=Scorecard.Status.SUBMITTED,
            questionrating__not_asked=False,
        )
        .values_list("questionrating__item__question_id", "rubricitem__text")
        .annotate(n=Count("id"))
        .order_by()
    )
    rates: dict[int, dict[str, float]] = {}
    # Items nobody ticked matter most: start every rated version's items at zero.
    items = (
        RubricItem.objects.filter(version__ratings__item__question_id__in=question_ids)
        .values_list("version__question_id", "text")
        .distinct()
    )
    for qid, text in items:
        rates.setdefault(qid, {})[text] = 0.0
    for qid, text, n in ticked:
        rates.setdefault(qid, {})[text] = round(n / asked[qid], 4) if asked.get(qid) else 0.0
    return rates


def snapshot_store(
    *, role: Role, level: Level | None = None, progress: Progress | None = None
) -> tuple[CalibrationSnapshot, bool]:
    """Compute and store the scope's snapshot unless one exists for the same inputs.

    Returns (snapshot, created). The watermark is read before computing: if
    ratings arrive meanwhile, the next run sees a new watermark and stores again.
    """
    mark = watermark(role, level)
    existing = CalibrationSnapshot.objects.filter(role=role, level=level, watermark=mark).first()
    if existing is not None:
        return existing, False
    body = compute(role, level, progress)
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
