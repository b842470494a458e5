"""Proposing a loop's panels against building its questions, in the same run.

Run from the repository root:  python bench/staffing.py

It builds the question bank of bench/assemble.py (10,000 questions, 500 earlier
loops) in a throwaway SQLite database, then five pools of 200 interviewers (some
in training, some with their own limits and zones) and a year of their interviews
(three seats a day on average each working day), and a loop of five scheduled
interviews, one per pool. It times

* baseline: selectors.loop_plan, everything question assembly does for the loop;
* interviews.pools.selectors.staffing_proposal: everything proposing its panels does;

and prints the median of several runs of each and their ratio. No assertions.
"""

import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from assemble import build_bank, medians, setup_django

POOLS = 5
PEOPLE = 200
DAYS = 365


def build_people(role, level):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.utils import timezone

    from core.accounts.models import Profile
    from interviews.models import Candidate, Interview, Loop, Panelist
    from interviews.pools.models import InterviewerLimits, Pool, PoolMembership
    from kit.models import LoopTemplate

    rng = random.Random(7)
    zones = ["Europe/Berlin", "Europe/London", "America/New_York", "Asia/Kolkata", ""]
    with transaction.atomic():
        template = LoopTemplate.objects.get(role=role, level=level)
        slots = list(template.slots.order_by("order"))
        users = User.objects.bulk_create(
            [User(username=f"interviewer-{n}") for n in range(POOLS * PEOPLE)], batch_size=2000
        )
        Profile.objects.bulk_create(
            [Profile(user=u, time_zone=rng.choice(zones)) for u in users], batch_size=2000
        )
        InterviewerLimits.objects.bulk_create(
            [
                InterviewerLimits(user=u, per_day=2, per_week=rng.choice([3, 4, 6]))
                for u in users[::2]
            ]
        )
        pools = [Pool(name=slot.title, slot=slot, role=role) for slot in slots]
        pools.append(Pool(name="Any L5", role=role))
        pools = Pool.objects.bulk_create(pools[:POOLS])
        PoolMembership.objects.bulk_create(
            [
                PoolMembership(
                    pool=pools[n // PEOPLE],
                    user=u,
                    status="training" if n % 25 == 0 else "qualified",
                )
                for n, u in enumerate(users)
            ],
            batch_size=2000,
        )
        now = timezone.now().replace(minute=0, second=0, microsecond=0)
        history = Loop.objects.create(
            candidate=Candidate.objects.create(name="History"), role=role, level=level
        )
        past = Interview.objects.bulk_create(
            [
                Interview(
                    loop=history, order=n + 1, title="Earlier", minutes=60,
                    scheduled_start=now - timedelta(hours=n * 8 - 4 * 24 * 7),
                    scheduled_end=now - timedelta(hours=n * 8 - 4 * 24 * 7 - 1),
                )
                for n in range(DAYS * 3)
            ],
            batch_size=2000,
        )  # fmt: skip
        Panelist.objects.bulk_create(
            [Panelist(interview=i, user=u) for i in past for u in rng.sample(users, 2)],
            batch_size=5000,
        )
        loop = Loop.objects.create(
            candidate=Candidate.objects.create(name="Staffed"), role=role, level=level
        )
        # A Wednesday at 12:00 UTC: working hours from London and Berlin, not New York.
        day = now + timedelta(days=9)
        start = day.replace(hour=12) + timedelta(days=(2 - day.weekday()) % 7)
        for n in range(POOLS):
            Interview.objects.create(
                loop=loop, order=n + 1, title=f"Interview {n + 1}", minutes=60,
                slot=slots[n] if n < len(slots) else None, interviewers_wanted=2,
                scheduled_start=start + timedelta(hours=n),
                scheduled_end=start + timedelta(hours=n + 1),
            )  # fmt: skip
        viewer = User.objects.create(username="recruiter")
    return Loop.objects.select_related("role", "level", "candidate").get(pk=loop.pk), viewer


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-staffing-") as tmp:
        setup_django(Path(tmp) / "bench.sqlite3")
        from interviews import selectors
        from interviews.pools.selectors import staffing_proposal

        started = time.perf_counter()
        role, level, candidate = build_bank()
        loop, viewer = build_people(role, level)
        print(f"built the bank, {POOLS} pools of {PEOPLE} and {DAYS} days of seats "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip

        def assemble():  # type: ignore[no-untyped-def]
            return selectors.loop_plan(candidate=candidate, role=role, level=level)

        def staff():  # type: ignore[no-untyped-def]
            return staffing_proposal(loop=loop, viewer=viewer)

        plans = staff()
        picked = sum(len(plan.picks) for plan in plans)
        base, proposal = medians(assemble, staff)
        print(f"question assembly (baseline): {base * 1000:8.1f} ms")
        print(f"panel proposal ({picked} picks):  {proposal * 1000:8.1f} ms")
        print(f"ratio proposal / assembly: {proposal / base:.2f}")


if __name__ == "__main__":
    main()
