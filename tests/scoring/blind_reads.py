"""Helpers for the blind-feedback tests: more loops of a role, cards with chosen
ratings, and everything a user can read, captured so that two reads compare.

`reads` is the list of every channel through which a signed-in user learns
something about loops, scorecards and calibration: the API resources and the
pages, with their status codes, the headers that describe the content, and the
bodies with the per-request tokens (CSRF, CSP nonces) taken out.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.test import Client

from interviews import services as interview_services
from interviews.models import Interview, Loop
from kit.models import Level, Role
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.support.loops import Built, Seat

NOT_ASKED = "Ran out of time"


def card(
    user: User,
    interview: Interview,
    ratings: Sequence[int | None],
    *,
    recommendation: str = "yes",
    submit: bool = True,
) -> Scorecard:
    """Write the user's card for the interview with one rating per question in order
    (None: not asked, with a reason), and submit it unless told not to."""
    items = list(interview.questions.order_by("order").values_list("pk", flat=True))
    assert len(items) == len(ratings), (items, ratings)
    scorecard = services.scorecard_start(interview=interview, by=user)
    scorecard = services.scorecard_save_draft(
        scorecard=scorecard,
        by=user,
        recommendation=recommendation,
        ratings=[
            services.RatingInput(item=item, not_asked=True, not_asked_reason=NOT_ASKED)
            if rating is None
            else services.RatingInput(item=item, rating=rating)
            for item, rating in zip(items, ratings, strict=True)
        ],
    )
    return services.scorecard_submit(scorecard=scorecard, by=user) if submit else scorecard


def another_loop(
    *, role: Role, candidate_name: str, seats: Sequence[Seat], start: datetime, by: User
) -> Built:
    """Build one more loop of the role from its L5 template (which build_loop saved),
    its interviews an hour apart from `start`, each seated as given."""
    level = Level.objects.get(name="L5")
    candidate = interview_services.candidate_create(name=candidate_name)
    loop = interview_services.loop_create(candidate=candidate, role=role, level=level, by=by)
    interviews = list(loop.interviews.order_by("order"))
    assert len(interviews) == len(seats)
    for n, (interview, seat) in enumerate(zip(interviews, seats, strict=True)):
        begins = start + timedelta(hours=n)
        interview_services.interview_update(
            interview=interview,
            interviewers=seat.interviewers,
            shadow=seat.shadow,
            scheduled_start=begins,
            scheduled_end=begins + timedelta(minutes=interview.minutes),
        )
    loop.refresh_from_db()
    interviews = list(loop.interviews.order_by("order"))
    built = Built(loop=loop, interviews=interviews)
    for interview in interviews:
        built.items[interview.pk] = list(interview.questions.order_by("order"))
    return built


@dataclass(frozen=True)
class Read:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: str


# Per-request values, not content: the CSRF token (in forms and cookies) and CSP nonces.
TOKENS = [
    (
        re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'),
        'name="csrfmiddlewaretoken" value=""',
    ),
    (re.compile(r'nonce="[^"]*"'), 'nonce=""'),
    (re.compile(r"'nonce-[^']*'"), "'nonce-'"),
]
# Headers that describe the content; Set-Cookie, Date and the like describe the request.
CONTENT_HEADERS = (
    "Content-Type",
    "Content-Length",
    "Content-Disposition",
    "ETag",
    "Last-Modified",
    "Location",
    "Link",
    "Allow",
    "Cache-Control",
    "Retry-After",
)


def normalise(text: str) -> str:
    for pattern, replacement in TOKENS:
        text = pattern.sub(replacement, text)
    return text


def _read(response) -> Read:  # type: ignore[no-untyped-def]  # Django's and DRF's test responses
    body = normalise(response.content.decode())
    headers = tuple(
        (name, normalise(response.headers[name]))
        for name in CONTENT_HEADERS
        if name in response.headers and name != "Content-Length"
    )
    return Read(status=response.status_code, headers=headers, body=body)


def api_paths(*, loop: Loop, role: Role, card_ids: Sequence[int]) -> list[str]:
    """Every API read about the loop, its cards and its role's calibration."""
    interviews = list(loop.interviews.order_by("order").values_list("pk", flat=True))
    statuses = [f"/api/v1/loops/?status={status}" for status in Loop.Status.values]
    name = role.name.replace(" ", "+")
    return [
        "/api/v1/loops/",
        *statuses,
        f"/api/v1/loops/?candidate={loop.candidate_id}",
        f"/api/v1/loops/{loop.pk}/",
        f"/api/v1/loops/{loop.pk}/debrief/",
        "/api/v1/interviews/",
        f"/api/v1/interviews/?loop={loop.pk}",
        *(f"/api/v1/interviews/{pk}/" for pk in interviews),
        "/api/v1/scorecards/",
        *(f"/api/v1/scorecards/?interview={pk}" for pk in interviews),
        # Ids of cards that exist and of cards not written yet: both must read alike.
        *(f"/api/v1/scorecards/{pk}/" for pk in card_ids),
        f"/api/v1/calibration/latest/?role={name}",
        *(f"/api/v1/calibration/latest/?role={name}&level={lv}" for lv in ("L4", "L5")),
        f"/api/v1/calibration/history/?role={name}",
        f"/api/v1/calibration/history/?role={name}&level=L5",
        f"/api/v1/candidates/{loop.candidate_id}/",
        "/api/v1/questions/",
    ]


def page_paths(*, user: User, loop: Loop, role: Role) -> list[str]:
    """Every page about the loop, the user's interviews and cards, and calibration."""
    level = Level.objects.get(name="L5")
    mine = list(
        loop.interviews.filter(panel__user=user).order_by("order").values_list("pk", flat=True)
    )
    amendable = Scorecard.objects.filter(
        interview__loop=loop, interviewer=user, status=Scorecard.Status.SUBMITTED
    ).values_list("pk", flat=True)
    questions = sorted(
        {
            item.question_id
            for interview in loop.interviews.all()
            for item in interview.questions.all()
        }
    )
    return [
        "/",
        "/interviews/",
        "/loops/",
        f"/loops/{loop.pk}/",
        f"/loops/{loop.pk}/debrief/",
        *(f"/interviews/{pk}/kit/" for pk in mine),
        *(f"/interviews/{pk}/kit.md" for pk in mine),
        *(f"/interviews/{pk}/scorecard/" for pk in mine),
        *(f"/scorecards/{pk}/amend/" for pk in sorted(amendable)),
        "/calibration/",
        f"/calibration/?role={role.pk}",
        f"/calibration/?role={role.pk}&level={level.pk}",
        f"/calibration/export.csv?role={role.pk}&table=interviewers",
        f"/calibration/export.csv?role={role.pk}&table=candidates",
        "/calibration/exercises/",
        "/bank/",
        *(f"/bank/questions/{pk}/" for pk in questions),
        f"/candidates/{loop.candidate_id}/export.json",
        "/audit/",
    ]


def reads(
    user: User,
    *,
    loop: Loop,
    role: Role,
    card_ids: Sequence[int],
    pages: Sequence[str] | None = None,
) -> dict[str, Read]:
    """Return what the user reads at every API path and page about the loop, by path.

    `pages` fixes the page paths (see page_paths), so that two reads ask the same."""
    api = client_for(user)
    web = Client()
    web.force_login(user)
    out = {
        f"api {path}": _read(api.get(path))
        for path in api_paths(loop=loop, role=role, card_ids=card_ids)
    }
    for path in pages if pages is not None else page_paths(user=user, loop=loop, role=role):
        out[f"page {path}"] = _read(web.get(path))
    return out


def changed(before: dict[str, Read], after: dict[str, Read]) -> dict[str, tuple[Read, Read]]:
    """Return the channels whose reads differ, with both reads."""
    assert before.keys() == after.keys()
    return {key: (before[key], after[key]) for key in before if before[key] != after[key]}


STATUS = re.compile(r'class="status status-([a-z_]+)"')


def statuses_shown(html: str) -> list[str]:
    """Return the loop statuses a page shows, in order (the `status-<value>` badges)."""
    return STATUS.findall(html)
