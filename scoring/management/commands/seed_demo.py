from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from kit.models import Question
from kit.permissions import INTERVIEWER, LEAD, RECRUITER

STARTER_BANK = Path(settings.BASE_DIR) / "kit" / "data" / "starter_bank.yaml"
DEMO_USERS = [
    ("demo-recruiter", "Riley", "Recruiter", RECRUITER),
    ("demo-lead", "Lee", "Calibration", LEAD),
    *[
        (f"demo-interviewer-{n}", name, "Interviewer", INTERVIEWER)
        for n, name in enumerate(["Ada", "Brian", "Chen", "Dana", "Emeka", "Farah"], start=1)
    ],
]


class Command(BaseCommand):
    help = """Load the starter question bank and the demo users.

    Users: demo-recruiter, demo-lead, demo-interviewer-1 to demo-interviewer-6,
    all with the given password. The starter bank (kit/data/starter_bank.yaml)
    goes through import_questions, so running this twice changes nothing.
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
        call_command("import_questions", str(STARTER_BANK), stdout=self.stdout)
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
        self.stdout.write(
            f"Demo ready: {Question.objects.count()} questions; users "
            f"{', '.join(u[0] for u in DEMO_USERS)} (password: {password})"
        )
