"""Proposing a loop's panels from its pools (selectors.staffing_proposal) on the database."""

import random
from datetime import timedelta

from django.contrib.auth.models import User

from core.accounts.models import Profile
from interviews.models import Candidate, Interview, Loop, Panelist
from interviews.pools import selectors, services
from interviews.pools.models import InterviewerLimits, Pool, PoolMembership
from kit.models import Level
from kit.services import SlotData, loop_template_save
from tests.interviews.pools.conftest import END, START, interviewer_in


def test_it_proposes_from_the_slots_pool_with_reasons_and_a_trainee(
    pool, recruiter, scheduled, world
):
    Profile.objects.create(user=recruiter, time_zone="Europe/London")
    busy, least, trainee = interviewer_in("bea"), interviewer_in("cal"), interviewer_in("dev")
    at_limit = interviewer_in("eve", per_day=1, per_week=1)
    for person in (busy, least, at_limit):
        services.membership_add(pool=pool, user=person, by=recruiter)
    services.membership_add(pool=pool, user=trainee, status="training", by=recruiter)
    other = Loop.objects.create(candidate=Candidate.objects.create(name="X"), role=world.role,
                                level=world.level)  # fmt: skip
    clash = Interview.objects.create(loop=other, order=1, title="X", minutes=45,
                                     scheduled_start=START, scheduled_end=END)  # fmt: skip
    Panelist.objects.create(interview=clash, user=busy)
    earlier = Interview.objects.create(loop=other, order=2, title="Y", minutes=45,
                                       scheduled_start=START - timedelta(days=1),
                                       scheduled_end=END - timedelta(days=1))  # fmt: skip
    Panelist.objects.create(interview=earlier, user=at_limit)

    serving, training = selectors.staffing_proposal(loop=scheduled[0].loop, viewer=recruiter)
    picks = [(p.name, p.kind, p.reason) for p in serving.picks]
    assert picks == [
        ("Cal", "interviewer",
         "qualified for Serving, 0 interviews this week of 4, free 12:00-12:45 GMT"),
        ("Dev", "shadow",
         "training for Serving: shadow 1 of 2, 0 interviews this week of 4, free 12:00-12:45 GMT"),
    ]  # fmt: skip
    assert serving.shortfall is None
    assert serving.warnings == []
    assert training.picks == []
    assert training.shortfall == "Training has no interviewer pool: choose its panel by hand."


def test_a_pool_with_nobody_qualified_says_so(pool, recruiter, scheduled):
    services.membership_add(pool=pool, user=interviewer_in("dev"), status="training", by=recruiter)
    serving, _ = selectors.staffing_proposal(loop=scheduled[0].loop, viewer=recruiter)
    assert serving.picks == []
    assert serving.shortfall == "Serving: pool Serving has no qualified interviewer."


def test_a_staffed_interview_is_left_alone_and_its_people_count_as_on_the_loop(
    pool, recruiter, scheduled, world
):
    cal, dee = interviewer_in("cal"), interviewer_in("dee")
    for person in (cal, dee):
        services.membership_add(pool=pool, user=person, by=recruiter)
    # A role pool for the Training interview (two interviewers wanted), with Cal in it.
    role_pool = services.pool_create(name="Any L5", role=world.role, by=recruiter)
    services.membership_add(pool=role_pool, user=cal, by=recruiter)
    Panelist.objects.create(interview=scheduled[0], user=cal)
    [training] = selectors.staffing_proposal(loop=scheduled[0].loop, viewer=recruiter)
    assert training.picks == []
    assert training.shortfall == (
        "Training needs 2 interviewers, 0 proposed: of 1 qualified in Any L5, "
        "1 already on this loop."
    )


def test_a_loop_of_five_with_pools_of_200_and_a_year_of_history_is_seven_queries(
    recruiter, django_assert_max_num_queries
):
    from kit.models import Role

    role = Role.objects.create(name="Load")
    l5 = Level.objects.get(name="L5")
    template = loop_template_save(
        role=role, level=l5, name="Five",
        slots=[SlotData(f"Slot {n}", 60, (), 1, 2) for n in range(5)],
    )  # fmt: skip
    slots = list(template.slots.order_by("order"))
    users = User.objects.bulk_create([User(username=f"u{n}") for n in range(1000)])
    Profile.objects.bulk_create([Profile(user=u, time_zone="Europe/Berlin") for u in users[::2]])
    InterviewerLimits.objects.bulk_create(
        [InterviewerLimits(user=u, per_week=8) for u in users[::3]]
    )
    pools = Pool.objects.bulk_create(
        [Pool(name=f"Pool {n}", slot=slot, role=role) for n, slot in enumerate(slots)]
    )
    PoolMembership.objects.bulk_create(
        [
            PoolMembership(
                pool=pools[n // 200], user=u, status="training" if n % 40 == 0 else "qualified"
            )
            for n, u in enumerate(users)
        ]
    )
    candidate = Candidate.objects.create(name="C")
    history = Loop.objects.create(candidate=candidate, role=role, level=l5)
    rng = random.Random(3)
    past = Interview.objects.bulk_create(
        [
            Interview(loop=history, order=n + 1, title="Old", minutes=60,
                      scheduled_start=START - timedelta(hours=n * 9),
                      scheduled_end=START - timedelta(hours=n * 9 - 1))
            for n in range(1000)
        ]
    )  # fmt: skip
    Panelist.objects.bulk_create(
        [Panelist(interview=i, user=u) for i in past for u in rng.sample(users, 3)]
    )
    loop = Loop.objects.create(candidate=Candidate.objects.create(name="D"), role=role, level=l5)
    for n, slot in enumerate(slots):
        Interview.objects.create(
            loop=loop, order=n + 1, slot=slot, title=slot.title, minutes=60,
            interviewers_wanted=2, scheduled_start=START + timedelta(hours=n),
            scheduled_end=START + timedelta(hours=n + 1),
        )  # fmt: skip
    loop = Loop.objects.select_related("role", "level").get(pk=loop.pk)
    # 1 interviews, 2 their seats, 3 pools, 4 members with user, profile and limits,
    # 5 the trainees' seats, 6 everyone's seats over the window, 7 the viewer's profile.
    with django_assert_max_num_queries(7):
        plans = selectors.staffing_proposal(loop=loop, viewer=recruiter)
    assert len(plans) == 5
    assert all(sum(p.kind == "interviewer" for p in plan.picks) == 2 for plan in plans)
