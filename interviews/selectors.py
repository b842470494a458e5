"""Reads for candidates, loops and interviews, scoped to what the caller may see."""

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.contrib.auth.models import User
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FilteredRelation,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)
from django.shortcuts import get_object_or_404
from django.utils import timezone

from core.api.exceptions import ApplicationError
from core.permissions import INTERVIEWER, Viewer, is_hiring_manager, is_recruiter
from interviews import staffing
from interviews.assembly import Option, SlotPlan, SlotSpec, alternatives, plan_loop
from interviews.cards import card_rule
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import Competency, FollowUp, Level, LoopTemplate, Question, Role, RubricItem
from kit.selectors import asked_since, covers_level

# --- exposure ---------------------------------------------------------------------


def exposure(question_ids: list[int] | None = None) -> dict[int, tuple[int, int]]:
    """Return {question id: (times asked in 30 days, in 90 days)} in one query.

    A question counts as asked on its interview's scheduled start, or when it
    was assigned if the interview has no time yet. Interviews scheduled ahead
    count too: their questions are as good as asked.
    """
    now = timezone.now()
    asked = InterviewQuestion.objects.filter(asked_since(now - timedelta(days=90)))
    if question_ids is not None:
        asked = asked.filter(question_id__in=question_ids)
    rows = asked.values("question_id").annotate(
        last_30=Count("id", filter=asked_since(now - timedelta(days=30))),
        last_90=Count("id"),
    )
    return {row["question_id"]: (row["last_30"], row["last_90"]) for row in rows}


# --- assembly ---------------------------------------------------------------------


def template_for(*, role: Role, level: Level) -> LoopTemplate:
    template = (
        LoopTemplate.objects.filter(role=role, level=level)
        .prefetch_related("slots__competencies")
        .first()
    )
    if template is None:
        raise ApplicationError(
            f"There is no loop template for {role} at {level}.", code="no_loop_template"
        )
    return template


def slot_specs(template: LoopTemplate) -> list[SlotSpec]:
    return [
        SlotSpec(
            slot_id=slot.pk,
            title=slot.title,
            minutes=slot.minutes,
            question_count=slot.question_count,
            interviewer_count=slot.interviewer_count,
            competencies=frozenset(c.slug for c in slot.competencies.all()),
        )
        for slot in template.slots.all()
    ]


def options_for(*, role: Role, level: Level) -> list[Option]:
    """Return the active questions a loop for this role and level may use (3 queries)."""
    questions = (
        Question.objects.filter(role=role, status=Question.Status.ACTIVE, current__isnull=False)
        .filter(covers_level(level))
        .select_related("current")
        .prefetch_related("competencies")
        .order_by("id")
    )
    seen = exposure()
    return [
        Option(
            question_id=q.pk,
            version_id=q.current_id,  # type: ignore[arg-type]
            title=q.title,
            minutes=q.current.minutes,  # type: ignore[union-attr]
            competencies=frozenset(c.slug for c in q.competencies.all()),
            exposure_30=seen.get(q.pk, (0, 0))[0],
            exposure_90=seen.get(q.pk, (0, 0))[1],
        )
        for q in questions
    ]


def candidate_history(*, candidate: Candidate, exclude_loop: Loop | None = None) -> set[int]:
    """Return the ids of every question the candidate was given in their loops."""
    asked = InterviewQuestion.objects.filter(loop__candidate=candidate)
    if exclude_loop is not None:
        asked = asked.exclude(loop=exclude_loop)
    return set(asked.values_list("question_id", flat=True))


def open_loops_of(*, candidate: Candidate) -> list[Loop]:
    """Return the candidate's loops that are not decided yet, oldest first."""
    return list(
        candidate.loops.exclude(status__in=Loop.CLOSED)
        .select_related("role", "level")
        .order_by("created_at", "id")
    )


@dataclass
class LoopPlan:
    template: LoopTemplate
    slots: list[SlotPlan]

    @property
    def warnings(self) -> list[str]:
        return [s.warning for s in self.slots if s.warning]


def loop_plan(*, candidate: Candidate, role: Role, level: Level) -> LoopPlan:
    """Return the loop assembly would build, without writing anything."""
    template = template_for(role=role, level=level)
    plans = plan_loop(
        slot_specs(template),
        options_for(role=role, level=level),
        excluded=candidate_history(candidate=candidate),
        level=level.name,
    )
    return LoopPlan(template=template, slots=plans)


def slot_plan(*, loop: Loop, slot: SlotSpec) -> SlotPlan:
    """Return the questions assembly would give one more interview of `loop`, without
    writing anything: the loop's own and the candidate's earlier questions are taken."""
    return plan_loop(
        [slot],
        options_for(role=loop.role, level=loop.level),
        excluded=candidate_history(candidate=loop.candidate),
        level=loop.level.name,
    )[0]


def competencies_for(*, role: Role) -> list[tuple[str, str]]:
    """Return (slug, name) of every competency the role's questions are tagged with."""
    used = Competency.objects.filter(questions__role=role).distinct().order_by("slug")
    return list(used.values_list("slug", "name"))


def swap_alternatives(*, item: InterviewQuestion, limit: int = 10) -> list[Option]:
    """Return ranked questions that could replace `item` under the assembly rules."""
    interview = item.interview
    loop = interview.loop
    spec = SlotSpec(
        title=interview.title,
        minutes=interview.minutes,
        question_count=0,
        competencies=frozenset(interview.competencies),
    )
    options = options_for(role=loop.role, level=loop.level)
    by_id = {o.question_id: o for o in options}
    siblings = [q for q in interview.questions.all() if q.pk != item.pk]
    keep = [by_id[q.question_id] for q in siblings if q.question_id in by_id]
    taken = candidate_history(candidate=loop.candidate)  # includes this loop's questions
    budget = interview.minutes - sum(q.version.minutes for q in siblings)
    return alternatives(spec, options, keep=keep, taken=taken, budget=budget, limit=limit)


# --- who may sit on a panel ---------------------------------------------------------

# Who may hold a seat on a panel, as interviewer or shadow: active members of the
# Interviewers group (a recruiter or lead who also interviews is in it too). The
# pages offer only them (interviews.forms, the pools' pages); services.panel_check
# refuses anyone else.
SEATABLE = Q(is_active=True, groups__name=INTERVIEWER)


def seatable_people() -> QuerySet[User]:
    """Return who may hold a seat on a panel (SEATABLE), by username."""
    return User.objects.filter(SEATABLE).order_by("username")


# --- visibility ---------------------------------------------------------------------


def candidate_list() -> QuerySet[Candidate]:
    return Candidate.objects.annotate(loop_count=Count("loops"))


def loops_visible_to(user: Viewer) -> QuerySet[Loop]:
    """Return the loops the user may see, each with `status_seen`: its status as they
    may read it (scoring.visibility.status_seen, through interviews.cards), and
    `debriefable` (see debriefable)."""
    loops = Loop.objects.select_related("candidate", "role", "level").annotate(
        status_seen=card_rule().loop_status_seen(user), debriefable=debriefable(user)
    )
    if is_recruiter(user):
        return loops
    if is_hiring_manager(user):  # and the loops of the roles they own (interviews.staffing)
        return loops.filter(_seated_on(user) | staffing.owned(user))
    return loops.filter(_seated_on(user))


def debriefable(user: Viewer) -> Exists | Value:
    """Whether the user may read the loop's debrief (annotate or filter Loops): a
    recruiter always, anyone else while they hold a seat on its panels. A hiring
    manager staffs every loop of the roles they own but reads the debriefs of the
    panels they sit on only; the pages link to no debrief they would be refused."""
    return Value(True) if is_recruiter(user) else _seated_on(user)


def _seated_on(user: Viewer) -> Exists:
    """Whether the user holds a seat on one of the loop's panels (annotate or filter Loops)."""
    return Exists(Panelist.objects.filter(interview__loop=OuterRef("pk"), user=user.pk))


def rated() -> Exists:
    """Whether a scorecard, draft or submitted, rates the assigned question (annotate an
    InterviewQuestion): then it keeps its question (services.interview_question_swap)."""
    # scoring's ratings, through the reverse relation: interviews does not import scoring.
    ratings = InterviewQuestion._meta.get_field("ratings").related_model
    return Exists(ratings._default_manager.filter(item=OuterRef("pk")))


ASSIGNED_QUESTIONS = Prefetch(
    "questions",
    queryset=InterviewQuestion.objects.select_related("question", "version")
    .annotate(rated=rated())
    .prefetch_related(
        Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
        Prefetch("version__follow_ups", queryset=FollowUp.objects.order_by("order")),
    ),
)
PANEL = Prefetch("panel", queryset=Panelist.objects.select_related("user"))


def loop_list(*, user: Viewer) -> QuerySet[Loop]:
    """Return loops for the list page: the ones needing attention first, then by date."""
    # By the status the user sees: a blind panelist's list must not reorder itself
    # as co-panelists submit.
    urgency = Case(
        When(status_seen=Loop.Status.DEBRIEF, then=0),
        When(status_seen=Loop.Status.IN_PROGRESS, then=1),
        When(status_seen=Loop.Status.SCHEDULED, then=2),
        When(status_seen=Loop.Status.DRAFT, then=3),
        default=4,
    )
    return (
        loops_visible_to(user)
        .annotate(
            n=Count("interviews", distinct=True),
            starts=Min("interviews__scheduled_start"),
            urgency=urgency,
        )
        .order_by("urgency", F("starts").desc(nulls_first=True), "-id")
    )


def interviews_visible_to(user: Viewer) -> QuerySet[Interview]:
    """Return the interviews the user may open (see openable)."""
    interviews = Interview.objects.select_related(
        "loop__candidate", "loop__role", "loop__level"
    ).prefetch_related(PANEL, ASSIGNED_QUESTIONS)
    if is_recruiter(user):
        return interviews
    return interviews.filter(_holds_seat(user))


def openable(user: Viewer) -> Exists | Value:
    """Whether the user may open the interview, its kit and scorecard (annotate or
    filter Interviews): a recruiter any, anyone else those they hold a seat in."""
    return Value(True) if is_recruiter(user) else _holds_seat(user)


def _holds_seat(user: Viewer) -> Exists:
    """Whether the user holds a seat in the interview (annotate or filter Interviews)."""
    return Exists(Panelist.objects.filter(interview=OuterRef("pk"), user=user.pk))


def interview_get(*, user: Viewer, pk: int) -> Interview:
    """Return the interview, or 404 for anyone who may not see it (ids leak nothing)."""
    return get_object_or_404(interviews_visible_to(user), pk=pk)


def interviews_staffable_by(user: Viewer) -> QuerySet[Interview]:
    """Return the interviews the user may open to staff them or change their questions:
    interviews_visible_to, and for a hiring manager every interview of a role they own
    (interviews.staffing). Kits and scorecards keep to interviews_visible_to."""
    if is_recruiter(user) or not is_hiring_manager(user):
        return interviews_visible_to(user)
    return (
        Interview.objects.select_related("loop__candidate", "loop__role", "loop__level")
        .prefetch_related(PANEL, ASSIGNED_QUESTIONS)
        .filter(_holds_seat(user) | staffing.owned(user, "loop__role_id"))
    )


def interview_staffable_get(*, user: Viewer, pk: int) -> Interview:
    """Return the interview from interviews_staffable_by, or 404."""
    return get_object_or_404(interviews_staffable_by(user), pk=pk)


def has_scorecards() -> Exists:
    """Whether anyone has started a scorecard of the interview (annotate an Interview)."""
    # scoring's cards, through the reverse relation: interviews does not import scoring.
    cards = Interview._meta.get_field("scorecards").related_model
    return Exists(cards._default_manager.filter(interview=OuterRef("pk")))


def removal_refusal(
    interview: Interview, *, carded: bool, interviews: int, now: datetime
) -> ApplicationError | None:
    """Return why the interview may not be taken out of its open loop (None: it may).

    The one rule services.interview_remove enforces and the loop page asks
    before it offers the button. `carded`: someone has started its scorecard;
    `interviews`: how many the loop holds.

    | the interview                   | refused with              |
    | ------------------------------- | ------------------------- |
    | has started (or taken place)    | interview_started         |
    | has a scorecard started         | interview_has_scorecards  |
    | is its loop's only interview    | loop_needs_an_interview   |
    """
    if interview.scheduled_start is not None and interview.scheduled_start <= now:
        over = interview.scheduled_end is not None and interview.scheduled_end <= now
        return ApplicationError(
            f"{interview.title} has {'taken place' if over else 'started'}: it stays in the loop.",
            code="interview_started",
        )
    if carded:
        return ApplicationError(
            f"{interview.title} has a scorecard started: it stays in the loop.",
            code="interview_has_scorecards",
        )
    if interviews < 2:
        return ApplicationError(
            "A loop needs at least one interview: cancel the loop instead.",
            code="loop_needs_an_interview",
        )
    return None


def loop_detail_prefetch(user: Viewer) -> Prefetch:
    """Return the prefetch of a loop's interviews the user may see (their own, unless
    recruiter), each knowing whether a scorecard of it is started (`carded`) and
    whether the user may open it (`openable`: a hiring manager sees a loop of their
    role whole, but opens the kits of their own seats only)."""
    interviews = Interview.objects.prefetch_related(PANEL, ASSIGNED_QUESTIONS).annotate(
        carded=has_scorecards(), openable=openable(user)
    )
    if is_hiring_manager(user) and not is_recruiter(user):
        # All of a loop of a role they own; elsewhere, as any panelist, their own.
        interviews = interviews.filter(_holds_seat(user) | staffing.owned(user, "loop__role_id"))
    elif not is_recruiter(user):
        interviews = interviews.filter(_holds_seat(user))
    return Prefetch("interviews", queryset=interviews)


def loop_get(*, user: Viewer, pk: int) -> Loop:
    """Return the loop with its interviews, panels and questions; 404 for outsiders."""
    return get_object_or_404(
        loops_visible_to(user).prefetch_related(loop_detail_prefetch(user)), pk=pk
    )


def my_interviews(
    *, user: Viewer, among: QuerySet[Interview] | None = None
) -> tuple[Sequence[Interview], Sequence[Interview], Sequence[Interview]]:
    """Return the user's interviews: scorecards owed (held, not submitted, loop open;
    oldest first), upcoming (and unscheduled) in open loops, and the rest (held, or in a
    decided loop; newest first). `among` narrows them first (the page's filters)."""
    now = timezone.now()
    rule = card_rule()  # scoring.visibility's, through interviews.cards
    mine = list(
        (Interview.objects.all() if among is None else among)
        .filter(panel__user=user)  # type: ignore[misc]
        .annotate(
            card_status=rule.own_card_status(user),
            own_seat=FilteredRelation("panel", condition=Q(panel__user=user)),
            as_shadow=F("own_seat__is_shadow"),
        )
        .select_related("loop__candidate", "loop__role", "loop__level")
        .prefetch_related(Prefetch("panel", queryset=Panelist.objects.select_related("user")))
        .order_by(F("scheduled_start").asc(nulls_last=True), "id")
    )
    # A closed loop's interviews that never happened are not upcoming any more: they
    # join the past, where the table says the loop is closed instead of offering a card.
    past = [i for i in mine if (i.scheduled_end and i.scheduled_end < now) or i.loop.is_closed]
    upcoming = [i for i in mine if i not in past]
    owed = [
        i
        for i in past
        if rule.owes(
            shadow=i.as_shadow,
            done=i.card_status == rule.submitted,
            decided=i.loop.is_closed,
        )
    ]
    done = [i for i in past if i not in owed]
    return owed, upcoming, list(reversed(done))


def kit_for(*, interview: Interview) -> list[InterviewQuestion]:
    """Return the interview's questions at their pinned versions, with rubric and follow-ups.

    `interview` comes from interviews_visible_to, which prefetched all of it.
    """
    return list(interview.questions.all())


def seats_on_days(
    *, user_ids: Collection[int], days: Collection[date]
) -> dict[tuple[int, date], list[Panelist]]:
    """Return the people's seats in open loops on the given days, in one query.

    Keyed by (user id, day), each day's seats by start, with the interview, its loop
    and candidate. Days are in the current time zone (the viewer's). Cancelled seats
    and closed loops are left out: neither keeps anyone busy.
    """
    if not user_ids or not days:
        return {}
    zone = timezone.get_current_timezone()
    on_days = Q()
    for day in set(days):
        on_days |= Q(
            interview__scheduled_start__gte=datetime.combine(day, time.min, tzinfo=zone),
            interview__scheduled_start__lt=datetime.combine(
                day + timedelta(days=1), time.min, tzinfo=zone
            ),
        )
    seats = (
        Panelist.objects.filter(on_days, user_id__in=user_ids, cancelled_at=None)
        .exclude(interview__loop__status__in=Loop.CLOSED)
        .select_related("interview__loop__candidate")
        .order_by("interview__scheduled_start", "id")
    )
    found: dict[tuple[int, date], list[Panelist]] = defaultdict(list)
    for seat in seats:
        start = seat.interview.scheduled_start
        assert start is not None  # filtered on it
        found[(seat.user_id, timezone.localdate(start))].append(seat)
    return dict(found)
