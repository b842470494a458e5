"""Seed a database for the load bench and the fault scripts; write the clients' plan as JSON.

Called with Django set up (bench.loadsite.stack.Stack.python):
``write_plan(PATH, clients=16, seats=100)``.

1. The level ladder, groups, starter bank and loop templates (as seed_demo loads them).
2. One interviewer per client (``load-01`` ...) with an API token.
3. Loops assembled from the L5 and L6 templates (the product's own assembly), each
   interview's panel drawn from the load interviewers so that every client holds
   at least ``seats`` seats, none of them submitted yet: each submit is real work.

The plan lists, per client, its token and its seats in order: the interview, its
loop, and each question asked with the rubric items and follow-ups it may tick.
"""

import itertools
import json
from datetime import timedelta
from pathlib import Path

import yaml
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from core.accounts.tokens import token_issue
from core.permissions import INTERVIEWER
from interviews import services as interview_services
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.ladder import ensure_ladder
from kit.models import Level, Role
from kit.services import loop_templates_import

DATA = Path(settings.BASE_DIR) / "kit" / "data"


def seed(*, clients: int, seats: int) -> dict:
    # What seed_demo starts with, without its demo history (which only slows seeding).
    ensure_ladder(Level, Group)
    if not Role.objects.filter(name="AI Infrastructure Engineer").exists():
        call_command("import_questions", str(DATA / "starter_bank.yaml"), verbosity=0)
        loop_templates_import(document=yaml.safe_load((DATA / "loop_templates.yaml").read_text()))
    group = Group.objects.get(name=INTERVIEWER)
    users = []
    for n in range(1, clients + 1):
        user, _ = User.objects.get_or_create(username=f"load-{n:02d}")
        user.groups.add(group)
        users.append(user)
    tokens = {u.pk: token_issue(user=u).key for u in users}
    role = Role.objects.get(name="AI Infrastructure Engineer")
    levels = itertools.cycle(Level.objects.filter(name__in=["L5", "L6"]).order_by("rank"))
    held = {u.pk: 0 for u in users}
    start = timezone.now() - timedelta(days=1)
    while min(held.values()) < seats:
        with transaction.atomic():
            candidate = Candidate.objects.create(name=f"Load candidate {Loop.objects.count()}")
            level = next(levels)
            loop = interview_services.loop_create(candidate=candidate, role=role, level=level)
            # The least busy interviewers, preferring those not yet on this loop.
            in_loop: set[int] = set()
            panel = []
            for interview in loop.interviews.select_related("slot").order_by("order"):
                wanted = interview.slot.interviewer_count if interview.slot else 1
                queue = sorted(users, key=lambda u: (u.pk in in_loop, held[u.pk]))
                for user in queue[:wanted]:
                    panel.append(Panelist(interview=interview, user=user))
                    held[user.pk] += 1
                    in_loop.add(user.pk)
                Interview.objects.filter(pk=interview.pk).update(
                    scheduled_start=start, scheduled_end=start + timedelta(minutes=60)
                )
            Panelist.objects.bulk_create(panel)
            Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.SCHEDULED)

    items: dict[int, list[dict]] = {}
    for item in (
        InterviewQuestion.objects.filter(loop__candidate__name__startswith="Load candidate")
        .select_related("version")
        .prefetch_related("version__rubric", "version__follow_ups")
        .order_by("interview_id", "order")
    ):
        items.setdefault(item.interview_id, []).append(
            {
                "item": item.pk,
                "scale": item.version.scale_max,
                "rubric": [r.pk for r in item.version.rubric.all()],
                "follow_ups": [f.pk for f in item.version.follow_ups.all()],
            }
        )
    plan: dict = {"clients": []}
    for user in users:
        seats_of = (
            Panelist.objects.filter(user=user)
            .select_related("interview")
            .order_by("interview__loop_id", "interview_id")
        )
        plan["clients"].append(
            {
                "username": user.username,
                "token": tokens[user.pk],
                "seats": [
                    {
                        "interview": seat.interview_id,
                        "loop": seat.interview.loop_id,
                        "items": items[seat.interview_id],
                    }
                    for seat in seats_of
                ],
            }
        )
    return plan


def write_plan(path: str, *, clients: int, seats: int) -> None:
    plan = seed(clients=clients, seats=seats)
    Path(path).write_text(json.dumps(plan))
    total = sum(len(c["seats"]) for c in plan["clients"])
    print(f"seeded {Loop.objects.count()} loops, {total} load seats")
