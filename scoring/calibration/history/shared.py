"""What both import paths share: the result, and creating the people and questions a file names."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, User
from django.utils import timezone

from core.permissions import INTERVIEWER
from interviews.models import Candidate
from kit import services as kit_services
from kit.models import Question, Role
from scoring.calibration import bulk

Progress = Callable[[str, int], None]
IMPORTED = "Imported with historical scorecards."


@dataclass
class HistoryImportResult:
    rows: int
    scorecards: int
    candidates_created: int
    interviewers_created: int
    questions_created: int


@dataclass
class Entities:
    users: dict[str, int]
    candidates: dict[str, int]
    questions: dict[str, Question]  # by casefolded title
    users_created: int
    candidates_created: int
    questions_created: int


def role_questions(role: Role) -> dict[str, Question]:
    return {
        q.title.casefold(): q for q in Question.objects.filter(role=role).select_related("current")
    }


def scale_of(questions: dict[str, Question], key: str, default: int) -> int:
    found = questions.get(key)
    return found.current.scale_max if found and found.current else default


def entities_create(
    *,
    role: Role,
    scale_max: int,
    questions: dict[str, Question],
    interviewers: Iterable[str],
    candidates: Iterable[str],
    titles: dict[str, str],
) -> Entities:
    """Find or create the interviewers (users), candidates (by name) and questions named.

    New questions are drafts on the given scale, for a lead to complete; every
    question's current version is marked used, so later edits make a new one.
    """
    names = list(interviewers)
    users = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    missing = [name for name in names if name not in users]
    User.objects.bulk_create(
        [User(username=name, password=make_password(None)) for name in missing], batch_size=2000
    )
    users.update(User.objects.filter(username__in=missing).values_list("username", "pk"))
    Group.objects.get(name=INTERVIEWER).user_set.add(*[users[name] for name in missing])

    wanted = list(candidates)
    people: dict[str, int] = {}
    for name, pk in Candidate.objects.filter(name__in=wanted).values_list("name", "pk"):
        people.setdefault(name, pk)
    fresh = [name for name in wanted if name not in people]
    now = timezone.now()
    ids = bulk.insert(Candidate, ["name", "email", "phone", "notes", "created_at"],
                      [(name, "", "", "", now) for name in fresh])  # fmt: skip
    people.update(zip(fresh, ids, strict=True))

    new = {key: title for key, title in titles.items() if key not in questions}
    drafts = kit_services.questions_create_drafts(
        role=role,
        titles=new.values(),
        content=kit_services.Content(
            prompt="",
            outline="Imported with historical scorecards. Add the sample answer outline.",
            scale_max=scale_max,
            rubric=(("Answer meets the bar for this question.", "core"),),
        ),
    )
    questions.update((key, drafts[title]) for key, title in new.items())
    kit_services.question_versions_mark_used(
        version_ids=[v for key in titles if (v := questions[key].current_id) is not None]
    )
    return Entities(users, people, questions, len(missing), len(fresh), len(new))


def aware(moment: datetime | None, *, hours: int = 0) -> datetime | None:
    if moment is None:
        return None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_default_timezone())
    return moment + timedelta(hours=hours)
