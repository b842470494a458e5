"""Many loops, candidates and interviews at once (bulk inserts), for the list pages' tests."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from interviews.models import Candidate, Interview, Loop, Panelist
from kit.models import Level, Role
from tests.support.factories import RoleFactory

# Loop n's status: one in ten of each open status, the rest decided (so most of an
# interviewer's interviews are past, the section that grows without end).
STATUSES = {0: Loop.Status.DRAFT, 1: Loop.Status.SCHEDULED, 2: Loop.Status.IN_PROGRESS,
            3: Loop.Status.DEBRIEF}  # fmt: skip


def status_of(n: int) -> str:
    return STATUSES.get(n % 10, Loop.Status.DECIDED)


def make_loops(count: int, *, panel: User, also: User | None = None) -> list[Loop]:
    """Create `count` candidates ("Candidate 000"...) with one loop and one interview each.

    Loop n: role "AI Infrastructure Engineer" when n is even, "Data Engineer" when odd;
    level L4 when n % 3 == 0, else L5; status `status_of(n)`. Its interview, "Coding"
    when n is even and "System design" when odd, has `panel` on it, and `also` too when
    n % 5 == 0; decided loops' interviews were held n hours ago, the others' are ahead.
    """
    roles = [RoleFactory(name="AI Infrastructure Engineer"), RoleFactory(name="Data Engineer")]
    l4, l5 = Level.objects.get(name="L4"), Level.objects.get(name="L5")
    candidates = Candidate.objects.bulk_create(
        Candidate(name=f"Candidate {n:03d}", email=f"c{n:03d}@example.com") for n in range(count)
    )
    loops = Loop.objects.bulk_create(
        Loop(
            candidate=candidate,
            role=roles[n % 2],
            level=l4 if n % 3 == 0 else l5,
            status=status_of(n),
            decision=Loop.Decision.HIRE if status_of(n) == Loop.Status.DECIDED else "",
        )
        for n, candidate in enumerate(candidates)
    )
    now = timezone.now().replace(microsecond=0)
    held_or_ahead = [-1 if loop.status == Loop.Status.DECIDED else 1 for loop in loops]
    interviews = Interview.objects.bulk_create(
        interview(loop, 0, "Coding" if n % 2 == 0 else "System design",
                  now + held_or_ahead[n] * timedelta(hours=n + 1))
        for n, loop in enumerate(loops)
    )  # fmt: skip
    seats = [Panelist(interview=i, user=panel) for i in interviews]
    if also is not None:
        seats += [Panelist(interview=i, user=also) for n, i in enumerate(interviews) if n % 5 == 0]
    Panelist.objects.bulk_create(seats)
    return loops


def interview(loop: Loop, order: int, title: str, start: datetime | None) -> Interview:
    end = start + timedelta(minutes=45) if start else None
    return Interview(
        loop=loop, order=order, title=title, minutes=45, scheduled_start=start, scheduled_end=end
    )


def make_loop(
    name: str,
    *,
    role: Role,
    level: Level,
    status: str = Loop.Status.DRAFT,
    created: datetime | None = None,
    interviews: Sequence[tuple[datetime | None, Sequence[User]]] = (),
    email: str = "",
    title: str = "Coding",
) -> Loop:
    """Create a candidate and their loop, with an interview per (start, panel) given."""
    candidate = Candidate.objects.create(name=name, email=email)
    loop = Loop.objects.create(candidate=candidate, role=role, level=level, status=status)
    if created is not None:  # auto_now_add ignores a value given on create
        Loop.objects.filter(pk=loop.pk).update(created_at=created)
        Candidate.objects.filter(pk=candidate.pk).update(created_at=created)
    for order, (start, people) in enumerate(interviews):
        seat = Interview.objects.bulk_create([interview(loop, order, title, start)])[0]
        Panelist.objects.bulk_create(Panelist(interview=seat, user=person) for person in people)
    return loop
