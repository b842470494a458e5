"""The world the fuzz runs against, what it draws from, and the requests it cannot make.

* `build_world()`: the demo (`seed_demo`: the starter bank, 23 loops, six interviewers'
  scorecards), a calibration snapshot, two drafts of demo-interviewer-1 (one empty, one
  ready to submit, its interview moved to two hours ago), an erased candidate, and
  beside the demo's pool a second one with a removed member, a trainee whose path is
  complete but who has not graduated, and a seat awaiting its sign-off, so every
  documented outcome has an object.
* `dictionaries()`: the ids, names and slugs that exist, for schemathesis to draw from.
* `well_formed()`: requests random data does not put together (a whole scorecard, a
  template's slots, a swap with a ranked alternative) and errors it reaches only by
  luck; each is sent as every persona and checked like a generated case.
"""

import io
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from core.webhooks import services as webhook_services
from core.webhooks.models import EventType, WebhookDelivery, WebhookSubscription
from interviews import selectors as interview_selectors
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from interviews.pools import services as pool_services
from interviews.pools.models import (
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from kit.models import Competency, FollowUp, Level, LoopTemplate, Question, Role, RubricItem
from scoring.calibration import services as calibration_services
from scoring.models import CalibrationJob, Scorecard
from scoring.rights import services as rights_services
from scoring.scorecards import services

INTERVIEWER = "demo-interviewer-1"
Request = tuple[str, dict[str, Any]]  # (operation label, the case's parts)


def build_world() -> None:
    # Two webhooks hear the demo's events (nothing is sent: the test's transaction never
    # commits); the second is then paused, so a replay of its deliveries is refused.
    for url in ("https://ats.example.com/hooks", "https://ats.example.com/paused"):
        webhook_services.webhook_subscription_create(url=url, event_types=EventType.values, by=None)
    call_command("seed_demo", stdout=io.StringIO())
    WebhookSubscription.objects.filter(url__endswith="/paused").update(active=False)
    # A subscription is its owner's alone (others get 404): the recruiter's.
    WebhookSubscription.objects.update(created_by=User.objects.get(username="demo-recruiter"))
    lead = User.objects.get(username="demo-lead")
    calibration_services.calibration_run_now(
        role=Role.objects.get(name="AI Infrastructure Engineer"), by=lead
    )
    interviewer = User.objects.get(username=INTERVIEWER)
    owed = Interview.objects.filter(panel__user=interviewer).exclude(
        scorecards__interviewer=interviewer
    )
    # The card owed on the loop being scored: started, nothing rated yet.
    services.scorecard_start(
        interview=owed.filter(loop__status=Loop.Status.IN_PROGRESS).first(), by=interviewer
    )
    # One for an interview of a scheduled loop, filled in and ready to submit; the
    # interview moved to two hours ago, as a card is submitted only once it has started.
    upcoming = owed.filter(loop__status=Loop.Status.SCHEDULED).order_by("pk").first()
    assert upcoming is not None
    held = timezone.now() - timedelta(hours=2)
    Interview.objects.filter(pk=upcoming.pk).update(
        scheduled_start=held, scheduled_end=held + timedelta(hours=1)
    )
    ready = services.scorecard_start(interview=upcoming, by=interviewer)
    services.scorecard_save_draft(
        scorecard=ready,
        by=interviewer,
        recommendation="yes",
        summary="Solid on the core points.",
        ratings=[
            services.RatingInput(item=item.pk, rating=3)
            for item in ready.interview.questions.order_by("order")
        ],
    )
    recruiter = User.objects.get(username="demo-recruiter")
    rights_services.candidate_erase(
        candidate=Candidate.objects.order_by("pk").first(), by=recruiter
    )
    _pools(lead)


def _pools(lead: User) -> None:
    """Beside the demo's pool: a competency's pool with someone removed (a second removal
    is a 409) and a trainee whose path is complete but who has not graduated (their path
    was shortened after their sign-off), and a shadow seat awaiting its sign-off."""
    # A competency no interview asks: the demo's interviews keep drawing on the demo's pool.
    competency = Competency.objects.create(slug="fuzz-pool-only", name="Asked by no interview")
    pool = pool_services.pool_create(name="Fuzz: one competency", competency=competency, by=lead)
    gone = pool_services.membership_add(
        pool=pool, user=User.objects.get(username="demo-interviewer-3"), by=lead
    )
    pool_services.membership_remove(membership=gone, by=lead)
    trainee = User.objects.get(username="demo-interviewer-5")
    training = pool_services.membership_add(pool=pool, user=trainee, status="training", by=lead)
    held = Interview.objects.filter(loop__status=Loop.Status.DECIDED).order_by("pk").first()
    assert held is not None
    seat = TrainingSeat.objects.create(membership=training, interview=held, kind="shadow")
    pool_services.seat_sign_off(seat=seat, ready=True, note="Ready.", by=lead)
    pool_services.path_set(pool=pool, by=lead, shadows=1, reverse_shadows=0)
    # The demo trainee's next shadow seat, on an open loop's interview, not signed off yet.
    demo = PoolMembership.objects.get(user__username="demo-interviewer-6", status="training")
    upcoming = Interview.objects.filter(loop__status=Loop.Status.SCHEDULED).order_by("-pk")
    TrainingSeat.objects.create(membership=demo, interview=upcoming.first(), kind="shadow")


def dictionaries() -> dict[str, list[Any]]:
    """Return what exists: ids, names and slugs, by dictionary name.

    Ids come both as numbers and as text: a viewset's id is text in the schema (its
    route is a regex), a view's `<int:pk>` an integer, and schemathesis draws only the
    entries that fit the parameter it fills.
    """

    def ids(model: Any) -> list[Any]:
        pks = list(model.objects.order_by("pk").values_list("pk", flat=True))
        return [*pks, *map(str, pks)]

    def values(model: Any, name: str) -> list[Any]:
        return list(model.objects.order_by("pk").values_list(name, flat=True))

    found = {
        "roles": ids(Role),
        "levels": ids(Level),
        "competencies": ids(Competency),
        "questions": ids(Question),
        "loop-templates": ids(LoopTemplate),
        "candidates": ids(Candidate),
        "loops": ids(Loop),
        "interviews": ids(Interview),
        "scorecards": ids(Scorecard),
        "calibration": ids(CalibrationJob),
        "items": ids(InterviewQuestion),
        "rubric": ids(RubricItem),
        "follow-ups": ids(FollowUp),
        "webhooks": ids(WebhookSubscription),
        "pools": ids(Pool),
        "pool-memberships": ids(PoolMembership),
        "interviewer-limits": ids(InterviewerLimits),
        "training-paths": ids(TrainingPath),
        "training-seats": ids(TrainingSeat),
        "role-names": values(Role, "name"),
        "level-names": values(Level, "name"),
        "slugs": values(Competency, "slug"),
        "usernames": values(User, "username"),
    }
    return {name: entries for name, entries in found.items() if entries}


def _card_body(card: Scorecard, **changes: Any) -> dict[str, Any]:
    ratings = [
        {
            "item": r.item_id,
            "rating": r.rating,
            "not_asked": r.not_asked,
            "not_asked_reason": r.not_asked_reason,
            "checked": sorted(c.pk for c in r.checked.all()),
        }
        for r in card.ratings.order_by("pk")
    ]
    return {
        "recommendation": card.recommendation,
        "summary": card.summary,
        "ratings": ratings,
        **changes,
    }


def _path(pk: int, text: bool = True) -> dict[str, Any]:
    return {"id": str(pk) if text else pk}


def well_formed() -> list[Request]:
    interviewer = User.objects.get(username=INTERVIEWER)
    cards = Scorecard.objects.filter(interviewer=interviewer)
    drafts = cards.filter(status=Scorecard.Status.DRAFT)
    empty = drafts.get(ratings=None)
    ready = drafts.exclude(ratings=None).distinct().get()
    submitted = cards.filter(
        status=Scorecard.Status.SUBMITTED, interview__loop__status=Loop.Status.DEBRIEF
    ).first()
    assert submitted is not None
    first_item = empty.interview.questions.order_by("order").first()
    assert first_item is not None

    template = LoopTemplate.objects.order_by("pk").first()
    assert template is not None
    other_level = Level.objects.exclude(pk=template.level_id).first()
    assert other_level is not None
    template_body = {
        "role": template.role.name,
        "level": template.level.name,
        "name": template.name,
        "slots": [
            {
                "title": slot.title,
                "minutes": slot.minutes,
                "competencies": [c.slug for c in slot.competencies.all()],
                "question_count": slot.question_count,
                "interviewer_count": slot.interviewer_count,
            }
            for slot in template.slots.order_by("order")
        ],
    }

    upcoming = Interview.objects.filter(loop__status=Loop.Status.SCHEDULED).order_by("pk").first()
    assert upcoming is not None
    items = list(upcoming.questions.order_by("order"))
    swappable = next(
        (
            (item, options[0].question_id)
            for item in items
            if (options := interview_selectors.swap_alternatives(item=item))
        ),
        None,
    )
    assert swappable is not None, "no question of the upcoming interview has an alternative"
    panel = [p.user.username for p in upcoming.panel.filter(is_shadow=False)]
    debrief = Loop.objects.filter(status=Loop.Status.DEBRIEF).order_by("pk").first()
    decided = Loop.objects.filter(status=Loop.Status.DECIDED).order_by("pk").first()
    assert debrief is not None and decided is not None
    competency = Competency.objects.order_by("pk").first()
    assert competency is not None
    webhook = WebhookSubscription.objects.get(active=True)
    replayable = WebhookDelivery.objects.filter(subscription=webhook).order_by("pk").first()
    paused = WebhookDelivery.objects.filter(subscription__active=False).order_by("pk").first()
    assert replayable is not None and paused is not None

    # An interview the interviewer shadows: its questions are not theirs to change (403).
    shadowed = (
        Interview.objects.filter(panel__user=interviewer, panel__is_shadow=True)
        .order_by("pk")
        .first()
    )
    assert shadowed is not None, "the interviewer shadows no interview"
    shadowed_item = shadowed.questions.order_by("order").first()
    assert shadowed_item is not None

    # A seat of the interviewer's with no card yet: starting it creates one (201).
    unstarted = (
        Interview.objects.filter(panel__user=interviewer)
        .exclude(scorecards__interviewer=interviewer)
        .exclude(loop__status=Loop.Status.DECIDED)
        .order_by("pk")
        .first()
    )
    assert unstarted is not None, "the interviewer has no seat left to start"

    return [
        *_pool_requests(upcoming, panel),
        ("POST /auth/token/", {"body": {"username": "demo-lead", "password": "demo"}}),
        ("POST /scorecards/", {"body": {"interview": unstarted.pk}}),
        ("GET /loops/", {"query": {"status": "not-a-status"}}),
        # a scope without its role: 400 (a blank one names no role: 404)
        ("GET /calibration/history/", {"query": {"level": "L5"}}),
        # a second open loop for a candidate is refused unless asked for (409)
        (
            "POST /loops/",
            {
                "body": {
                    "candidate": upcoming.loop.candidate_id,
                    "role": template.role.name,
                    "level": template.level.name,
                }
            },
        ),
        # webhooks: subscribe, a bad target, the log, replays (the second one's paused)
        (
            "POST /webhooks/",
            {"body": {"url": "https://ats.example.com/new", "event_types": ["loop.decided"]}},
        ),
        (
            "PATCH /webhooks/{id}/",
            {"path_parameters": _path(webhook.pk), "body": {"url": "ftp://ats.example.com/"}},
        ),
        ("GET /webhooks/{id}/deliveries/", {"path_parameters": _path(webhook.pk)}),
        ("GET /webhooks/deliveries/{id}/", {"path_parameters": _path(replayable.pk, text=False)}),
        (
            "POST /webhooks/deliveries/{id}/replay/",
            {"path_parameters": _path(replayable.pk, text=False)},
        ),
        (
            "POST /webhooks/deliveries/{id}/replay/",
            {"path_parameters": _path(paused.pk, text=False)},
        ),
        # scorecards: save a draft, submit one, amend a submitted one
        (
            "PUT /scorecards/{id}/",
            {
                "path_parameters": _path(empty.pk),
                "body": _card_body(empty, ratings=[{"item": first_item.pk, "rating": 3}]),
            },
        ),
        (
            "PUT /scorecards/{id}/",
            {
                "path_parameters": _path(empty.pk),
                "body": _card_body(empty, ratings=[{"item": 0, "rating": 3}]),
            },
        ),
        ("PUT /scorecards/{id}/", {"path_parameters": _path(submitted.pk), "body": {}}),
        ("POST /scorecards/{id}/submit/", {"path_parameters": _path(empty.pk)}),
        ("POST /scorecards/{id}/submit/", {"path_parameters": _path(ready.pk)}),
        ("POST /scorecards/{id}/submit/", {"path_parameters": _path(submitted.pk)}),
        ("GET /scorecards/", {"query": {"interview": "first"}}),
        (
            "POST /scorecards/{id}/amend/",
            {
                "path_parameters": _path(submitted.pk),
                "body": _card_body(
                    submitted,
                    reason="Mixed up two candidates' notes.",
                    summary=f"{submitted.summary} (amended)",
                ),
            },
        ),
        (
            "POST /scorecards/{id}/amend/",
            {"path_parameters": _path(submitted.pk), "body": _card_body(submitted, reason="")},
        ),
        # the loop's decision
        (
            "POST /loops/{id}/decision/",
            {
                "path_parameters": _path(debrief.pk, text=False),
                "body": {"decision": "hire", "rationale": "Strong signal from every interview."},
            },
        ),
        (
            "POST /loops/{id}/decision/",
            {
                "path_parameters": _path(debrief.pk, text=False),
                "body": {"decision": "hire", "rationale": ""},
            },
        ),
        (
            "POST /loops/{id}/decision/",
            {
                "path_parameters": _path(decided.pk, text=False),
                "body": {"decision": "no_hire", "rationale": "Second thoughts."},
            },
        ),
        # closing: an open loop cannot be reopened, a decided one not cancelled (409)
        (
            "POST /loops/{id}/reopen/",
            {"path_parameters": _path(debrief.pk, text=False), "body": {"reason": "Back in."}},
        ),
        (
            "POST /loops/{id}/cancel/",
            {"path_parameters": _path(decided.pk, text=False), "body": {"reason": "Withdrew."}},
        ),
        # a shadow reads no alternatives to the questions (403 for them)
        (
            "GET /interviews/{id}/alternatives/",
            {"path_parameters": _path(shadowed.pk), "query": {"item": str(shadowed_item.pk)}},
        ),
        # an upcoming interview: its panel, its questions' order, a swap
        (
            "PUT /interviews/{id}/",
            {
                "path_parameters": _path(upcoming.pk),
                "body": {"interviewers": panel, "scheduled_start": None, "scheduled_end": None},
            },
        ),
        (
            "PUT /interviews/{id}/",
            {"path_parameters": _path(upcoming.pk), "body": {"interviewers": []}},
        ),
        ("GET /interviews/", {"query": {"loop": "first"}}),
        (
            "GET /interviews/{id}/alternatives/",
            {"path_parameters": _path(upcoming.pk), "query": {"item": "first"}},
        ),
        (
            "POST /interviews/{id}/reorder/",
            {
                "path_parameters": _path(upcoming.pk),
                "body": {"order": [item.pk for item in reversed(items)]},
            },
        ),
        (
            "POST /interviews/{id}/swap/",
            {
                "path_parameters": _path(upcoming.pk),
                "body": {"item": swappable[0].pk, "question": swappable[1]},
            },
        ),
        # the bank: a template saved as it is, or moved to another level (refused)
        (
            "PUT /loop-templates/{id}/",
            {"path_parameters": _path(template.pk), "body": template_body},
        ),
        (
            "PUT /loop-templates/{id}/",
            {
                "path_parameters": _path(template.pk),
                "body": {**template_body, "level": other_level.name},
            },
        ),
        (
            "PATCH /competencies/{id}/",
            {"path_parameters": _path(competency.pk), "body": {"slug": "not a slug"}},
        ),
        # names are one line: the schema's pattern keeps generated names valid, so the
        # refusal is sent as it is
        (
            "PATCH /roles/{id}/",
            {"path_parameters": _path(template.role_id), "body": {"name": "AI\nInfrastructure"}},
        ),
    ]


def _pool_requests(upcoming: Interview, panel: list[str]) -> list[Request]:
    """The pools' writes on bodies that fit together (_pools built what they need)."""
    role = Role.objects.order_by("pk").first()
    assert role is not None
    fuzz_pool = Pool.objects.get(name="Fuzz: one competency")
    removed = PoolMembership.objects.exclude(removed_at=None).get(pool=fuzz_pool)
    complete = PoolMembership.objects.get(pool=fuzz_pool, status="training")
    current = PoolMembership.objects.filter(removed_at=None, status="qualified").order_by("pk")
    limits = InterviewerLimits.objects.order_by("pk").first()
    pending = TrainingSeat.objects.filter(outcome="pending").order_by("pk").first()
    assert limits is not None and pending is not None and current.exists()
    path = fuzz_pool.path
    return [
        ("POST /pools/", {"body": {"name": "Fuzz: the role", "role": role.name}}),
        ("PATCH /pools/{id}/", {"path_parameters": _path(fuzz_pool.pk), "body": {"name": "New"}}),
        ("PATCH /pools/{id}/", {"path_parameters": _path(fuzz_pool.pk), "body": {"name": ""}}),
        (
            "POST /pool-memberships/",
            {"body": {"pool": fuzz_pool.pk, "user": "demo-interviewer-2", "status": "qualified"}},
        ),
        # someone already in the pool (the trainee): 409
        (
            "POST /pool-memberships/",
            {"body": {"pool": fuzz_pool.pk, "user": complete.user.username, "status": "qualified"}},
        ),
        ("DELETE /pool-memberships/{id}/", {"path_parameters": _path(current.first().pk)}),  # type: ignore[union-attr]  # exists, asserted
        ("DELETE /pool-memberships/{id}/", {"path_parameters": _path(removed.pk)}),
        ("POST /pool-memberships/{id}/graduate/", {"path_parameters": _path(complete.pk)}),
        (
            "PUT /interviewer-limits/{id}/",
            {"path_parameters": _path(limits.pk), "body": {"per_day": 1, "per_week": 3}},
        ),
        (
            "PUT /interviewer-limits/{id}/",
            {"path_parameters": _path(limits.pk), "body": {"per_day": 3, "per_week": 2}},
        ),
        (
            "PUT /training-paths/{id}/",
            {"path_parameters": _path(path.pk), "body": {"shadows": 2, "reverse_shadows": 1}},
        ),
        (
            "PUT /training-paths/{id}/",
            {"path_parameters": _path(path.pk), "body": {"shadows": 0, "reverse_shadows": 0}},
        ),
        (
            "POST /training-seats/{id}/sign-off/",
            {"path_parameters": _path(pending.pk), "body": {"ready": True, "note": "Ready."}},
        ),
        (
            "POST /training-seats/{id}/sign-off/",
            {"path_parameters": _path(pending.pk), "body": {"ready": False, "note": ""}},
        ),
        (
            "POST /loops/{id}/staff/accept/",
            {
                "path_parameters": _path(upcoming.loop_id, text=False),
                "body": {"panels": [{"interview": upcoming.pk, "interviewers": panel}]},
            },
        ),
    ]
