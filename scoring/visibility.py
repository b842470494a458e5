"""The seat and blind rule: who may read which scorecard, and who still owes one.

A *seat* is one place on an interview's panel (``interviews.Panelist``), held by
an interviewer or by a shadow. A seat is *done* once its holder has submitted a
scorecard for that interview; a draft, or no card at all, leaves it open. A user
is *blind* in a loop until every seat they hold in it is done: until then they
read no one else's card there, so their judgement stays their own.

=========== ========== ========= ===== =================== ===== ======== ======= ===========
seat        card       persona   blind reads in the loop   owes  reminded a hire  calibration
=========== ========== ========= ===== =================== ===== ======== ======= ===========
interviewer none/draft any       yes   own cards only      yes   yes      waits   --
interviewer submitted  any       no*   own + all submitted no    no       done    counted
shadow      none/draft any       yes   own cards only      no    yes      no wait --
shadow      submitted  any       no*   own + all submitted no    no       no wait not counted
none        none       recruiter no    all submitted       --    --       --      --
none        none       other     --    nothing (404)       --    --       --      --
open seat   none/draft recruiter no    own + all submitted (the rest as its seat's row)
=========== ========== ========= ===== =================== ===== ======== ======= ===========

``*`` not blind once *every* seat the user holds in the loop is done: someone
with two seats in a loop stays blind until both cards are in.

Further rules of the same table:

* Drafts are only ever read by their author.
* "Owes a card" and "reminded" apply while the loop is undecided; reminders go
  out once the interview has ended. A shadow is reminded (their card is welcome
  and they stay blind without it) but owes nothing: the loop moves to debrief,
  and a hire may be recorded, once every interviewer seat is done.
* "A hire" says whether the seat's card holds up a hire and the loop's move to
  debrief; "calibration" whether the card's ratings are counted in calibration
  statistics and the debrief's severity-adjusted score.
* A blind reader sees a loop's status no finer than "scheduled" or "decided":
  "in progress" and "debrief" step as co-panelists submit.
* A user's own calibration figures leave out every loop where they are blind,
  so they do not move when a co-panelist's card lands there.
* Recruiters read every submitted card of every loop; calibration leads and
  interviewers only those of loops where they hold seats and are not blind.
* A card is submitted only once its interview has started (``may_submit``): submitting
  ends its author's blindness, and a card written before the interview rates nothing
  that happened. An interview with no time yet takes no card. A draft may be written
  any time, an amendment made to a submitted card any time, and imported historical
  cards arrive submitted.

The hire rule: which seats and interviews must be done before a hire may be
recorded (``hire_wait``). A no-hire waits for nothing: the candidate withdrew, or
the panel has seen enough.

================================= ============ =============================
interview                         a hire       refused with code
================================= ============ =============================
no interviewer seat (none, or     waits        hire_waits_for_interviews
shadows only)
scheduled end still ahead         waits        hire_waits_for_interview_end
an interviewer seat not done      waits        hire_waits_for_scorecards
ended (or no time yet), every     no wait      --
interviewer seat done
================================= ============ =============================

The seat rows are the "a hire" column above (``holds_up_hire``): a shadow's seat
never holds up a hire, and the loop moves to debrief once no interviewer seat does
(``seats_holding_up_hire``; ``holds_up_hire_sql`` on the hot path). The decision
service refuses a hire, the debrief disables it, and reopening a loop puts it back
in progress or in debrief, all by asking this rule.

Every reader of scorecards asks this module: the ORM forms below for querysets,
``seat_done_sql`` where the hot path runs plain SQL, and ``blind`` and ``owes``
where the facts are already in hand.
"""

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)

from core.permissions import Viewer, is_recruiter
from interviews.models import Interview, Loop, Panelist
from scoring.models import Scorecard

SUBMITTED = Scorecard.Status.SUBMITTED


# --- the rule, given the facts -------------------------------------------------------------


def blind(*, done: Sequence[bool], recruiter: Callable[[], bool]) -> bool:
    """Return whether someone must not yet read a loop's other cards, given whether
    each seat they hold in the loop is done and (asked only if it matters: it may
    cost a query) whether they recruit."""
    return not ((bool(done) and all(done)) or recruiter())


def may_submit(*, scheduled_start: datetime | None, now: datetime) -> bool:
    """Return whether a card for an interview starting at `scheduled_start` may be
    submitted at `now`: only from the start on, and never while it has no time."""
    return scheduled_start is not None and scheduled_start <= now


def seen_done(*, done: bool, blind: bool, own: bool) -> bool:
    """Return whether a seat reads as done to someone: a blind reader sees only
    their own seats' cards, so every other seat reads as still pending."""
    return done and (own or not blind)


def awaited(*, seen_done: bool, cancelled: bool) -> bool:
    """Return whether a debrief lists a seat as still to come: not done as its reader
    sees it (seen_done), and not cancelled (a seat cancelled when its loop closed, or
    taken off the panel, owes nothing)."""
    return not (seen_done or cancelled)


def holds_up_hire(*, shadow: bool, done: bool) -> bool:
    """Return whether a seat holds up a hire (and the loop's move to debrief)."""
    return not (shadow or done)


def unstaffed(*, shadows: Iterable[bool]) -> bool:
    """Return whether an interview has no interviewer yet, given whether each seat on
    its panel is a shadow's: a hire waits for it."""
    return all(shadows)


def ahead(*, scheduled_end: datetime | None, now: datetime) -> bool:
    """Return whether an interview has yet to end at `now`: a hire waits for it. One
    with no time yet is not ahead (its seats hold the hire up while their cards are out)."""
    return scheduled_end is not None and scheduled_end > now


class HireWait(NamedTuple):
    """What holds up a hire: interviews without an interviewer, interviews still ahead
    (by scheduled end), and interviewer seats not done, each in the loop's order."""

    unstaffed: list[Interview]
    ahead: list[Interview]
    seats: list[Panelist]

    def __bool__(self) -> bool:
        return bool(self.unstaffed or self.ahead or self.seats)


def owes(*, shadow: bool, done: bool, decided: bool) -> bool:
    """Return whether a seat still owes its card: it holds up a hire, loop undecided."""
    return holds_up_hire(shadow=shadow, done=done) and not decided


def counts(*, shadow: bool, done: bool) -> bool:
    """Return whether a card's ratings count in calibration: submitted, not a shadow's."""
    return done and not shadow


def status_seen(*, status: str, blind: bool) -> str:
    """Return the loop status as a reader sees it: a blind one sees "scheduled" until
    the loop is decided."""
    if blind and status not in Loop.CLOSED:
        return Loop.Status.SCHEDULED
    return status


# --- the rule, as queries ------------------------------------------------------------------


def seat_done() -> Exists:
    """An expression for a Panelist queryset: whether the seat's holder has submitted
    the interview's card."""
    return Exists(
        Scorecard.objects.filter(
            interview=OuterRef("interview"), interviewer=OuterRef("user"), status=SUBMITTED
        )
    )


def own_card_status(user: Viewer) -> Subquery:
    """An expression for an Interview queryset: the status of `user`'s own card there
    ("draft" or "submitted"), or None before they start one."""
    own = Scorecard.objects.filter(interview=OuterRef("pk"), interviewer=user.pk)
    return Subquery(own.values("status")[:1])


def loop_status_seen(user: Viewer) -> Case | F:
    """An expression for a Loop queryset: the loop's status as `user` sees it
    (`status_seen`): blind where they hold a seat not yet done, recruiters never."""
    if is_recruiter(user):
        return F("status")
    open_seat = Panelist.objects.filter(interview__loop=OuterRef("pk"), user=user.pk).exclude(
        seat_done()
    )
    return Case(
        When(Q(status__in=Loop.CLOSED) | ~Exists(open_seat), then=F("status")),
        default=Value(Loop.Status.SCHEDULED),
    )


def seat_done_sql(seat: str) -> str:
    """The SQL of `seat_done` for a Panelist row aliased `seat`; it takes one
    parameter, ``SUBMITTED``. Tested against the ORM form on both databases."""
    card, panelist = Scorecard._meta, Panelist._meta
    interview = panelist.get_field("interview").column
    user = panelist.get_field("user").column
    return (
        f"EXISTS (SELECT 1 FROM {card.db_table} sc"
        f" WHERE sc.{card.get_field('interview').column} = {seat}.{interview}"
        f" AND sc.{card.get_field('interviewer').column} = {seat}.{user}"
        f" AND sc.{card.get_field('status').column} = %s)"
    )


def with_done(seats: QuerySet[Panelist]) -> QuerySet[Panelist]:
    """Annotate each seat with `submitted`: whether it is done."""
    return seats.annotate(submitted=seat_done())


def is_blind(*, user: Viewer, loop: Loop) -> bool:
    """Return whether the user must not yet read the loop's other scorecards."""
    if is_recruiter(user):
        return False
    if not user.is_authenticated:
        return True
    seats = with_done(Panelist.objects.filter(interview__loop=loop, user=user.pk))
    done = seats.values_list("submitted", flat=True)  # type: ignore[misc]  # with_done annotates it
    return blind(done=list(done), recruiter=lambda: False)


def counted(prefix: str = "") -> dict[str, object]:
    """Filters of scorecards (reached through `prefix`, e.g. "scorecard__") whose
    ratings count in calibration: submitted, not a shadow's."""
    return {f"{prefix}status": SUBMITTED, f"{prefix}is_shadow": False}


def readable(*, user: Viewer, blind: bool) -> Q:
    """A filter of scorecards for one loop: the user's own, and the submitted ones
    unless they are blind."""
    own = Q(interviewer=user.pk) if user.is_authenticated else Q(pk__in=[])
    return own if blind else own | Q(status=SUBMITTED)


def readable_sql(card: str, *, user_id: int | None, blind: bool) -> tuple[str, list[object]]:
    """The SQL of `readable` for a Scorecard row aliased `card`, with its parameters."""
    interviewer = Scorecard._meta.get_field("interviewer").column
    status = Scorecard._meta.get_field("status").column
    if blind:
        return f"{card}.{interviewer} = %s", [user_id]
    return f"({card}.{interviewer} = %s OR {card}.{status} = %s)", [user_id, SUBMITTED]


def readable_anywhere(*, user: Viewer) -> Q:
    """A filter of scorecards across loops: the user's own, every submitted card for
    recruiters, and for others the submitted cards of the loops where they hold a
    seat and none is open."""
    own = Q(interviewer=user.pk) if user.is_authenticated else Q(pk__in=[])
    if is_recruiter(user):
        return own | Q(status=SUBMITTED)
    seats = Panelist.objects.filter(user=user.pk)
    open_loops = seats.exclude(seat_done()).values("interview__loop")
    unblinded = seats.exclude(interview__loop__in=open_loops).values("interview__loop")
    return own | Q(status=SUBMITTED, interview__loop__in=unblinded)


class OpenSeat(NamedTuple):
    """A seat not yet done: its holder is blind in its loop."""

    level: int
    loop: int
    user: int


def open_seats(loops: dict[str, Any], user: Viewer | None = None) -> list[OpenSeat]:
    """Return the seats not yet done in the loops matching the Loop filters `loops`
    (only `user`'s when given), one query. A user holding two open seats in a loop
    is there twice: a watermark digests every seat."""
    seats = Panelist.objects.filter(**{f"interview__loop__{k}": v for k, v in loops.items()})
    if user is not None:
        seats = seats.filter(user=user.pk)
    rows = seats.exclude(seat_done()).values_list(
        "interview__loop__level", "interview__loop", "user"
    )
    # No ORDER BY: callers group or sort the seats themselves.
    return [OpenSeat(*row) for row in rows.order_by()]


def blind_loops_of(
    seats: Iterable[OpenSeat], level: int | None = None
) -> dict[int, frozenset[int]]:
    """Return {user id: the loops where they hold one of `seats`}, only loops of
    `level` when given: the loops where they are blind (a recruiter is not, but
    leaving their open loops out of their own figures hides nothing they could
    not read)."""
    found: dict[int, set[int]] = {}
    for seat in seats:
        if level is None or seat.level == level:
            found.setdefault(seat.user, set()).add(seat.loop)
    return {user_id: frozenset(loop_ids) for user_id, loop_ids in found.items()}


def open_seat_loops(loops: dict[str, Any], user: Viewer | None = None) -> dict[int, frozenset[int]]:
    """Return {user id: the loops, of those matching the Loop filters `loops`, where
    they hold a seat not yet done} (see blind_loops_of). Only `user`'s when given."""
    return blind_loops_of(open_seats(loops, user))


def seats_holding_up_hire(loop: Loop | int) -> QuerySet[Panelist]:
    """Return the loop's interviewer seats (shadows aside) that are not done."""
    return Panelist.objects.filter(interview__loop=loop, is_shadow=False).exclude(seat_done())


def holds_up_hire_sql(seat: str) -> str:
    """The SQL of `holds_up_hire` for a Panelist row aliased `seat` (the filter of
    `seats_holding_up_hire`); it takes one parameter, ``SUBMITTED``. Tested against
    the ORM form on both databases (tests/scoring/scorecards/test_queries_writes.py)."""
    shadow = Panelist._meta.get_field("is_shadow").column
    return f"NOT {seat}.{shadow} AND NOT {seat_done_sql(seat)}"


def interviews_unstaffed(loop: Loop) -> QuerySet[Interview]:
    """Return the loop's interviews with no interviewer seat (`unstaffed`)."""
    staffed = Count("panel", filter=Q(panel__is_shadow=False))
    return loop.interviews.annotate(staffed=staffed).filter(staffed=0)


def interviews_ahead(loop: Loop, now: datetime) -> QuerySet[Interview]:
    """Return the loop's interviews still to end at `now` (`ahead`), soonest first."""
    return loop.interviews.filter(scheduled_end__gt=now).order_by("scheduled_end")


def hire_wait(loop: Loop, now: datetime) -> HireWait:
    """Return what holds up a hire in `loop` at `now` (empty: a hire may be recorded)."""
    seats = seats_holding_up_hire(loop).select_related("user", "interview")
    return HireWait(
        unstaffed=list(interviews_unstaffed(loop)),
        ahead=list(interviews_ahead(loop, now)),
        seats=list(seats.order_by("interview__order", "id")),
    )


def hire_wait_seen(
    *, interviews: Sequence[Interview], pending: Iterable[Panelist], now: datetime
) -> HireWait:
    """Return `hire_wait` from facts in hand: the loop's interviews with their panels
    prefetched, and the seats still to come as the reader sees them
    (`awaited`); a blind reader sees every other seat as pending."""
    shadows = {i.pk: [seat.is_shadow for seat in i.panel.all()] for i in interviews}
    return HireWait(
        unstaffed=[i for i in interviews if unstaffed(shadows=shadows[i.pk])],
        ahead=[i for i in interviews if ahead(scheduled_end=i.scheduled_end, now=now)],
        seats=[s for s in pending if holds_up_hire(shadow=s.is_shadow, done=False)],
    )


def seats_open(loop: Loop | int) -> QuerySet[Panelist]:
    """Return the loop's seats, shadows too, not done and not cancelled: what closing
    the loop cancels."""
    return Panelist.objects.filter(interview__loop=loop, cancelled_at=None).exclude(seat_done())


def seats_to_remind() -> QuerySet[Panelist]:
    """Return every seat, shadows too, that is not done, in loops still undecided."""
    return Panelist.objects.exclude(interview__loop__status__in=Loop.CLOSED).exclude(seat_done())
