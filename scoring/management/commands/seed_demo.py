from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.utils import timezone

from interviews import services as interview_services
from interviews.models import Loop
from kit.models import Level, Question, Role
from kit.permissions import INTERVIEWER, LEAD, RECRUITER
from kit.services import loop_templates_import

DATA = Path(settings.BASE_DIR) / "kit" / "data"
INTERVIEWERS = ["Ada", "Brian", "Chen", "Dana", "Emeka", "Farah"]
DEMO_USERS = [
    ("demo-recruiter", "Riley", "Recruiter", RECRUITER),
    ("demo-lead", "Lee", "Calibration", LEAD),
    *[
        (f"demo-interviewer-{n}", name, "Interviewer", INTERVIEWER)
        for n, name in enumerate(INTERVIEWERS, start=1)
    ],
]
# (name, level, days from now of the first interview): past loops and upcoming ones.
CANDIDATES = [
    ("Avery Quinn", "L4", -20),
    ("Blake Moreno", "L5", -12),
    ("Casey Lindqvist", "L5", -5),
    ("Devon Okafor", "L6", 2),
    ("Emery Tanaka", "L3", 4),
]


class Command(BaseCommand):
    help = """Load the starter bank, loop templates, demo users, candidates and loops.

    Users: demo-recruiter, demo-lead, demo-interviewer-1 to demo-interviewer-6,
    all with the given password. The starter bank (kit/data/starter_bank.yaml)
    goes through import_questions, so running this twice changes nothing there;
    candidates and loops are created once.
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", default="demo", help="password for every demo user")
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if the bank already has questions"
        )

    @transaction.atomic
    def handle(self, *args: Any, password: str, if_empty: bool, **options: Any) -> None:
        if if_empty and Question.objects.exists():
            self.stdout.write("The database already has questions; leaving it as it is.")
            return
        call_command("import_questions", str(DATA / "starter_bank.yaml"), stdout=self.stdout)
        loop_templates_import(document=yaml.safe_load((DATA / "loop_templates.yaml").read_text()))
        users = {}
        for username, first, last, persona in DEMO_USERS:
            user, _ = User.objects.get_or_create(
                username=username,
                defaults={
                    "first_name": first,
                    "last_name": last,
                    "email": f"{username}@example.com",
                },
            )
            user.set_password(password)
            user.save()
            user.groups.add(Group.objects.get(name=persona))
            users[username] = user
        if not Loop.objects.exists():
            self._loops(users)
        self.stdout.write(
            f"Demo ready: {Question.objects.count()} questions, {Loop.objects.count()} loops; "
            f"users {', '.join(u[0] for u in DEMO_USERS)} (password: {password})"
        )

    def _loops(self, users: dict[str, User]) -> None:
        role = Role.objects.get(name="AI Infrastructure Engineer")
        panel = [users[f"demo-interviewer-{n}"] for n in range(1, len(INTERVIEWERS) + 1)]
        day = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0)
        for index, (name, level, offset) in enumerate(CANDIDATES):
            slug = name.lower().replace(" ", ".")
            candidate = interview_services.candidate_create(
                name=name, email=f"{slug}@candidates.example", phone=f"+1 555 01{index:02d}"
            )
            loop = interview_services.loop_create(
                candidate=candidate,
                role=role,
                level=Level.objects.get(name=level),
                by=users["demo-recruiter"],
            )
            start = day + timedelta(days=offset)
            for n, interview in enumerate(loop.interviews.order_by("order")):
                seats = interview.slot.interviewer_count if interview.slot else 1
                # Rotate through the panel so everyone interviews everyone's candidates.
                chosen = [panel[(index + n + k) % len(panel)] for k in range(seats)]
                begins = start + timedelta(hours=n)
                interview_services.interview_update(
                    interview=interview,
                    interviewers=chosen,
                    shadow=panel[(index + n + 3) % len(panel)] if n == 0 else None,
                    scheduled_start=begins,
                    scheduled_end=begins + timedelta(minutes=interview.minutes),
                )
