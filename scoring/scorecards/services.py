"""Writes for scorecards, the loop's debrief and decision (reminders: reminders.py)."""

import logging
import math
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from core import sql
from core.api.exceptions import ApplicationError, Conflict, PreconditionFailed
from core.audit.services import audit_event_record as audit
from core.permissions import Viewer
from core.webhooks.services import webhook_event_emit
from interviews import notices
from interviews.models import Interview, InterviewQuestion, Loop
from kit.models import Role
from scoring import visibility
from scoring.calibration.services import calibration_request
from scoring.models import (
    Amendment,
    FeedbackRead,
    Scorecard,
)
from scoring.scorecards import closing, hiring, queries, selectors
from scoring.scorecards import webhooks as webhook_payloads
from scoring.scorecards.ratings import Item, RatingInput, validated

log = logging.getLogger(__name__)

# A submitted card rates at least this share of its interview's questions.
MIN_RATED_SHARE = 0.5


# --- scorecards -------------------------------------------------------------------------


def scorecard_start(*, interview: Interview, by: User) -> Scorecard:
    """Return the interviewer's scorecard for the interview, creating the draft on first use.

    `interview` may be a bare reference (``Interview(pk=...)``): the seat query
    reads the interview with it. Anyone not on the panel gets a 404.
    """
    # The seat, its loop and the card it already has, if any, in one query.
    seat = queries.seat_with_card(interview_id=interview.pk, user_id=by.pk)
    if seat is None:
        raise Http404("You are not on this interview's panel.")
    is_shadow, loop_id, loop_status, *card = seat
    interview = sql.loaded(Interview, id=interview.pk, loop_id=loop_id)
    if card[0] is not None:
        scorecard = sql.from_row(Scorecard, card)
    elif loop_status in Loop.CLOSED:
        raise ApplicationError(
            "The loop is decided; no new scorecards are taken for it.", code="loop_decided"
        )
    else:
        scorecard = _draft_create(interview_id=interview.pk, by=by, is_shadow=is_shadow)
    # The caller's own objects: reading the card's loop and author then costs no query.
    scorecard.interview, scorecard.interviewer = interview, by
    return scorecard


def _draft_create(*, interview_id: int, by: User, is_shadow: bool) -> Scorecard:
    now = timezone.now()
    created = queries.draft_insert(
        interview_id=interview_id, user_id=by.pk, is_shadow=is_shadow, now=now
    )
    if created is None:
        return Scorecard.objects.get(interview_id=interview_id, interviewer=by)
    return sql.loaded(
        Scorecard, id=created, interview_id=interview_id, interviewer_id=by.pk,
        is_shadow=is_shadow, status=Scorecard.Status.DRAFT, recommendation="", summary="",
        created_at=now, updated_at=now, submitted_at=None,
    )  # fmt: skip


def _write_ratings(
    scorecard: Scorecard, ratings: Sequence[RatingInput], items: dict[int, Item]
) -> None:
    """Replace the card's ratings with `ratings`, in plain SQL: at most three DELETEs
    and three INSERTs whatever the number of ratings.

    ratings.validated has checked every rubric item and follow-up against the question's
    pinned version, so the link rows are written without loading those objects.
    The delete runs after the row lock, so it sees a concurrent save's committed
    ratings (on a card without ratings it is one SELECT that finds none).
    """
    queries.ratings_delete(scorecard.pk)
    if not ratings:
        return
    values = [
        (
            scorecard.pk,
            entry.item,
            # The version the question was assigned at, never the question's latest.
            items[entry.item].version_id,
            None if entry.not_asked else entry.rating,
            entry.not_asked,
            entry.not_asked_reason.strip() if entry.not_asked else "",
            entry.notes,
        )
        for entry in ratings
    ]
    rating_of = queries.ratings_insert(values)  # a card rates each question once
    links = {
        ticked: [
            (rating_of[entry.item], pk)
            for entry in ratings
            for pk in dict.fromkeys(getattr(entry, ticked))
        ]
        for ticked in ("checked", "follow_ups_asked")
    }
    queries.ticks_insert(checked=links["checked"], follow_ups_asked=links["follow_ups_asked"])


def _locked(scorecard: Scorecard, by: User) -> Scorecard:
    """Return the author's scorecard read under a row lock, with its interview's loop
    (id, status and role); anyone else's is a 404, so ids leak nothing.

    `scorecard` may be a bare reference (``Scorecard(pk=...)``): this is the
    only read. Only the scorecard row is locked: submissions in one loop do not
    queue behind each other. This runs on every autosave and submit.
    """
    found = queries.card_locked(scorecard_id=scorecard.pk, user_id=by.pk)
    if found is None:
        raise Http404("No such scorecard of yours.")
    loop_id, loop_status, role_id, start, *values = found
    scorecard = sql.from_row(Scorecard, values)
    loop = sql.loaded(Loop, id=loop_id, status=loop_status, role_id=role_id)
    loop.role = sql.loaded(Role, id=role_id)
    scorecard.interview = sql.loaded(
        Interview, id=scorecard.interview_id, loop_id=loop_id, scheduled_start=start
    )
    scorecard.interview.loop = loop
    scorecard.interviewer = by  # filtered on: no join for it
    return scorecard


def _check_open(scorecard: Scorecard) -> None:
    # A no-hire may close a loop before every card is in; what is left unwritten stays so.
    loop = scorecard.interview.loop
    if loop.is_closed:
        raise ApplicationError(
            f"The loop is {loop.get_status_display().lower()}; its scorecards can no longer "
            "change.",
            code="loop_decided",
        )


def _check_started(scorecard: Scorecard, now: datetime) -> None:
    """Refuse to submit a card before its interview starts (visibility.may_submit):
    submitting would open the panel's feedback to its author before the interview."""
    start = scorecard.interview.scheduled_start
    if visibility.may_submit(scheduled_start=start, now=now):
        return
    if start is None:
        raise ApplicationError(
            "This interview has no time yet: its scorecard can be submitted once it is"
            " scheduled and has started. Your draft is saved.",
            code="interview_not_scheduled",
        )
    raise ApplicationError(
        f"This interview starts {timezone.localtime(start):%a %d %b %Y %H:%M %Z}: its"
        " scorecard can be submitted from then on. Your draft is saved.",
        code="interview_not_started",
        extra={"starts_at": start.isoformat()},
    )


def _check_recommendation(recommendation: str) -> None:
    if recommendation and recommendation not in Scorecard.Recommendation.values:
        choices = ", ".join(Scorecard.Recommendation.values)
        raise ApplicationError(
            f"recommendation '{recommendation}' is not one of {choices}.",
            code="unknown_recommendation",
        )


@transaction.atomic
def scorecard_save_draft(
    *,
    scorecard: Scorecard,
    by: User,
    recommendation: str = "",
    summary: str = "",
    ratings: Sequence[RatingInput] = (),
    version: str | None = None,
) -> Scorecard:
    """Save the whole draft as given; incomplete drafts are fine.

    ``version`` is the draft's version as the caller last read it (the page's
    hidden field, the API's If-Match; selectors.scorecard_version): when given and
    the draft has changed since (another tab or device saved it), nothing is saved
    and PreconditionFailed says so. Checked under the card's lock, so two tabs
    saving at once cannot both pass.
    """
    scorecard = _locked(scorecard, by)
    if version is not None and not selectors.scorecard_version_matches(scorecard, version):
        raise PreconditionFailed(
            "This draft was changed in another tab or on another device since you opened"
            " it; reload to see that version before you edit it.",
            code="scorecard_changed_elsewhere",
        )
    if scorecard.is_submitted:
        raise Conflict(
            "This scorecard is submitted; amend it with a reason instead.",
            code="scorecard_already_submitted",
        )
    _check_open(scorecard)
    _check_recommendation(recommendation)
    items = validated(scorecard, ratings)
    scorecard.recommendation, scorecard.summary = recommendation, summary
    scorecard.updated_at = timezone.now()
    queries.draft_update(
        scorecard_id=scorecard.pk, recommendation=recommendation, summary=summary,
        now=scorecard.updated_at,
    )  # fmt: skip
    _write_ratings(scorecard, ratings, items)
    _loop_started(scorecard.interview.loop)
    return scorecard


def _check_complete(scorecard: Scorecard) -> None:
    """Refuse a card that is not complete: every question rated or marked not asked
    with a reason, at least half of them rated (MIN_RATED_SHARE), a recommendation.

    The half is what keeps a placeholder card (every question "not asked") from
    ending its author's blindness: submitting opens the panel's feedback.

    The error is the first problem, as it always was; its ``problems`` (extra) list
    every one, each naming the interview question (``item``) or the card's field
    (``field``) it concerns, so the page can show each next to what it is about.
    """
    # One query: each of the interview's questions with the card's rating of it, if any.
    rows = queries.ratings_of_interview(
        scorecard_id=scorecard.pk, interview_id=scorecard.interview_id
    )
    unexplained = [title for title, _, _, not_asked, reason in rows if not_asked and not reason]
    missing = [
        title
        for title, rated, rating, not_asked, _ in rows
        if rated is None or (rating is None and not not_asked)
    ]
    rated = sum(rating is not None for _, _, rating, _, _ in rows)
    needed = math.ceil(len(rows) * MIN_RATED_SHARE)
    # Rating every unrated question would still leave too few rated: say so now.
    too_few = rated + len(missing) < needed
    errors: list[ApplicationError] = []
    if unexplained:
        errors.append(
            ApplicationError(
                f"Say why '{unexplained[0]}' was not asked before submitting.",
                code="not_asked_reason_missing",
            )
        )
    if missing:
        errors.append(
            ApplicationError(
                "Rate every question or mark it not asked before submitting: "
                + "; ".join(f"'{t}'" for t in missing),
                code="scorecard_incomplete",
            )
        )
    if too_few:
        errors.append(
            ApplicationError(
                f"Rate at least half of the questions ({needed} of {len(rows)}; {rated} rated):"
                " a scorecard with most questions not asked says too little to open the"
                " panel's feedback to you.",
                code="scorecard_too_few_rated",
            )
        )
    if not scorecard.recommendation:
        errors.append(
            ApplicationError(
                "Choose an overall recommendation before submitting.",
                code="recommendation_missing",
            )
        )
    if errors:
        first = errors[0]
        too_few_said = next((e.message for e in errors if e.code == "scorecard_too_few_rated"), "")
        first.extra = {"problems": _problems(scorecard, rows, too_few=too_few_said)}
        raise first


def _problems(scorecard: Scorecard, rows: Sequence[tuple], *, too_few: str) -> list[dict]:
    """Return every problem of an incomplete card in the page's order, each with its
    ``code``, its ``detail`` in plain words and what it concerns: an interview
    question (``item``), the questions marked not asked (``items``, when too few are
    rated: `too_few` says so) or a field of the card (``field``).

    Only on a refusal: one more query, for the ids of the interview's questions (in
    the order ratings_of_interview reads them; (interview, order) is unique).
    """
    ids = list(
        InterviewQuestion.objects.filter(interview_id=scorecard.interview_id)
        .order_by("order")
        .values_list("pk", flat=True)
    )
    problems: list[dict] = []
    for item, (_, rated, rating, not_asked, reason) in zip(ids, rows, strict=False):
        if not_asked and not reason:
            problems.append({
                "item": item, "code": "not_asked_reason_missing",
                "detail": "Say why this question was not asked.",
            })  # fmt: skip
        if rated is None or (rating is None and not not_asked):
            problems.append({
                "item": item, "code": "scorecard_incomplete",
                "detail": "Choose a rating, or tick “Not asked” and say why.",
            })  # fmt: skip
    if too_few:
        not_asked_items = [item for item, row in zip(ids, rows, strict=False) if row[3]]
        problems.append(
            {"items": not_asked_items, "code": "scorecard_too_few_rated", "detail": too_few}
        )
    if not scorecard.recommendation:
        problems.append({
            "field": "recommendation", "code": "recommendation_missing",
            "detail": "Choose an overall recommendation.",
        })  # fmt: skip
    return problems


@transaction.atomic
def scorecard_submit(*, scorecard: Scorecard, by: User) -> Scorecard:
    """Submit a complete draft once its interview has started; a second submission is
    refused with a 409.

    The row lock serialises concurrent submits on PostgreSQL, and the
    conditional UPDATE makes exactly one of them win on any database.
    """
    scorecard = _locked(scorecard, by)
    if scorecard.is_submitted:
        # In the reader's zone: a page's viewer's (the API's is UTC).
        when = f"{timezone.localtime(scorecard.submitted_at):%Y-%m-%d %H:%M %Z}"
        raise Conflict(
            f"This scorecard was already submitted at {when}.", code="scorecard_already_submitted"
        )
    _check_open(scorecard)
    now = timezone.now()
    _check_started(scorecard, now)
    _check_complete(scorecard)
    if not queries.card_submit(scorecard_id=scorecard.pk, now=now):
        raise Conflict("This scorecard was already submitted.", code="scorecard_already_submitted")
    scorecard.status, scorecard.submitted_at = Scorecard.Status.SUBMITTED, now
    loop = scorecard.interview.loop
    _loop_started(loop)
    _loop_maybe_debrief(loop)
    calibration_request(role=loop.role)
    webhook_event_emit(kind="scorecard.submitted", payload=webhook_payloads.scorecard(scorecard))
    return scorecard


@transaction.atomic
def scorecard_amend(
    *,
    scorecard: Scorecard,
    by: User,
    reason: str,
    recommendation: str,
    summary: str,
    ratings: Sequence[RatingInput],
) -> Amendment:
    """Change a submitted scorecard, keeping who, when, why and the card before and after."""
    scorecard = _locked(scorecard, by)
    if not scorecard.is_submitted:
        raise ApplicationError(
            "Only a submitted scorecard is amended; edit the draft instead.",
            code="amendment_of_draft",
        )
    if not reason.strip():
        raise ApplicationError("An amendment needs a reason.", code="amendment_reason_missing")
    _check_open(scorecard)
    _check_recommendation(recommendation)
    if not recommendation:
        raise ApplicationError(
            "A submitted scorecard keeps an overall recommendation.", code="recommendation_missing"
        )
    items = validated(scorecard, ratings)
    current = selectors.own_scorecard_get(user=by, pk=scorecard.pk)
    before = selectors.scorecard_as_dict(current)
    scorecard.recommendation = recommendation
    scorecard.summary = summary
    scorecard.save(update_fields=["recommendation", "summary", "updated_at"])
    _write_ratings(scorecard, ratings, items)
    _check_complete(scorecard)
    after = selectors.scorecard_as_dict(selectors.own_scorecard_get(user=by, pk=scorecard.pk))
    if before == after:
        raise ApplicationError("The amendment changes nothing.", code="amendment_empty")
    loop_id = scorecard.interview.loop_id
    after_reading = FeedbackRead.objects.filter(loop=loop_id, user=by).exists()
    amendment = Amendment.objects.create(
        scorecard=scorecard, by=by, reason=reason.strip(), before=before, after=after,
        after_reading=after_reading,
    )  # fmt: skip
    audit(
        # By id: the candidate's name stays out of the log (erasure has less to find).
        actor=by, action="scorecard.amended", target=f"scorecard {scorecard.pk}",
        reason=reason.strip(), after_reading=after_reading, loop=loop_id,
    )  # fmt: skip
    calibration_request(role=scorecard.interview.loop.role)
    webhook_event_emit(kind="scorecard.amended", payload=webhook_payloads.amendment(amendment))
    return amendment


def feedback_read(*, user: Viewer, loop_ids: Iterable[int]) -> None:
    """Record that the user read other panelists' scorecards of these loops; only the
    first read of each loop is kept. One query, whatever the number of loops.

    Anyone's reads count, recruiters' too: a recruiter with a seat who read the
    panel's cards before writing their own has read the debrief as much as anyone.
    """
    loops = sorted(set(loop_ids))
    if user.is_authenticated and loops:
        reads = [FeedbackRead(loop_id=loop, user_id=user.pk) for loop in loops]
        FeedbackRead.objects.bulk_create(reads, ignore_conflicts=True)


# --- loops ------------------------------------------------------------------------------


def _loop_started(loop: Loop) -> None:
    if loop.status in (Loop.Status.DRAFT, Loop.Status.SCHEDULED):
        Loop.objects.filter(pk=loop.pk, status=loop.status).update(status=Loop.Status.IN_PROGRESS)
        loop.status = Loop.Status.IN_PROGRESS


def _loop_maybe_debrief(loop: Loop) -> None:
    """Move the loop to debrief once every interviewer (shadows aside) has submitted."""
    if loop.status != Loop.Status.IN_PROGRESS:
        return
    if not queries.loop_holds_up_hire(loop.pk):
        Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.DEBRIEF)
        loop.status = Loop.Status.DEBRIEF


@transaction.atomic
def loop_decide(*, loop: Loop, by: User, decision: str, rationale: str) -> Loop:
    loop = Loop.objects.select_for_update().get(pk=loop.pk)
    if loop.status == Loop.Status.CANCELLED:
        raise Conflict(
            "This loop is cancelled; reopen it before recording a decision.", code="loop_closed"
        )
    if loop.status == Loop.Status.DECIDED:
        raise Conflict(
            f"This loop was already decided ({loop.get_decision_display()}) "
            f"at {timezone.localtime(loop.decided_at):%Y-%m-%d %H:%M %Z}.",
            code="loop_already_decided",
        )
    if decision not in Loop.Decision.values:
        raise ApplicationError(
            f"decision must be one of {', '.join(Loop.Decision.values)}.", code="unknown_decision"
        )
    if not rationale.strip():
        raise ApplicationError("Record the rationale for the decision.", code="rationale_missing")
    _check_feedback_for(decision, loop)
    short = hiring.rationale_short(
        decision=decision, panel=hiring.loop_panel(loop), rationale=rationale
    )
    if short:
        raise ApplicationError(short, code="rationale_required")
    loop.decision = decision
    loop.decision_rationale = rationale.strip()
    loop.decided_by = by
    loop.decided_at = timezone.now()
    loop.status = Loop.Status.DECIDED
    loop.save()
    closed = closing.loop_seats_close(loop=loop, reason="the loop was decided")
    audit(actor=by, action="loop.decided", target=f"loop {loop.pk}", decision=decision, **closed)
    notices.loop_decided(loop=loop)
    calibration_request(role=loop.role)
    webhook_event_emit(kind="loop.decided", payload=webhook_payloads.loop(loop))
    return loop


def _check_feedback_for(decision: str, loop: Loop) -> None:
    """Refuse a hire while the hire rule (visibility.hire_wait) says it waits.

    A no-hire may close a loop at any point: the candidate withdrew, or the
    panel has seen enough.
    """
    if decision != Loop.Decision.HIRE:
        return
    wait = visibility.hire_wait(loop, timezone.now())
    if wait.unstaffed:
        raise ApplicationError(
            f"A hire needs every interview held and scored; no interviewer yet on "
            f"{', '.join(i.title for i in wait.unstaffed)}.",
            code="hire_waits_for_interviews",
        )
    if wait.ahead:
        title, end = wait.ahead[0].title, wait.ahead[0].scheduled_end
        raise ApplicationError(
            f"A hire waits until every interview has happened; {title} ends "
            f"{timezone.localtime(end):%a %d %b %H:%M %Z}.",
            code="hire_waits_for_interview_end",
        )
    waiting = [
        f"{seat.user.get_full_name() or seat.user.username} ({seat.interview.title})"
        for seat in wait.seats
    ]
    if waiting:
        raise ApplicationError(
            f"A hire needs every interviewer's scorecard; still waiting for {', '.join(waiting)}.",
            code="hire_waits_for_scorecards",
        )
