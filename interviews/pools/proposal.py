"""Propose each interview's panel from its pool. Pure functions over plain data; no ORM.
Who is busy when is interviews.clashes' rule, the one booking a time asks.

The rules, for every interview of the loop in order:

* a qualified member of the interview's pool may be proposed if all of these hold
  (``problems`` names the ones that do not, and the same names warn when someone is
  chosen by hand anyway):

  - ``on_loop``: they are not already on this candidate's loop (another interview,
    or picked earlier in this proposal);
  - ``busy``: no seat of theirs clashes with this one's time (interviews.clashes);
  - ``hours``: the time lies within their working hours, in their own time zone;
  - ``day_limit`` / ``week_limit``: fewer seats that day / that week (Monday to
    Sunday, in their zone) than their limits;

* among them, pick the least loaded over the window (four weeks either side of the
  interview), then the fewest that week, then the lowest id (the same inputs give the
  same panel); people the caller asked to avoid (a re-roll) come after everyone else;
* until the interview has the interviewers it wants; then, if a trainee of the pool
  needs a shadow seat (their next step) or a reverse-shadow seat (shadows signed
  off), passes the same checks, and the panel has a qualified interviewer for them to
  shadow or to sign them off, the least loaded such trainee in the panel's one
  shadow seat;
* an interview without a time is checked only against limits of the current week;
* a shortfall says what is missing: no pool, no qualified interviewer, or how many
  were busy, outside their hours, at their limit or already on the loop.

Every pick counts at once: a person picked for one interview is on the loop and busy
then for the next.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo

from interviews import clashes

WINDOW = timedelta(days=28)

# Problem names, in the order a shortfall lists them.
PROBLEMS = {
    "busy": "busy then",
    "hours": "outside their working hours",
    "day_limit": "at their daily limit",
    "week_limit": "at their weekly limit",
    "on_loop": "already on this loop",
}


@dataclass(frozen=True)
class Person:
    user_id: int
    name: str
    zone: tzinfo
    per_day: int
    per_week: int
    day_start: time
    day_end: time


@dataclass(frozen=True)
class Trainee:
    person: Person
    membership_id: int
    # The seat their path needs next ("shadow", "reverse_shadow"), or None (waiting for
    # a sign-off, or nothing left but the calibration requirements).
    needs: str | None
    step: str = ""  # "shadow 2 of 2", for the reason


@dataclass(frozen=True)
class PoolView:
    pool_id: int
    name: str
    qualified: tuple[Person, ...]
    trainees: tuple[Trainee, ...] = ()


@dataclass(frozen=True)
class Spec:
    interview_id: int
    title: str
    minutes: int
    wanted: int
    start: datetime | None
    end: datetime | None
    pool: PoolView | None


@dataclass(frozen=True)
class Pick:
    user_id: int
    name: str
    kind: str  # "interviewer", "shadow" or "reverse_shadow"
    reason: str
    membership_id: int | None = None


@dataclass
class PanelPlan:
    spec: Spec
    picks: list[Pick] = field(default_factory=list)
    shortfall: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Diary:
    """Everyone's seats (start, end) over the window, and who is on the loop."""

    seats: dict[int, list[tuple[datetime, datetime]]]
    on_loop: set[int]
    now: datetime

    def book(self, user_id: int, start: datetime | None, end: datetime | None) -> None:
        self.on_loop.add(user_id)
        if start is not None and end is not None:
            self.seats.setdefault(user_id, []).append((start, end))


def _week(day: date) -> tuple[int, int]:
    iso = day.isocalendar()
    return (iso[0], iso[1])


def counts(person: Person, diary: Diary, at: datetime) -> tuple[int, int, int]:
    """Return the person's seats on `at`'s day, in its week (their zone) and over the window."""
    local = at.astimezone(person.zone).date()
    day = week = window = 0
    for start, _ in diary.seats.get(person.user_id, ()):
        their = start.astimezone(person.zone).date()
        day += their == local
        week += _week(their) == _week(local)
        window += abs(start - at) < WINDOW
    return day, week, window


def problems(person: Person, spec: Spec, diary: Diary) -> list[str]:
    """Return why the person should not sit on this interview (names from PROBLEMS)."""
    found = []
    if person.user_id in diary.on_loop:
        found.append("on_loop")
    at = spec.start or diary.now
    if spec.start is not None and spec.end is not None:
        start, end = spec.start, spec.end
        if clashes.busy_in(diary.seats.get(person.user_id, ()), start, end):
            found.append("busy")
        local_start, local_end = start.astimezone(person.zone), end.astimezone(person.zone)
        within = (
            local_start.date() == local_end.date()
            and person.day_start <= local_start.time()
            and local_end.time() <= person.day_end
        )
        if not within:
            found.append("hours")
        day, week, _ = counts(person, diary, at)
        if day >= person.per_day:
            found.append("day_limit")
    else:
        _, week, _ = counts(person, diary, at)
    if week >= person.per_week:
        found.append("week_limit")
    return found


def _span(spec: Spec, viewer_zone: tzinfo) -> str:
    if spec.start is None or spec.end is None:
        return "no time set yet"
    start, end = spec.start.astimezone(viewer_zone), spec.end.astimezone(viewer_zone)
    return f"free {start:%H:%M}-{end:%H:%M} {end:%Z}"


def reason_for(person: Person, spec: Spec, diary: Diary, viewer_zone: tzinfo, what: str) -> str:
    _, week, _ = counts(person, diary, spec.start or diary.now)
    return (
        f"{what}, {week} interview{'' if week == 1 else 's'} this week of {person.per_week}, "
        f"{_span(spec, viewer_zone)}"
    )


def _ranked(people: Iterable[Person], spec: Spec, diary: Diary, avoid: set[int]) -> list[Person]:
    at = spec.start or diary.now

    def key(person: Person) -> tuple[bool, int, int, int]:
        _, week, window = counts(person, diary, at)
        return (person.user_id in avoid, window, week, person.user_id)

    return sorted(people, key=key)


def length_warning(spec: Spec, viewer_zone: tzinfo) -> str | None:
    """Point out a booked time whose length is not the interview's minutes."""
    if spec.start is None or spec.end is None:
        return None
    booked = int((spec.end - spec.start).total_seconds() // 60)
    if booked == spec.minutes:
        return None
    start, end = spec.start.astimezone(viewer_zone), spec.end.astimezone(viewer_zone)
    return (
        f"{spec.title} is booked for {booked} minutes ({start:%H:%M}-{end:%H:%M} {end:%Z}) "
        f"but takes {spec.minutes}."
    )


def shortfall(spec: Spec, have: int, tally: dict[str, int]) -> str:
    if spec.pool is None:
        return f"{spec.title} has no interviewer pool: choose its panel by hand."
    if not spec.pool.qualified:
        return f"{spec.title}: pool {spec.pool.name} has no qualified interviewer."
    why = ", ".join(f"{n} {PROBLEMS[name]}" for name, n in tally.items() if n)
    total = len(spec.pool.qualified)
    return (
        f"{spec.title} needs {spec.wanted} interviewer{'' if spec.wanted == 1 else 's'}, "
        f"{have} proposed: of {total} qualified in {spec.pool.name}, {why}."
    )


def plan_panels(
    specs: Sequence[Spec], diary: Diary, *, viewer_zone: tzinfo, avoid: Iterable[int] = ()
) -> list[PanelPlan]:
    """Return a panel plan per interview, in order (the module docstring's rules)."""
    avoiding = set(avoid)
    plans = []
    for spec in specs:
        plan = PanelPlan(spec)
        warning = length_warning(spec, viewer_zone)
        if warning:
            plan.warnings.append(warning)
        pool = spec.pool
        tally = dict.fromkeys(PROBLEMS, 0)
        if pool is not None:
            fitting = []
            for person in pool.qualified:
                found = problems(person, spec, diary)
                if found:
                    tally[found[0]] += 1  # each person counted once, by their first problem
                else:
                    fitting.append(person)
            for person in _ranked(fitting, spec, diary, avoiding)[: spec.wanted]:
                what = f"qualified for {pool.name}"
                reason = reason_for(person, spec, diary, viewer_zone, what)
                plan.picks.append(Pick(person.user_id, person.name, "interviewer", reason))
                diary.book(person.user_id, spec.start, spec.end)
            trainee = _trainee_for(pool, spec, diary, avoiding, have_interviewer=bool(plan.picks))
            if trainee is not None:
                assert trainee.needs is not None
                what = f"training for {pool.name}: {trainee.step}"
                reason = reason_for(trainee.person, spec, diary, viewer_zone, what)
                plan.picks.append(
                    Pick(
                        trainee.person.user_id,
                        trainee.person.name,
                        trainee.needs,
                        reason,
                        trainee.membership_id,
                    )
                )
                diary.book(trainee.person.user_id, spec.start, spec.end)
        have = sum(1 for pick in plan.picks if pick.kind == "interviewer")
        if have < spec.wanted:
            plan.shortfall = shortfall(spec, have, tally)
        plans.append(plan)
    return plans


def _trainee_for(
    pool: PoolView, spec: Spec, diary: Diary, avoid: set[int], *, have_interviewer: bool
) -> Trainee | None:
    fitting = [
        trainee
        for trainee in pool.trainees
        if have_interviewer and trainee.needs in ("shadow", "reverse_shadow")
        if not problems(trainee.person, spec, diary)
    ]
    if not fitting:
        return None
    by_person = {trainee.person.user_id: trainee for trainee in fitting}
    best = _ranked([trainee.person for trainee in fitting], spec, diary, avoid)[0]
    return by_person[best.user_id]
