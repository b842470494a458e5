"""Writes for candidates, loops and interviews."""

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.utils import timezone

from core.api.exceptions import ApplicationError, Conflict
from core.audit.services import audit_event_record as audit
from core.permissions import INTERVIEWER
from interviews import clashes, notices, selectors
from interviews.assembly import SlotSpec
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from interviews.pools import rules as pool_rules
from kit.models import Level, Question, QuestionVersion, Role
from kit.services import question_version_mark_used


def candidate_create(*, name: str, email: str = "", phone: str = "", notes: str = "") -> Candidate:
    candidate = Candidate(name=name.strip(), email=email.strip(), phone=phone.strip(), notes=notes)
    candidate.full_clean()
    candidate.save()
    return candidate


def candidate_update(*, candidate: Candidate, **fields: str) -> Candidate:
    for name, value in fields.items():
        setattr(candidate, name, value.strip() if name != "notes" else value)
    candidate.full_clean()
    candidate.save()
    return candidate


def _assign(interview: Interview, version: QuestionVersion, order: int, reason: str) -> None:
    InterviewQuestion.objects.create(
        interview=interview,
        loop=interview.loop,
        question_id=version.question_id,
        version=version,
        order=order,
        reason=reason,
    )
    # From now on, editing this question makes a new version; this interview keeps this one.
    question_version_mark_used(version=version)


@transaction.atomic
def loop_create(
    *,
    candidate: Candidate,
    role: Role,
    level: Level,
    by: User | None = None,
    allow_duplicate: bool = False,
) -> Loop:
    """Assemble and save a loop from the role's level template.

    1. Refuse a second open loop for the candidate unless the caller says it is meant
       (a retried form or a double click would otherwise leave two loops to staff).
    2. Plan every slot (see interviews.assembly for the rules).
    3. Save the loop with the plan's warnings, one interview per slot, and each
       chosen question pinned to its current version, which becomes frozen.
    """
    # Lock the candidate so two concurrent builds cannot both see "no open loop".
    Candidate.objects.select_for_update().filter(pk=candidate.pk).first()
    open_loops = selectors.open_loops_of(candidate=candidate)
    if open_loops and not allow_duplicate:
        names = ", ".join(f"{loop.role} {loop.level} (loop {loop.pk})" for loop in open_loops)
        raise Conflict(
            f"{candidate.name} already has an open loop: {names}. "
            "Build another only if it is meant (allow_duplicate).",
            code="candidate_has_open_loop",
        )
    plan = selectors.loop_plan(candidate=candidate, role=role, level=level)
    loop = Loop.objects.create(
        candidate=candidate,
        role=role,
        level=level,
        template=plan.template,
        warnings=plan.warnings,
        created_by=by,
    )
    versions = QuestionVersion.objects.in_bulk(
        [p.option.version_id for s in plan.slots for p in s.picks]
    )
    for order, slot_plan in enumerate(plan.slots, start=1):
        interview = Interview.objects.create(
            loop=loop,
            slot_id=slot_plan.slot.slot_id,
            order=order,
            title=slot_plan.slot.title,
            minutes=slot_plan.slot.minutes,
            competencies=sorted(slot_plan.slot.competencies),
            interviewers_wanted=slot_plan.slot.interviewer_count,
        )
        for position, pick in enumerate(slot_plan.picks, start=1):
            _assign(interview, versions[pick.option.version_id], position, pick.reason)
    return loop


def _check_open(loop: Loop) -> None:
    if loop.is_closed:
        raise ApplicationError(
            f"This loop is {loop.get_status_display().lower()}; it can no longer change.",
            code="loop_decided",
        )


@transaction.atomic
def interview_question_swap(
    *, item: InterviewQuestion, question: Question, by: User | None = None, reason: str = ""
) -> InterviewQuestion:
    """Replace one assigned question with one of its ranked alternatives.

    The item's reason says who swapped it in and why (`reason`, optional); the audit
    log keeps the question it replaced too. Refused once a scorecard rates the item
    (selectors.rated). Who may call this: interviews.editing.
    """
    _check_open(item.interview.loop)
    _lock_scorecards(item)
    if item.ratings.exists():  # scoring's ratings (the reverse of its FK)
        raise ApplicationError(
            f"'{item.question.title}' is rated on a scorecard already: it stays, so that "
            "every rating keeps the question it was given for.",
            code="question_rated",
        )
    allowed = {o.question_id: o for o in selectors.swap_alternatives(item=item, limit=10_000)}
    if question.pk not in allowed:
        raise ApplicationError(
            f"'{question.title}' cannot go in this interview: it must be an active question for "
            "this level and slot that the candidate has not had and that fits the time left.",
            code="question_not_eligible",
        )
    why = " ".join(reason.split())  # one line, as the loop page's Why column shows it
    replaced = item.question_id
    item.question = question
    item.version_id = allowed[question.pk].version_id
    said = "swapped in" + (f" by {_name(by)}" if by else "") + (f": {why}" if why else "")
    item.reason = said[: InterviewQuestion._meta.get_field("reason").max_length]
    item.save(update_fields=["question", "version", "reason"])
    question_version_mark_used(version=item.version)
    audit(actor=by, action="interview.question_swapped", target=f"interview {item.interview_id}",
          item=item.pk, replaced=replaced, question=question.pk, reason=why)  # fmt: skip
    return item


def _lock_scorecards(item: InterviewQuestion) -> None:
    """Lock the item, its interview and the interview's scorecards until the
    transaction ends, and read the item again under its lock.

    A scorecard save holds its card's row lock while it reads the interview's
    questions and writes ratings, and a new card's insert waits on a locked
    interview row (its foreign key). So a save that started first has committed
    its ratings when the caller's check runs, and a save or a new card that
    starts meanwhile reads the questions as the caller leaves them. The item is
    locked first, as an erasure or a removal changes items before the rest; its
    lock lets a rating's insert through (NO KEY: not the key its foreign key reads).
    """
    locked = InterviewQuestion.objects.select_for_update(no_key=True).filter(pk=item.pk)
    item.question_id, item.version_id, item.reason = locked.values_list(
        "question_id", "version_id", "reason"
    ).get()
    list(Interview.objects.select_for_update().filter(pk=item.interview_id).values_list("pk"))
    scorecards = Interview(pk=item.interview_id).scorecards  # scoring's (the reverse of its FK)
    list(scorecards.select_for_update().values_list("pk"))


@transaction.atomic
def interview_questions_reorder(
    *, interview: Interview, order: Sequence[int], by: User | None = None
) -> None:
    """Put the interview's questions in the given order of InterviewQuestion ids.

    A new order is audited with the old one; the same order again writes nothing.
    Who may call this: interviews.editing.
    """
    _check_open(interview.loop)
    items = {q.pk: q for q in interview.questions.all()}
    if sorted(order) != sorted(items):
        raise ApplicationError(
            f"order must list each of this interview's questions once: {sorted(items)}",
            code="order_incomplete",
        )
    before = [q.pk for q in sorted(items.values(), key=lambda q: q.order)]
    if before == list(order):
        return
    audit(actor=by, action="interview.questions_reordered", target=f"interview {interview.pk}",
          before=before, after=list(order))  # fmt: skip
    # Two passes so the unique (interview, order) constraint holds at every step.
    for position, pk in enumerate(order, start=1):
        InterviewQuestion.objects.filter(pk=pk).update(order=1000 + position)
    for position, pk in enumerate(order, start=1):
        InterviewQuestion.objects.filter(pk=pk).update(order=position)


def interview_question_move(*, item: InterviewQuestion, up: bool, by: User | None = None) -> None:
    """Move one question a place up or down in its interview; at either end, do nothing."""
    ids = list(item.interview.questions.values_list("pk", flat=True))
    i = ids.index(item.pk)
    j = i - 1 if up else i + 1
    if 0 <= j < len(ids):
        ids[i], ids[j] = ids[j], ids[i]
        interview_questions_reorder(interview=item.interview, order=ids, by=by)


def _name(user: User) -> str:
    return user.get_full_name() or user.get_username()


def _span(interview: Interview) -> str:
    start = timezone.localtime(interview.scheduled_start)
    end = timezone.localtime(interview.scheduled_end)
    return f"{start:%a %d %b %H:%M}–{end:%H:%M %Z}"


def _lock_diaries(interview: Interview, people: Sequence[User]) -> None:
    """Hold the candidate's and the people's rows until the transaction ends, so that
    two bookings of one person at once are checked one after the other: the second
    sees the first and is refused. Candidate first, then people by id: no deadlock.

    FOR NO KEY UPDATE: rows that merely point at these (a scorecard, a seat) are
    still written meanwhile. SQLite has no row locks: there the second booking
    waits for the database's write lock, or past its timeout is answered 503.
    """
    candidate = Candidate.objects.filter(pk=interview.loop.candidate_id)
    list(candidate.select_for_update(no_key=True).values_list("pk"))
    diaries = User.objects.filter(pk__in=[u.pk for u in people]).order_by("pk")
    list(diaries.select_for_update(no_key=True).values_list("pk"))


def _check_clashes(
    interview: Interview, people: Sequence[User], start: datetime, end: datetime
) -> None:
    """Refuse a time at which the candidate or someone on the panel is already in an
    interview (interviews.clashes, the one rule the panel proposal asks too)."""
    clash = clashes.candidate_clash(interview, start, end)
    if clash is not None:
        raise ApplicationError(
            f"It overlaps {clash.title} ({_span(clash)}): "
            "the candidate cannot be in two interviews at once.",
            code="interview_clash",
        )
    busy = clashes.busy_seat(interview, people, start, end)
    if busy is not None:
        raise ApplicationError(
            f"{_name(busy.user)} is already on {busy.interview.title} with "
            f"{busy.interview.loop.candidate.name} then ({_span(busy.interview)}).",
            code="interviewer_busy",
        )


def panel_check(*, interviewers: Sequence[User], shadow: User | None = None) -> None:
    """Refuse a panel with anyone who may not sit on one, naming the field and the person.

    The rule is checked against the database, not the objects given, which may
    have been read before someone was deactivated or left the group.
    """
    people = {u.pk for u in interviewers} | ({shadow.pk} if shadow else set())
    member = Exists(
        User.groups.through.objects.filter(user=OuterRef("pk"), group__name=INTERVIEWER)
    )
    found = {
        pk: (active, in_group)
        for pk, active, in_group in User.objects.filter(pk__in=people)
        .annotate(in_group=member)
        .values_list("pk", "is_active", "in_group")
    }
    errors: dict[str, list[str]] = {}
    for field, users in (("interviewers", interviewers), ("shadow", [shadow] if shadow else [])):
        for user in users:
            active, in_group = found.get(user.pk, (False, False))
            if not active:
                why = f"{user.get_username()} is deactivated"
            elif not in_group:
                why = f"{user.get_username()} is not in the {INTERVIEWER} group"
            else:
                continue
            errors.setdefault(field, []).append(
                f"{why}: only active members of the {INTERVIEWER} group sit on panels."
            )
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def interview_update(
    *,
    interview: Interview,
    interviewers: Sequence[User],
    shadow: User | None = None,
    scheduled_start: datetime | None = None,
    scheduled_end: datetime | None = None,
) -> Interview:
    """Set an interview's panel and time; the loop becomes scheduled once every interview is.

    Every seat on a panel is made here, and only people panel_check allows get one
    (a ValidationError naming `interviewers` or `shadow` otherwise).
    """
    _check_open(interview.loop)
    before = notices.PanelBefore.of(interview)
    if not interviewers:
        raise ApplicationError("An interview needs at least one interviewer.", code="panel_empty")
    if len({u.pk for u in interviewers}) != len(interviewers):
        raise ApplicationError("An interviewer is listed twice.", code="interviewer_listed_twice")
    if shadow is not None and shadow.pk in {u.pk for u in interviewers}:
        raise ApplicationError(
            f"{_name(shadow)} cannot be both interviewer and shadow.", code="shadow_is_interviewer"
        )
    panel_check(interviewers=interviewers, shadow=shadow)
    pool_rules.trainee_check(interview=interview, interviewers=interviewers)
    if (scheduled_start is None) != (scheduled_end is None):
        raise ApplicationError(
            "Give both a start and an end time, or neither.", code="time_incomplete"
        )
    if scheduled_start and scheduled_end:
        if scheduled_end <= scheduled_start:
            raise ApplicationError("The interview must end after it starts.", code="time_reversed")
        people = [*interviewers, *([shadow] if shadow else [])]
        _lock_diaries(interview, people)
        _check_clashes(interview, people, scheduled_start, scheduled_end)
    interview.scheduled_start = scheduled_start
    interview.scheduled_end = scheduled_end
    interview.save(update_fields=["scheduled_start", "scheduled_end"])
    _seats_set(
        interview, {u.pk: False for u in interviewers} | ({shadow.pk: True} if shadow else {})
    )
    loop_refresh_status(loop=interview.loop)
    notices.panel_changed(interview=interview, before=before)
    return interview


def _seats_set(interview: Interview, wanted: dict[int, bool]) -> None:
    """Make the interview's seats exactly `wanted` (user id -> shadow), keeping kept seats.

    A seat that stays keeps its row, so when its reminder went out (reminded_at)
    survives a move or a panel change and the overdue reminder is not sent again.
    """
    seats = {seat.user_id: seat for seat in interview.panel.all()}
    interview.panel.exclude(user_id__in=wanted).delete()
    changed = [
        seat
        for user_id, seat in seats.items()
        if user_id in wanted and (seat.is_shadow, seat.cancelled_at) != (wanted[user_id], None)
    ]
    # Demote before promoting, so "one shadow per interview" holds after every UPDATE.
    for seat in sorted(changed, key=lambda seat: wanted[seat.user_id]):
        seat.is_shadow, seat.cancelled_at = wanted[seat.user_id], None
        seat.save(update_fields=["is_shadow", "cancelled_at"])
    Panelist.objects.bulk_create(
        [
            Panelist(interview=interview, user_id=user_id, is_shadow=is_shadow)
            for user_id, is_shadow in wanted.items()
            if user_id not in seats
        ]
    )


@transaction.atomic
def interview_add(
    *,
    loop: Loop,
    title: str,
    minutes: int,
    competencies: Sequence[str] = (),
    question_count: int = 1,
    interviewers_wanted: int = 1,
    by: User,
) -> Interview:
    """Add an interview at the end of an open loop, its questions chosen as a slot's.

    1. Refuse a closed loop, and an unknown competency (field `competencies`).
    2. Plan the new interview as one more slot under the assembly rules (no question the
       candidate had, in this loop or before; level fit; coverage; least exposed).
    3. Save it with its questions, add a shortfall to the loop's warnings, audit it
       as `interview.added`, and move a scheduled loop back to draft: the new
       interview has no panel or time yet.
    """
    loop = Loop.objects.select_for_update().select_related("level", "role").get(pk=loop.pk)
    _check_open(loop)
    known = {slug for slug, _ in selectors.competencies_for(role=loop.role)}
    unknown = sorted(set(competencies) - known)
    if unknown:
        raise ValidationError(
            {"competencies": f"Not a competency of {loop.role}'s questions: {', '.join(unknown)}."},
            code="competency_unknown",
        )
    order = (loop.interviews.aggregate(last=Max("order"))["last"] or 0) + 1
    interview = Interview(
        loop=loop,
        order=order,
        title=title.strip(),
        minutes=minutes,
        competencies=sorted(set(competencies)),
        interviewers_wanted=interviewers_wanted,
    )
    interview.full_clean()
    interview.save()
    plan = selectors.slot_plan(
        loop=loop,
        slot=SlotSpec(
            title=interview.title,
            minutes=minutes,
            question_count=question_count,
            competencies=frozenset(interview.competencies),
            interviewer_count=interviewers_wanted,
        ),
    )
    versions = QuestionVersion.objects.in_bulk([pick.option.version_id for pick in plan.picks])
    for position, pick in enumerate(plan.picks, start=1):
        _assign(interview, versions[pick.option.version_id], position, pick.reason)
    if plan.warning:
        loop.warnings = [*loop.warnings, plan.warning]
        loop.save(update_fields=["warnings"])
    audit(
        actor=by, action="interview.added", target=f"loop {loop.pk}",
        title=interview.title, questions=len(plan.picks),
    )  # fmt: skip
    loop_refresh_status(loop=loop)
    return interview


@transaction.atomic
def interview_remove(*, interview: Interview, by: User) -> None:
    """Take an interview that has not started out of its loop; its panel gets cancellations.

    Refused once the loop is closed, once the interview has started or anyone has
    started its scorecard, and for a loop's only interview (cancel the loop instead).
    """
    loop = Loop.objects.select_for_update().get(pk=interview.loop_id)
    # Before its questions are deleted, as a swap locks it before changing one (no
    # deadlock); a scorecard being started meanwhile is then committed, and seen below.
    list(Interview.objects.select_for_update().filter(pk=interview.pk).values_list("pk"))
    _check_open(loop)
    refusal = selectors.removal_refusal(
        interview,
        carded=interview.scorecards.exists(),  # scoring's cards (the reverse of its FK)
        interviews=loop.interviews.count(),
        now=timezone.now(),
    )
    if refusal is not None:
        raise refusal
    seats = list(interview.panel.select_related("user").filter(cancelled_at=None))
    notices.seats_cancelled(seats=seats, reason="the interview was taken out of the loop")
    audit(
        actor=by, action="interview.removed", target=f"loop {loop.pk}",
        title=interview.title, seats_cancelled=len(seats),
    )  # fmt: skip
    interview.delete()
    loop_refresh_status(loop=loop)


def loop_refresh_status(*, loop: Loop) -> None:
    """Move a draft loop to scheduled once every interview has a panel and a time."""
    if loop.status not in (Loop.Status.DRAFT, Loop.Status.SCHEDULED):
        return
    interviews = loop.interviews.annotate(seats=Count("panel", filter=Q(panel__is_shadow=False)))
    unready = interviews.filter(Q(scheduled_start__isnull=True) | Q(seats=0))
    ready = interviews.exists() and not unready.exists()
    status = Loop.Status.SCHEDULED if ready else Loop.Status.DRAFT
    if status != loop.status:
        loop.status = status
        loop.save(update_fields=["status"])
