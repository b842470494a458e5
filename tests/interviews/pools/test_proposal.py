"""The panel picker's rules over plain data (interviews.pools.proposal): no database."""

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from interviews.pools.proposal import Diary, Person, PoolView, Spec, Trainee, plan_panels, problems

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
# Tuesday 9 June 2026, 12:00-13:00 UTC: 14:00-15:00 in Berlin (CEST), 08:00-09:00 in New York.
START = datetime(2026, 6, 9, 12, 0, tzinfo=UTC)
END = START + timedelta(hours=1)
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def person(pk: int, zone: ZoneInfo = BERLIN, **extra: object) -> Person:
    values: dict[str, object] = {
        "per_day": 2, "per_week": 4, "day_start": time(9), "day_end": time(17),
    }  # fmt: skip
    values.update(extra)
    return Person(user_id=pk, name=f"P{pk}", zone=zone, **values)  # type: ignore[arg-type]  # test data


def spec(pool: PoolView | None, *, wanted: int = 1, minutes: int = 60, pk: int = 1) -> Spec:
    return Spec(pk, "System design", minutes, wanted, START, END, pool)


def diary(**seats: list[tuple[datetime, datetime]]) -> Diary:
    return Diary(seats={int(k[1:]): v for k, v in seats.items()}, on_loop=set(), now=NOW)


def at(days: float, hours: float = 0) -> tuple[datetime, datetime]:
    start = START + timedelta(days=days, hours=hours)
    return (start, start + timedelta(hours=1))


def test_it_picks_the_least_loaded_over_the_window_and_says_why() -> None:
    pool = PoolView(1, "System design", (person(1), person(2), person(3)))
    seats = diary(u1=[at(-10), at(-3)], u2=[at(-1)], u3=[at(-20), at(-15), at(-12)])
    [plan] = plan_panels([spec(pool)], seats, viewer_zone=BERLIN)
    assert [p.user_id for p in plan.picks] == [2]
    assert plan.picks[0].reason == (
        "qualified for System design, 1 interview this week of 4, free 14:00-15:00 CEST"
    )
    assert plan.shortfall is None


def test_it_shows_the_time_in_the_recruiters_zone() -> None:
    pool = PoolView(1, "System design", (person(1),))
    [plan] = plan_panels([spec(pool)], diary(), viewer_zone=ZoneInfo("Europe/London"))
    assert plan.picks[0].reason.endswith("free 13:00-14:00 BST")


def test_it_reads_working_hours_in_each_persons_own_zone() -> None:
    # 08:00-09:00 in New York: before a 09:00 start there, inside Berlin's day.
    ny, berlin = person(1, NEW_YORK), person(2, BERLIN)
    assert problems(ny, spec(None), diary()) == ["hours"]
    assert problems(berlin, spec(None), diary()) == []
    early = person(3, NEW_YORK, day_start=time(7, 30))
    assert problems(early, spec(None), diary()) == []


def test_it_never_proposes_someone_busy_at_their_limits_or_on_the_loop() -> None:
    busy = person(1)
    daily = person(2, per_day=1)
    weekly = person(3, per_week=2)
    on_loop = person(4)
    free = person(5)
    pool = PoolView(1, "System design", (busy, daily, weekly, on_loop, free))
    seats = diary(u1=[(START + timedelta(minutes=30), END + timedelta(minutes=30))],
                  u2=[at(0, -3)], u3=[at(-1), at(1)], u5=[at(-2), at(-1), at(1)])  # fmt: skip
    seats.on_loop.add(4)
    assert problems(busy, spec(None), seats) == ["busy"]
    assert problems(daily, spec(None), seats) == ["day_limit"]
    assert problems(weekly, spec(None), seats) == ["week_limit"]
    assert problems(on_loop, spec(None), seats) == ["on_loop"]
    [plan] = plan_panels([spec(pool, wanted=2)], seats, viewer_zone=BERLIN)
    assert [p.user_id for p in plan.picks] == [5]
    assert plan.shortfall == (
        "System design needs 2 interviewers, 1 proposed: of 5 qualified in System design, "
        "1 busy then, 0 outside their working hours, 1 at their daily limit, "
        "1 at their weekly limit, 1 already on this loop."
    ).replace("0 outside their working hours, ", "")


def test_back_to_back_is_not_a_clash() -> None:
    seats = diary(u1=[(START - timedelta(hours=1), START)])
    assert problems(person(1), spec(None), seats) == []


def test_the_week_is_monday_to_sunday_in_their_zone() -> None:
    # Sunday 7 June 22:30 UTC is already Monday 8 June in Berlin: same week as the interview.
    sunday_night = datetime(2026, 6, 7, 22, 30, tzinfo=UTC)
    seats = diary(u1=[(sunday_night, sunday_night + timedelta(hours=1))])
    assert problems(person(1, per_week=1), spec(None), seats) == ["week_limit"]
    assert problems(person(1, NEW_YORK, per_week=1, day_start=time(6)), spec(None), seats) == []


def test_a_pick_counts_for_the_next_interview_of_the_loop() -> None:
    pool = PoolView(1, "System design", (person(1), person(2)))
    second = Spec(2, "Coding", 60, 1, START + timedelta(hours=1), END + timedelta(hours=1), pool)
    plans = plan_panels([spec(pool), second], diary(), viewer_zone=BERLIN)
    assert [p.user_id for plan in plans for p in plan.picks] == [1, 2]


def test_a_reroll_puts_the_avoided_last_but_still_uses_them_if_needed() -> None:
    pool = PoolView(1, "System design", (person(1), person(2)))
    [plan] = plan_panels([spec(pool)], diary(), viewer_zone=BERLIN, avoid=[1])
    assert [p.user_id for p in plan.picks] == [2]
    [plan] = plan_panels([spec(pool, wanted=2)], diary(), viewer_zone=BERLIN, avoid=[1])
    assert [p.user_id for p in plan.picks] == [2, 1]


def test_a_trainee_is_added_as_shadow_and_as_reverse_shadow_beside_an_interviewer() -> None:
    shadow = Trainee(person(7), 70, "shadow", "shadow 1 of 2")
    pool = PoolView(1, "System design", (person(1),), (shadow,))
    [plan] = plan_panels([spec(pool)], diary(), viewer_zone=BERLIN)
    assert [(p.user_id, p.kind) for p in plan.picks] == [(1, "interviewer"), (7, "shadow")]
    assert plan.picks[1].reason.startswith(
        "training for System design: shadow 1 of 2, 0 interviews"
    )
    assert plan.picks[1].membership_id == 70

    reverse = Trainee(person(8), 80, "reverse_shadow", "reverse shadow 1 of 1")
    nobody = PoolView(1, "System design", (), (reverse,))
    [plan] = plan_panels([spec(nobody)], diary(), viewer_zone=BERLIN)
    # No qualified interviewer to sign off: no reverse shadow either.
    assert plan.picks == []
    assert plan.shortfall == "System design: pool System design has no qualified interviewer."


def test_a_trainee_waiting_for_a_sign_off_or_outside_hours_is_not_added() -> None:
    waiting = Trainee(person(7), 70, None)
    late = Trainee(person(8, NEW_YORK), 80, "shadow", "shadow 1 of 2")
    pool = PoolView(1, "System design", (person(1),), (waiting, late))
    [plan] = plan_panels([spec(pool)], diary(), viewer_zone=BERLIN)
    assert [p.kind for p in plan.picks] == ["interviewer"]


def test_a_shortfall_says_there_is_no_pool() -> None:
    [plan] = plan_panels([spec(None)], diary(), viewer_zone=BERLIN)
    assert plan.shortfall == "System design has no interviewer pool: choose its panel by hand."


def test_a_booked_length_other_than_the_interviews_minutes_is_pointed_out() -> None:
    pool = PoolView(1, "System design", (person(1),))
    [plan] = plan_panels([spec(pool, minutes=45)], diary(), viewer_zone=BERLIN)
    assert plan.warnings == [
        "System design is booked for 60 minutes (14:00-15:00 CEST) but takes 45."
    ]
    [plan] = plan_panels([spec(pool, minutes=60)], diary(), viewer_zone=BERLIN)
    assert plan.warnings == []


def test_an_unscheduled_interview_is_checked_against_this_weeks_limit_only() -> None:
    pool = PoolView(1, "System design", (person(1, per_week=1), person(2)))
    unscheduled = Spec(1, "System design", 60, 1, None, None, pool)
    seats = diary(u1=[(NOW, NOW + timedelta(hours=1))])
    [plan] = plan_panels([unscheduled], seats, viewer_zone=BERLIN)
    assert [p.user_id for p in plan.picks] == [2]
    assert plan.picks[0].reason.endswith("no time set yet")
