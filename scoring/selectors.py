"""Reads for scorecards and debriefs, with the blind-feedback rule built in.

Blind feedback: an interviewer on a loop sees no other scorecard of that loop
until they have submitted every scorecard they owe in it; drafts are only ever
seen by their author; recruiters see all submitted scorecards.
"""

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.fields.json import KT
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from config import sql
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, Level, Role, RubricItem
from kit.permissions import is_lead, is_recruiter
from scoring.calibration import stats
from scoring.models import (
    Amendment,
    CalibrationExercise,
    CalibrationJob,
    CalibrationSnapshot,
    ExerciseRating,
    QuestionRating,
    ReferenceAnswer,
    Scorecard,
)

User = AbstractBaseUser | AnonymousUser


PANEL_USERS = Prefetch("panel", queryset=Panelist.objects.select_related("user"))


def _with_ratings(scorecards: QuerySet[Scorecard]) -> QuerySet[Scorecard]:
    return scorecards.select_related(
        "interviewer",
        "interview__loop__candidate",
        "interview__loop__role",
        "interview__loop__level",
    ).prefetch_related(
        Prefetch(
            "ratings",
            queryset=QuestionRating.objects.select_related("item__question", "version")
            .prefetch_related("checked", "follow_ups_asked")
            .order_by("item__order"),
        ),
        Prefetch("amendments", queryset=Amendment.objects.select_related("by")),
    )


def seats_with_submitted(seats: QuerySet[Panelist]) -> QuerySet[Panelist]:
    """Annotate each seat with whether its holder has submitted the interview's card."""
    return seats.annotate(
        submitted=Exists(
            Scorecard.objects.filter(
                interview=OuterRef("interview"),
                interviewer=OuterRef("user"),
                status=Scorecard.Status.SUBMITTED,
            )
        )
    )


def _nothing_owed(submitted: list[bool]) -> bool:
    """The blind rule's test, given whether each of the user's seats in a loop is submitted."""
    return bool(submitted) and all(submitted)


def owes_nothing(*, user: User, loop: Loop) -> bool:
    """Return whether the user has submitted a scorecard for every seat they hold in the loop."""
    seats = seats_with_submitted(Panelist.objects.filter(interview__loop=loop, user=user))  # type: ignore[misc]
    return _nothing_owed(list(seats.values_list("submitted", flat=True)))


def is_blind(*, user: User, loop: Loop) -> bool:
    """Return whether the user must not yet see the loop's other scorecards."""
    return not (is_recruiter(user) or owes_nothing(user=user, loop=loop))


def _visible(*, user: User, loop: Loop, blind: bool) -> QuerySet[Scorecard]:
    cards = Scorecard.objects.filter(interview__loop=loop)
    own = Q(interviewer=user) if user.is_authenticated else Q(pk__in=[])
    return cards.filter(own if blind else own | Q(status=Scorecard.Status.SUBMITTED))


def scorecards_visible_to(
    *, user: User, loop: Loop, blind: bool | None = None
) -> QuerySet[Scorecard]:
    """Return the loop's scorecards the user may read (the blind rule lives here)."""
    if blind is None:
        blind = is_blind(user=user, loop=loop)
    return _with_ratings(_visible(user=user, loop=loop, blind=blind))


def own_scorecards(*, user: User) -> QuerySet[Scorecard]:
    return _with_ratings(Scorecard.objects.filter(interviewer=user))  # type: ignore[misc]


def scorecards_for_api(*, user: User) -> QuerySet[Scorecard]:
    """Return every scorecard the user may read across loops, for the API (rows alone)."""
    if is_recruiter(user):
        return Scorecard.objects.filter(Q(status=Scorecard.Status.SUBMITTED) | Q(interviewer=user))
    # Loops where the user owes nothing: no seat of theirs there lacks a submitted card.
    seats = Panelist.objects.filter(user=user)  # type: ignore[misc]
    unsubmitted = seats.exclude(
        Exists(
            Scorecard.objects.filter(
                interview=OuterRef("interview"),
                interviewer=OuterRef("user"),
                status=Scorecard.Status.SUBMITTED,
            )
        )
    )
    open_loops = unsubmitted.values("interview__loop")
    unblinded = seats.exclude(interview__loop__in=open_loops).values("interview__loop")
    return Scorecard.objects.filter(
        Q(interviewer=user) | Q(status=Scorecard.Status.SUBMITTED, interview__loop__in=unblinded)
    )


def own_scorecard_get(*, user: User, pk: int) -> Scorecard:
    """Return the user's own scorecard; anyone else's is a 404."""
    return get_object_or_404(own_scorecards(user=user), pk=pk)


def scorecard_form_data(
    *, scorecard: Scorecard
) -> list[tuple[InterviewQuestion, QuestionRating | None]]:
    """Return each question of the interview (at its pinned version) with its rating, if any."""
    items = list(
        InterviewQuestion.objects.filter(interview_id=scorecard.interview_id)
        .select_related("question", "version")
        .prefetch_related(
            Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
            Prefetch("version__follow_ups", queryset=FollowUp.objects.order_by("order")),
        )
        .order_by("order")
    )
    # A card not started yet (the page's blank one) has no ratings to read.
    ratings = {r.item_id: r for r in scorecard.ratings.all()} if scorecard.pk else {}
    return [(item, ratings.get(item.pk)) for item in items]


def scorecard_for_page(*, user: User, interview: Interview) -> Scorecard:
    """Return the user's scorecard for the interview, or a blank unsaved one if they
    have not started it; 404 for anyone not on its panel.

    Opening the page starts nothing: the first save creates the draft, so an
    interview only looked at still reads "Not started" on My interviews.
    """
    seat = Panelist.objects.filter(interview=interview, user=user)  # type: ignore[misc]
    shadow = seat.values_list("is_shadow", flat=True).first()
    if shadow is None:
        raise Http404("You are not on this interview's panel.")
    card = own_scorecards(user=user).filter(interview=interview).first()
    return card or Scorecard(interview=interview, interviewer=user, is_shadow=shadow)


def scorecard_as_dict(scorecard: Scorecard) -> dict[str, Any]:
    """Return the card's content in a stable shape (amendments keep it before and after)."""
    return {
        "recommendation": scorecard.recommendation,
        "summary": scorecard.summary,
        "ratings": [
            {
                "item": r.item_id,
                "rating": r.rating,
                "not_asked": r.not_asked,
                "not_asked_reason": r.not_asked_reason,
                "checked": sorted(c.pk for c in r.checked.all()),
                "follow_ups_asked": sorted(f.pk for f in r.follow_ups_asked.all()),
                "notes": r.notes,
            }
            for r in scorecard.ratings.all()
        ],
    }


# --- debrief ----------------------------------------------------------------------------


@dataclass
class Cell:
    rating: QuestionRating
    covered: int
    core_total: int
    strong_total: int
    strong_covered: int
    red_flags: list[RubricItem]


@dataclass
class DebriefRow:
    interview: Interview
    scorecard: Scorecard
    cells: list[Cell | None] = field(default_factory=list)


@dataclass(frozen=True)
class PanelCalibration:
    """The loop's counted ratings as given and as an average interviewer would have
    given them, from each interviewer's severity in the role's newest calibration."""

    computed_at: datetime
    mean: stats.SeverityAdjusted
    scale_max: int


@dataclass
class Debrief:
    loop: Loop
    blind: bool
    owed: bool
    questions: list[InterviewQuestion]
    rows: list[DebriefRow]
    pending: list[Panelist]
    unstaffed: list[Interview] = field(default_factory=list)  # no interviewer yet
    calibration: PanelCalibration | None = None  # recruiters only

    @property
    def scorecards(self) -> list[Scorecard]:
        return [row.scorecard for row in self.rows]

    @property
    def submitted_any(self) -> bool:
        return any(row.scorecard.is_submitted for row in self.rows)

    @property
    def outstanding(self) -> list[Panelist]:
        """The interviewers (shadows aside) whose scorecards are not in yet."""
        return [seat for seat in self.pending if not seat.is_shadow]

    @property
    def hire_waits(self) -> bool:
        """Whether a hire must wait (services.loop_decide refuses it): an interview
        without an interviewer, or an interviewer's card not in."""
        return bool(self.unstaffed or self.outstanding)


def loop_for_debrief(*, user: User, pk: int) -> Loop:
    """Return a loop the user may debrief: recruiters, and interviewers on it; else 404."""
    loops = Loop.objects.select_related("candidate", "role", "level", "decided_by")
    if not is_recruiter(user):
        # EXISTS rather than a join and DISTINCT over every column of four tables.
        seat = Panelist.objects.filter(interview__loop=OuterRef("pk"), user=user)  # type: ignore[misc]
        loops = loops.filter(Exists(seat))
    return get_object_or_404(loops, pk=pk)


def debrief(*, user: User, loop: Loop) -> Debrief:
    """Return the grid of interviewers by questions that the user may see."""
    interviews = list(
        loop.interviews.prefetch_related(
            Prefetch("panel", queryset=Panelist.objects.select_related("user")),
            Prefetch(
                "questions",
                queryset=InterviewQuestion.objects.select_related("question", "version")
                .prefetch_related("version__rubric")
                .order_by("order"),
            ),
        ).order_by("order")
    )
    blind = is_blind(user=user, loop=loop)
    cards = list(scorecards_visible_to(user=user, loop=loop, blind=blind))
    questions = [q for i in interviews for q in i.questions.all()]
    by_interview = {i.pk: i for i in interviews}
    rows = []
    for card in cards:
        if not card.is_submitted and card.interviewer_id != getattr(user, "pk", None):
            continue
        ratings = {r.item_id: r for r in card.ratings.all()}
        row = DebriefRow(interview=by_interview[card.interview_id], scorecard=card)
        for question in questions:
            rating = ratings.get(question.pk)
            row.cells.append(_cell(rating, question) if rating else None)
        rows.append(row)
    submitted = {(c.interview_id, c.interviewer_id) for c in cards if c.is_submitted}
    pending = [
        seat for i in interviews for seat in i.panel.all() if (i.pk, seat.user_id) not in submitted
    ]
    owed = any(seat.user_id == getattr(user, "pk", None) for seat in pending)
    unstaffed = [i for i in interviews if all(seat.is_shadow for seat in i.panel.all())]
    return Debrief(
        loop=loop, blind=blind, owed=owed, questions=questions, rows=rows, pending=pending,
        unstaffed=unstaffed,
        calibration=panel_calibration(loop=loop, rows=rows) if is_recruiter(user) else None,
    )  # fmt: skip


def panel_calibration(*, loop: Loop, rows: list[DebriefRow]) -> PanelCalibration | None:
    """Adjust the loop's submitted ratings (shadows and questions not asked aside) for
    their interviewers' severity in the role's newest role-wide calibration.

    Severity is in rating points, so only ratings on one scale are adjusted: None
    when the loop's questions use different scales, when no rating is in, or before
    the role has a calibration. Leads read each interviewer's severity itself on
    the calibration page; the debrief shows only the panel's mean.
    """
    who: list[int] = []
    ratings: list[float] = []
    scales: set[int] = set()
    for row in rows:
        card = row.scorecard
        if card.is_shadow or not card.is_submitted:
            continue
        for cell in row.cells:
            if cell is not None and cell.rating.rating is not None:
                who.append(card.interviewer_id)
                ratings.append(float(cell.rating.rating))
                scales.add(cell.rating.version.scale_max)
    if len(scales) != 1:
        return None
    # The newest snapshot's id first: only its interviewer rows are read, not the
    # JSON of every snapshot the role has.
    role_wide = CalibrationSnapshot.objects.filter(role_id=loop.role_id, level=None)
    newest = (
        CalibrationSnapshot.objects.filter(
            pk=Subquery(role_wide.order_by("-computed_at", "-id").values("pk")[:1])
        )
        .values_list("computed_at", "result__interviewers")
        .first()
    )
    if newest is None:
        return None
    computed_at, calibrated = newest
    # Matched by user id (snapshots before ids were stored: by username).
    usernames = {row.scorecard.interviewer_id: row.scorecard.interviewer.username for row in rows}
    by_id = {r["interviewer_id"]: r for r in calibrated or [] if "interviewer_id" in r}
    by_name = {r["interviewer"]: r for r in calibrated or []}
    severity = {
        pk: (by_id.get(pk) or by_name.get(usernames[pk]) or {}).get("severity") for pk in set(who)
    }
    (scale_max,) = scales
    mean = stats.severity_adjusted_mean(who, ratings, severity, scale=(1.0, float(scale_max)))
    assert mean is not None  # there are ratings
    return PanelCalibration(computed_at=computed_at, mean=mean, scale_max=scale_max)


def _cell(rating: QuestionRating, question: InterviewQuestion) -> Cell:
    rubric = list(question.version.rubric.all())
    checked = {c.pk for c in rating.checked.all()}
    core = [r for r in rubric if r.kind == RubricItem.Kind.CORE]
    strong = [r for r in rubric if r.kind == RubricItem.Kind.STRONG]
    return Cell(
        rating=rating,
        covered=sum(r.pk in checked for r in core),
        core_total=len(core),
        strong_total=len(strong),
        strong_covered=sum(r.pk in checked for r in strong),
        red_flags=[r for r in rubric if r.kind == RubricItem.Kind.RED_FLAG and r.pk in checked],
    )


# --- API documents ----------------------------------------------------------------------
# The scorecard endpoints answer every autosave and submit, and building their nested
# JSON from model objects through nested serializers was most of their cost. These
# build it from plain rows; the serializers in scoring/serializers.py describe the shape
# for the schema (and the schema checks in tests/fuzz hold the two together).


def _local(moment: datetime | None) -> datetime | None:
    # As DRF's DateTimeField shows it: in the site's time zone (the encoder writes "Z" for UTC).
    return timezone.localtime(moment) if moment else None


def _json(value: Any) -> Any:
    # A JSON column read on a plain cursor: text on SQLite, text or parsed on PostgreSQL.
    return json.loads(value) if isinstance(value, str | bytes) else value


def scorecard_documents(cards: Sequence[Scorecard]) -> list[dict[str, Any]]:
    """Return the cards as the API shows them, in the order given.

    The cards come with their interviewer and interview loaded. At most three
    queries whatever the number of cards: the ratings; the rubric items ticked
    and the follow-ups asked, only if there are ratings; the amendments, only
    if a card is submitted (drafts have none).
    """
    if not cards:
        return []
    ids = [card.pk for card in cards]
    ratings: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    by_id: dict[int, dict[str, Any]] = {}
    rows = sql.rows(
        f"""
        SELECT r.id, r.scorecard_id, r.item_id, iq.question_id, q.title, v.number, r.rating,
               r.not_asked, r.not_asked_reason, r.notes
          FROM scoring_questionrating r
          JOIN interviews_interviewquestion iq ON iq.id = r.item_id
          JOIN kit_question q ON q.id = iq.question_id
          JOIN kit_questionversion v ON v.id = r.version_id
         WHERE r.scorecard_id IN ({sql.marks(ids)})
         ORDER BY r.scorecard_id, iq."order"
        """,
        ids,
    )
    for pk, card, item, question, title, version, rating, not_asked, reason, notes in rows:
        doc = {
            "id": pk, "item": item, "question": question, "title": title, "version": version,
            "rating": rating, "not_asked": bool(not_asked), "not_asked_reason": reason,
            "checked": [], "follow_ups_asked": [], "notes": notes,
        }  # fmt: skip
        ratings[card].append(doc)
        by_id[pk] = doc
    if by_id:
        # Rubric items ticked and follow-ups asked, in one query.
        rated = list(by_id)
        links = sql.rows(
            f"""
            SELECT questionrating_id, rubricitem_id, 'checked'
              FROM scoring_questionrating_checked
             WHERE questionrating_id IN ({sql.marks(rated)})
            UNION ALL
            SELECT questionrating_id, followup_id, 'follow_ups_asked'
              FROM scoring_questionrating_follow_ups_asked
             WHERE questionrating_id IN ({sql.marks(rated)})
            """,
            rated + rated,
        )
        for rating_id, pk, field in sorted(links, key=lambda link: link[1]):
            by_id[rating_id][field].append(pk)
    amendments: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    submitted = [card.pk for card in cards if card.is_submitted]
    if submitted:
        rows = sql.rows(
            f"""
            SELECT a.scorecard_id, a.id, u.username, a.at, a.reason, a."before", a."after"
              FROM scoring_amendment a
              JOIN auth_user u ON u.id = a.by_id
             WHERE a.scorecard_id IN ({sql.marks(submitted)})
             ORDER BY a.scorecard_id, a.at, a.id
            """,
            submitted,
        )
        for card, pk, by, at, reason, before, after in rows:
            amendments[card].append(
                {
                    "id": pk,
                    "by": by,
                    "at": _local(sql.aware(at)),
                    "reason": reason,
                    "before": _json(before),
                    "after": _json(after),
                }
            )
    return [
        {
            "id": card.pk,
            "interview": card.interview_id,
            "loop": card.interview.loop_id,
            "interviewer": card.interviewer.username,
            "is_shadow": card.is_shadow,
            "status": card.status,
            "recommendation": card.recommendation,
            "summary": card.summary,
            "submitted_at": _local(card.submitted_at),
            "updated_at": _local(card.updated_at),
            "ratings": ratings[card.pk],
            "amendments": amendments[card.pk],
        }
        for card in cards
    ]


def scorecard_document(card: Scorecard) -> dict[str, Any]:
    return scorecard_documents([card])[0]


def debrief_document(*, user: User, pk: int) -> dict[str, Any]:
    """Return loop `pk`'s debrief as the API shows it: the loop, whether the caller is
    still blind, the scorecards they may read and the seats still pending. A 404
    unless the caller is a recruiter or on the loop's panel (as loop_for_debrief).

    Plain SQL, as the scorecard endpoints: every reader of a loop polls this. Every
    seat of the loop is read once, with whether it is submitted: that answers who
    may read it, the blind rule and who is pending.
    """
    loop = sql.row(
        """
        SELECT l.id, c.name, r.name, lv.name, l.status, l.decision, l.decision_rationale,
               d.username, l.decided_at
          FROM interviews_loop l
          JOIN interviews_candidate c ON c.id = l.candidate_id
          JOIN kit_role r ON r.id = l.role_id
          JOIN kit_level lv ON lv.id = l.level_id
          LEFT JOIN auth_user d ON d.id = l.decided_by_id
         WHERE l.id = %s
        """,
        [pk],
    ) if sql.in_range(pk) else None  # fmt: skip
    if loop is None:
        raise Http404
    seats = sql.rows(
        """
        SELECT p.interview_id, p.user_id, u.username, p.is_shadow,
               EXISTS (SELECT 1 FROM scoring_scorecard s
                        WHERE s.interview_id = p.interview_id AND s.interviewer_id = p.user_id
                          AND s.status = %s)
          FROM interviews_panelist p
          JOIN interviews_interview i ON i.id = p.interview_id
          JOIN auth_user u ON u.id = p.user_id
         WHERE i.loop_id = %s
         ORDER BY i."order", p.interview_id, p.is_shadow, p.id
        """,
        [Scorecard.Status.SUBMITTED, pk],
    )
    me = user.pk
    mine = [bool(done) for _, holder, _, _, done in seats if holder == me]
    if not (mine or is_recruiter(user)):
        raise Http404
    # Whoever owes nothing here reads it all: only those who owe are asked if they recruit.
    blind = not (_nothing_owed(mine) or is_recruiter(user))
    # The rule of _visible: your own cards, and the submitted ones once you are not blind.
    rows = sql.rows(
        f"""
        SELECT {sql.columns(Scorecard, "s")}, u.username
          FROM scoring_scorecard s
          JOIN interviews_interview i ON i.id = s.interview_id
          JOIN auth_user u ON u.id = s.interviewer_id
         WHERE i.loop_id = %s AND (s.interviewer_id = %s{"" if blind else " OR s.status = %s"})
         ORDER BY s.interview_id, s.is_shadow, s.id
        """,
        [pk, me] + ([] if blind else [Scorecard.Status.SUBMITTED]),
    )
    cards = []
    for *values, name in rows:
        card = sql.from_row(Scorecard, values)
        card.interviewer = sql.loaded(get_user_model(), id=card.interviewer_id, username=name)
        card.interview = sql.loaded(Interview, id=card.interview_id, loop_id=pk)
        cards.append(card)
    # A blind caller sees their own submissions only: every other seat reads as pending.
    pending = [
        {"username": name, "interview": interview, "is_shadow": bool(shadow)}
        for interview, holder, name, shadow, done in seats
        if not (done and (not blind or holder == me))
    ]
    loop_id, candidate, role, level, status, decision, rationale, decided_by, decided_at = loop
    return {
        "loop": {
            "id": loop_id,
            "candidate": candidate,
            "role": role,
            "level": level,
            "status": status,
            "decision": decision,
            "decision_rationale": rationale,
            "decided_by": decided_by,
            "decided_at": _local(sql.aware(decided_at)),
        },
        "blind": blind,
        "scorecards": scorecard_documents(cards),
        "pending": pending,
    }


# --- calibration ----------------------------------------------------------------------------


def latest_snapshot(*, role: Role, level: Level | None = None) -> CalibrationSnapshot | None:
    return (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .first()
    )


def snapshot_history(
    *, role: Role, level: Level | None = None, limit: int = 50
) -> list[CalibrationSnapshot]:
    return list(
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .select_related("role", "level")
        .order_by("-computed_at", "-id")
        .defer("result")[:limit]
    )


def trend(*, role: Role, level: Level | None = None, limit: int = 30) -> list[dict[str, Any]]:
    """Return the reliability figures of past snapshots, oldest first, for the trend chart."""
    # Read the three figures out of the JSON in the database, not whole results.
    rows = (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .values_list(
            "computed_at",
            KT("result__reliability__krippendorff_alpha__interval"),
            KT("result__reliability__g_qk"),
            KT("result__inputs__ratings"),
        )[:limit]
    )
    return [
        {
            "computed_at": computed_at.isoformat(),
            "alpha": _number(alpha),
            "g_qk": _number(g_qk),
            "ratings": _number(ratings),
        }
        for computed_at, alpha, g_qk, ratings in reversed(list(rows))
    ]


def _number(text: str | None) -> float | None:
    return None if text in (None, "", "null") else float(text)


def display_names(usernames: Iterable[str]) -> dict[str, str]:
    """Return each username's full name (the username itself where none is set), in one query."""
    names = {username: username for username in usernames}
    people = get_user_model().objects.filter(username__in=list(names))
    for username, first, last in people.values_list("username", "first_name", "last_name"):
        names[username] = f"{first} {last}".strip() or username
    return names


def checked_since(*, snapshot: CalibrationSnapshot) -> datetime | None:
    """Return when the last run of the snapshot's role that started after it was
    computed finished, if any: such a run found no new ratings and kept it."""
    done = CalibrationJob.objects.filter(
        role_id=snapshot.role_id,
        status=CalibrationJob.Status.DONE,
        started_at__gt=snapshot.computed_at,
    )
    return done.order_by("-finished_at").values_list("finished_at", flat=True).first()


def _core_points(question_ids: Iterable[int]) -> dict[int, set[str]]:
    """Return the texts of each question's core rubric items (any version), in one query."""
    points: dict[int, set[str]] = {}
    rows = RubricItem.objects.filter(
        version__question_id__in=list(question_ids), kind=RubricItem.Kind.CORE
    ).values_list("version__question_id", "text")
    for qid, text in rows:
        points.setdefault(qid, set()).add(text)
    return points


def for_dashboard(result: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a snapshot's result as the dashboard reads it (the stored JSON
    is left as it is):

    1. each question with its `least_hit` core point: a red flag or a strong answer's
       extra rarely ticked is as it should be, so neither counts;
    2. candidates strongest first, the order a debrief reads them in.
    """
    questions = result.get("questions", [])
    core = _core_points(row["question_id"] for row in questions if "question_id" in row)
    rows = []
    for row in questions:
        points = core.get(row.get("question_id"), set())
        hits = [hit for hit in row.get("rubric_hit_rates", {}).items() if hit[0] in points]
        rows.append({**row, "least_hit": sorted(hits, key=lambda hit: hit[1])[:1]})
    candidates = sorted(
        result.get("candidates", []),
        key=lambda r: (r.get("adjusted") is None, -(r.get("adjusted") or 0)),
    )
    return {**result, "questions": rows, "candidates": candidates}


def result_visible_to(*, user: User, result: dict[str, Any]) -> dict[str, Any]:
    """Return what of a snapshot the user may see: all for leads, their own row for others."""
    if is_lead(user):
        return result
    username = user.get_username() if user.is_authenticated else None
    return {
        **{k: v for k, v in result.items() if k not in ("interviewers", "questions", "candidates")},
        "interviewers": [r for r in result.get("interviewers", []) if r["interviewer"] == username],
        "questions": [],
        "candidates": [],
    }


def calibration_job_get(*, pk: int) -> CalibrationJob:
    return get_object_or_404(CalibrationJob.objects.select_related("role"), pk=pk)


# --- calibration exercises ----------------------------------------------------------------


def exercises_for(*, user: User) -> QuerySet[CalibrationExercise]:
    """Return the exercises a lead runs (all) or an interviewer is invited to."""
    exercises = CalibrationExercise.objects.select_related(
        "version__question", "created_by"
    ).annotate(n_answers=Count("answers", distinct=True))
    if is_lead(user):
        return exercises
    return exercises.filter(participants=user)  # type: ignore[misc]


def exercise_get(*, user: User, pk: int) -> CalibrationExercise:
    """Return the exercise for a lead or a participant; 404 for anyone else."""
    return get_object_or_404(
        exercises_for(user=user).prefetch_related(
            Prefetch("answers", queryset=ReferenceAnswer.objects.prefetch_related("key_checked")),
            Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
            "participants",
        ),
        pk=pk,
    )


def own_exercise_ratings(*, user: User, exercise: CalibrationExercise) -> dict[int, ExerciseRating]:
    """Return the user's scores in the exercise by answer id (no one else's: scoring is blind)."""
    scores = ExerciseRating.objects.filter(
        answer__exercise=exercise,
        interviewer=user,  # type: ignore[misc]
    ).prefetch_related("checked")
    return {score.answer_id: score for score in scores}


@dataclass
class ParticipantRow:
    user: Any
    rated: int
    vs_median: float | None
    vs_key: float | None
    abs_vs_key: float | None
    missed: list[tuple[str, int]]


@dataclass
class AnswerRow:
    answer: ReferenceAnswer
    key: int
    median: float | None
    low: int | None
    high: int | None
    n: int


@dataclass
class ExerciseReport:
    exercise: CalibrationExercise
    answers: list[AnswerRow]
    participants: list[ParticipantRow]
    icc: dict[str, Any] | None
    complete: list[Any]


def exercise_report(*, exercise: CalibrationExercise) -> ExerciseReport:
    """Return how each participant scored against the panel median and the lead's key.

    1. The complete grid is the answers by the participants who scored all of them;
       the six Shrout and Fleiss ICCs are computed on it when it has 2+ of each.
    2. Per participant: mean signed gap to each answer's panel median and to
       the key (positive = more generous), mean absolute gap to the key, and
       the key's rubric items they did not tick, most missed first.
    """
    answers = list(exercise.answers.all())
    scores = list(
        ExerciseRating.objects.filter(answer__exercise=exercise)
        .select_related("interviewer")
        .prefetch_related("checked")
    )
    by_answer: dict[int, list[ExerciseRating]] = {a.pk: [] for a in answers}
    for score in scores:
        by_answer[score.answer_id].append(score)
    medians = {
        pk: float(np.median([s.rating for s in group])) if group else None
        for pk, group in by_answer.items()
    }
    key = {a.pk: a for a in answers}
    answer_rows = [
        AnswerRow(
            answer=a,
            key=a.key_rating,
            median=medians[a.pk],
            low=min((s.rating for s in by_answer[a.pk]), default=None),
            high=max((s.rating for s in by_answer[a.pk]), default=None),
            n=len(by_answer[a.pk]),
        )
        for a in answers
    ]
    people = sorted(exercise.participants.all(), key=lambda u: u.username)
    rows = []
    for person in people:
        mine = [s for s in scores if s.interviewer_id == person.pk]
        missed: dict[str, int] = {}
        for score in mine:
            ticked = {c.pk for c in score.checked.all()}
            for item in key[score.answer_id].key_checked.all():
                if item.pk not in ticked:
                    missed[item.text] = missed.get(item.text, 0) + 1
        gaps_median = [s.rating - medians[s.answer_id] for s in mine]
        gaps_key = [s.rating - key[s.answer_id].key_rating for s in mine]
        rows.append(
            ParticipantRow(
                user=person,
                rated=len(mine),
                vs_median=round(float(np.mean(gaps_median)), 3) if mine else None,
                vs_key=round(float(np.mean(gaps_key)), 3) if mine else None,
                abs_vs_key=round(float(np.mean(np.abs(gaps_key))), 3) if mine else None,
                missed=sorted(missed.items(), key=lambda kv: (-kv[1], kv[0])),
            )
        )
    complete = [row.user for row in rows if row.rated == len(answers)]
    icc = None
    if len(answers) >= 2 and len(complete) >= 2:
        lookup = {(s.answer_id, s.interviewer_id): s.rating for s in scores}
        grid = np.array(
            [[lookup[(a.pk, u.pk)] for u in complete] for a in answers], dtype=np.float64
        )
        result = stats.icc(grid)
        icc = {
            "values": stats.to_jsonable(result.values, 3),
            "ci95": stats.to_jsonable(result.ci95, 3),
        }
    return ExerciseReport(
        exercise=exercise, answers=answer_rows, participants=rows, icc=icc, complete=complete
    )


# --- candidate data rights ------------------------------------------------------------------


def candidate_record(*, candidate: Candidate) -> dict[str, Any]:
    """Return everything held about a candidate, for a data-access request."""
    loops = (
        candidate.loops.select_related("role", "level", "decided_by")
        .prefetch_related(
            Prefetch("interviews", queryset=Interview.objects.prefetch_related(PANEL_USERS)),
            Prefetch(
                "interviews__questions",
                queryset=InterviewQuestion.objects.select_related("question", "version"),
            ),
            Prefetch(
                "interviews__scorecards",
                queryset=Scorecard.objects.filter(status=Scorecard.Status.SUBMITTED)
                .select_related("interviewer")
                .prefetch_related(
                    Prefetch(
                        "ratings", queryset=QuestionRating.objects.select_related("item__question")
                    ),
                    "amendments",
                ),
            ),
        )
        .order_by("created_at", "id")
    )
    return {
        "candidate": {
            "id": candidate.pk,
            "name": candidate.name,
            "email": candidate.email,
            "phone": candidate.phone,
            "notes": candidate.notes,
            "created_at": candidate.created_at.isoformat(),
            "erased_at": candidate.erased_at.isoformat() if candidate.erased_at else None,
        },
        "loops": [
            {
                "role": loop.role.name,
                "level": loop.level.name,
                "status": loop.status,
                "decision": loop.decision,
                "decision_rationale": loop.decision_rationale,
                "decided_at": loop.decided_at.isoformat() if loop.decided_at else None,
                "interviews": [
                    {
                        "title": interview.title,
                        "scheduled_start": _iso(interview.scheduled_start),
                        "panel": [seat.user.get_username() for seat in interview.panel.all()],
                        "questions": [q.question.title for q in interview.questions.all()],
                        "scorecards": [
                            {
                                "interviewer": card.interviewer.get_username(),
                                "recommendation": card.recommendation,
                                "summary": card.summary,
                                "submitted_at": _iso(card.submitted_at),
                                "ratings": [
                                    {
                                        "question": r.item.question.title,
                                        "rating": r.rating,
                                        "not_asked": r.not_asked,
                                        "notes": r.notes,
                                    }
                                    for r in card.ratings.all()
                                ],
                                "amendments": [
                                    {"at": _iso(a.at), "reason": a.reason}
                                    for a in card.amendments.all()
                                ],
                            }
                            for card in interview.scorecards.all()
                        ],
                    }
                    for interview in loop.interviews.all()
                ],
            }
            for loop in loops
        ],
    }


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment else None
