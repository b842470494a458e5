import random
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

from core.outbox.models import OutgoingEmail
from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from interviews import services as interview_services
from interviews.models import Loop, Panelist
from interviews.pools import services as pool_services
from interviews.pools.models import TrainingSeat
from kit.ladder import ensure_ladder
from kit.models import Level, Question, Role
from kit.services import loop_templates_import
from scoring.models import Scorecard
from scoring.scorecards import hiring, services

DATA = Path(settings.BASE_DIR) / "kit" / "data"
STARTER_ROLE = "AI Infrastructure Engineer"  # the starter bank's role
INTERVIEWERS = ["Ada", "Brian", "Chen", "Dana", "Emeka", "Farah"]
DEMO_USERS = [
    ("demo-recruiter", "Riley", "Recruiter", RECRUITER),
    ("demo-lead", "Lee", "Calibration", LEAD),
    # An interviewer too, who builds and staffs the starter role's loops (owns it).
    ("demo-hiring-manager", "Harley", "Manager", HIRING_MANAGER),
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
# Just applied: no loop yet, for the recruiter to build one.
NEW_CANDIDATE = "Finley Park"
# Earlier candidates whose loops are decided: enough history for calibration to say something.
HISTORY = [
    "Harper Ng", "Jordan Silva", "Kai Andersen", "Logan Mwangi", "Morgan Petrov", "Noa Haddad",
    "Parker Ito", "Quinn Obi", "Reese Kowalski", "Sage Romero", "Taylor Brandt", "Uma Castillo",
    "Val Moreau", "Wren Adeyemi", "Yuri Lin", "Zion Keller", "Ari Novak", "Bo Fischer",
]  # fmt: skip
# Planted rater tendencies, in rating points, so the calibration dashboard has a story:
# interviewer 3 rates generously, interviewer 5 harshly.
TENDENCY = {1: 0.0, 2: 0.1, 3: 0.7, 4: -0.1, 5: -0.6, 6: 0.0}
SUMMARIES = {
    "strong_yes": "Deep, precise answers with numbers; drove the follow-ups unprompted.",
    "yes": "Solid on the core points; some gaps on what a strong answer adds.",
    "no": "Covered parts of the basics; struggled when pushed on trade-offs.",
    "strong_no": "Missed core points and showed a red flag under follow-up.",
}


class Command(BaseCommand):
    help = """Load the starter bank, loop templates, demo users, candidates and loops.

    Users: demo-recruiter, demo-lead, demo-hiring-manager (an interviewer who owns
    the starter role, so builds and staffs its loops), demo-interviewer-1 to
    demo-interviewer-6, all with the given password. The starter bank (kit/data/starter_bank.yaml)
    goes through import_questions, so running this twice changes nothing there;
    candidates and loops are created once, with an interviewer pool for the starter
    role's L5 and up (interviewer 6 training midway, interviewer 1 at their weekly limit).
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
        ensure_ladder(Level, Group)
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
        hiring_manager = users["demo-hiring-manager"]
        hiring_manager.groups.add(Group.objects.get(name=INTERVIEWER))
        Role.objects.get(name=STARTER_ROLE).owners.add(hiring_manager)
        if not Loop.objects.exists():
            last_email = OutgoingEmail.objects.order_by("-pk").values_list("pk", flat=True).first()
            self._history(users)
            self._loops(users)
            self._pools(users)
            # The demo's invites and decisions tell no one: drop them before they go out
            # (their send, after this commits, then finds nothing to send).
            OutgoingEmail.objects.filter(pk__gt=last_email or 0).delete()
        self.stdout.write(
            f"Demo ready: {Question.objects.count()} questions, {Loop.objects.count()} loops; "
            f"users {', '.join(u[0] for u in DEMO_USERS)} (password: {password})"
        )

    def _history(self, users: dict[str, User]) -> None:
        """Create decided loops from the last 90 days, scored with planted tendencies."""
        rng = random.Random(7)
        levels = list(Level.objects.order_by("rank"))
        panel = [users[f"demo-interviewer-{n}"] for n in range(1, len(INTERVIEWERS) + 1)]
        start = timezone.now().replace(hour=10, minute=0, second=0, microsecond=0)
        for index, name in enumerate(HISTORY):
            ability = rng.gauss(0, 0.8)
            loop = self._scheduled_loop(
                name, levels[index % 4], start - timedelta(days=85 - 4 * index), panel, index, users
            )
            for interview in loop.interviews.all():
                for seat in interview.panel.all():
                    self._score(interview, seat.user, ability, rng, panel)
            mean = ability + 2.5
            decision = "hire" if mean + rng.gauss(0, 0.3) > 2.7 else "no_hire"
            # A hire against a panel that mostly said no says why (scoring/scorecards/hiring.py).
            against = hiring.needs_rationale(decision=decision, panel=hiring.loop_panel(loop))
            services.loop_decide(
                loop=loop,
                by=users["demo-recruiter"],
                decision=decision,
                rationale=(
                    "Hired against the panel's no: the ratings, read question by question,"
                    " were stronger than the recommendations, and the debrief agreed."
                    if against
                    else "Decided in the debrief from the panel's evidence."
                ),
            )
            # Decided in the debrief two days after the last interview (or just now).
            ends = [i.scheduled_end for i in loop.interviews.all()]
            last = max(end for end in ends if end is not None)  # _scheduled_loop sets them all
            decided = min(last + timedelta(days=2), timezone.now())
            Loop.objects.filter(pk=loop.pk).update(decided_at=decided)

    def _score(
        self, interview: Any, user: User, ability: float, rng: random.Random, panel: list[User]
    ) -> Scorecard:
        """Fill and submit a scorecard the way this interviewer tends to rate."""
        tendency = TENDENCY[panel.index(user) + 1]
        ratings = []
        for item in interview.questions.select_related("version").prefetch_related(
            "version__rubric", "version__follow_ups"
        ):
            difficulty = ((item.question_id * 37) % 7 - 3) / 10
            value = round(2.5 + ability + tendency - difficulty + rng.gauss(0, 0.5))
            value = max(1, min(item.version.scale_max, value))
            rubric = list(item.version.rubric.all())
            share = (value - 1) / (item.version.scale_max - 1)
            checked = [
                r.pk
                for r in rubric
                if (r.kind == "red_flag" and value == 1)
                or (r.kind == "core" and rng.random() < 0.2 + 0.8 * share)
                or (r.kind == "strong" and value == item.version.scale_max)
            ]
            follow_ups = [f.pk for f in item.version.follow_ups.all()][:1]
            ratings.append(
                services.RatingInput(
                    item=item.pk,
                    rating=value,
                    checked=tuple(checked),
                    follow_ups_asked=tuple(follow_ups),
                )
            )
        mean = sum(r.rating or 0 for r in ratings) / max(len(ratings), 1)
        recommendation = (
            "strong_yes"
            if mean >= 3.6
            else "yes"
            if mean >= 2.6
            else "no"
            if mean >= 1.8
            else "strong_no"
        )
        card = services.scorecard_start(interview=interview, by=user)
        services.scorecard_save_draft(
            scorecard=card,
            by=user,
            recommendation=recommendation,
            summary=SUMMARIES[recommendation],
            ratings=ratings,
        )
        card = services.scorecard_submit(scorecard=card, by=user)
        end = interview.scheduled_end
        if end is not None and end < card.submitted_at:
            # History: the card went in some hours after its interview, not when this ran.
            at = min(end + timedelta(hours=rng.uniform(1, 30)), card.submitted_at)
            Scorecard.objects.filter(pk=card.pk).update(created_at=end, updated_at=at,
                                                        submitted_at=at)  # fmt: skip
            card.created_at, card.updated_at, card.submitted_at = end, at, at
        return card

    def _scheduled_loop(
        self, name: str, level: Level, start: Any, panel: list[User], index: int, users: dict
    ) -> Loop:
        slug = name.lower().replace(" ", ".")
        candidate = interview_services.candidate_create(
            name=name, email=f"{slug}@candidates.example", phone=f"+1 555 01{index:02d}"
        )
        loop = interview_services.loop_create(
            candidate=candidate,
            role=Role.objects.get(name=STARTER_ROLE),
            level=level,
            by=users["demo-recruiter"],
        )
        for n, interview in enumerate(loop.interviews.order_by("order")):
            seats = interview.slot.interviewer_count if interview.slot else 1
            # Rotate through the panel so everyone interviews everyone's candidates.
            chosen = [panel[(index + n + k) % len(panel)] for k in range(seats)]
            begins = start + timedelta(hours=n)
            interview_services.interview_update(
                interview=interview,
                interviewers=chosen,
                shadow=panel[(index + n + 3) % len(panel)] if n == 0 and index % 3 == 0 else None,
                scheduled_start=begins,
                scheduled_end=begins + timedelta(minutes=interview.minutes),
            )
        return loop

    def _loops(self, users: dict[str, User]) -> None:
        """The current candidates: two past loops in debrief, one half scored, two upcoming."""
        rng = random.Random(11)
        panel = [users[f"demo-interviewer-{n}"] for n in range(1, len(INTERVIEWERS) + 1)]
        day = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0)
        interview_services.candidate_create(
            name=NEW_CANDIDATE, email="finley.park@candidates.example", phone="+1 555 0199"
        )
        for index, (name, level, offset) in enumerate(CANDIDATES):
            loop = self._scheduled_loop(
                name, Level.objects.get(name=level), day + timedelta(days=offset), panel,
                len(HISTORY) + index, users,
            )  # fmt: skip
            if offset >= 0:
                continue
            ability = rng.gauss(0.3, 0.6)
            for n, interview in enumerate(loop.interviews.all()):
                for seat in interview.panel.all():
                    # The most recent loop is still being scored: demo-interviewer-1 owes a card.
                    if offset == -5 and seat.user.username == "demo-interviewer-1":
                        continue
                    if offset == -5 and n % 2:
                        continue
                    self._score(interview, seat.user, ability, rng, panel)

    def _pools(self, users: dict[str, User]) -> None:
        """A pool of the starter role's L5+ interviewers: interviewer 6 training (one
        shadow of two signed ready), interviewer 1 at their weekly limit."""
        lead = users["demo-lead"]
        role = Role.objects.get(name=STARTER_ROLE)
        # L5 and up: the generated-client test staffs an L4 loop with every demo interviewer.
        pool = pool_services.pool_create(
            name=f"{STARTER_ROLE} L5+", role=role, level_min=Level.objects.get(name="L5"), by=lead
        )
        for n in range(1, len(INTERVIEWERS)):
            pool_services.membership_add(pool=pool, user=users[f"demo-interviewer-{n}"], by=lead)
        trainee = users[f"demo-interviewer-{len(INTERVIEWERS)}"]
        membership = pool_services.membership_add(
            pool=pool, user=trainee, status="training", by=lead
        )
        past = (
            Panelist.objects.filter(interview__loop__role=role, is_shadow=False)
            .exclude(user=trainee)
            .filter(interview__scheduled_start__lt=timezone.now())
            .order_by("-interview__scheduled_start")
            .first()
        )
        if past is not None:
            seat = TrainingSeat.objects.create(
                membership=membership, interview_id=past.interview_id, kind="shadow"
            )
            pool_services.seat_sign_off(
                seat=seat, ready=True, note="Took clear notes; asked good follow-ups.", by=lead
            )
        busy = users["demo-interviewer-1"]
        now = timezone.now()
        week = Panelist.objects.filter(
            user=busy,
            interview__scheduled_start__gte=now - timedelta(days=now.weekday()),
            interview__scheduled_start__lt=now + timedelta(days=7 - now.weekday()),
        ).count()
        pool_services.limits_set(user=busy, by=lead, per_day=1, per_week=max(1, week))
