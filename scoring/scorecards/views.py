from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from config.exceptions import ApplicationError
from core.auth import signed_in
from core.permissions import is_recruiter
from interviews.models import Loop
from interviews.selectors import interview_get
from kit.models import RubricItem
from scoring.anchors import anchors
from scoring.models import Scorecard
from scoring.scorecards import selectors, services
from scoring.scorecards.forms import parse_scorecard


def _questions(scorecard: Scorecard) -> list[dict]:
    rows = []
    for item, rating in selectors.scorecard_form_data(scorecard=scorecard):
        rubric = list(item.version.rubric.all())
        rows.append(
            {
                "item": item,
                "rating": rating,
                "checked": {c.pk for c in rating.checked.all()} if rating else set(),
                "asked": {f.pk for f in rating.follow_ups_asked.all()} if rating else set(),
                "anchors": anchors(item.version.scale_max),
                "groups": [
                    (kind, label, [r for r in rubric if r.kind == kind])
                    for kind, label in (
                        (RubricItem.Kind.CORE, "Core points covered"),
                        (RubricItem.Kind.STRONG, "Strong answer adds"),
                        (RubricItem.Kind.RED_FLAG, "Red flags seen"),
                    )
                ],
            }
        )
    return rows


def _posted(request: HttpRequest, card: Scorecard) -> tuple[str, str, list[services.RatingInput]]:
    items = [item for item, _ in selectors.scorecard_form_data(scorecard=card)]
    return parse_scorecard(request.POST, items)


def _card_page(request: HttpRequest, card: Scorecard, *, amending: bool = False) -> HttpResponse:
    return render(
        request,
        "scoring/scorecard.html",
        {
            "interview": card.interview,
            "card": card,
            "questions": _questions(card),
            "recommendations": Scorecard.Recommendation.choices,
            "amending": amending,
            "closed": card.interview.loop.status == Loop.Status.DECIDED,
            "version": selectors.scorecard_version(card),
        },
    )


@login_required
def scorecard(request: HttpRequest, pk: int) -> HttpResponse:
    """Write your scorecard for an interview; drafts save as you go."""
    interview = interview_get(user=request.user, pk=pk)
    # A 404 for a recruiter looking at an interview they are not on.
    if request.method != "POST":
        return _card_page(
            request, selectors.scorecard_for_page(user=signed_in(request), interview=interview)
        )
    autosave = request.headers.get("X-Autosave") == "1"
    try:
        with transaction.atomic():  # a refused first save leaves no empty draft behind
            card = services.scorecard_start(interview=interview, by=signed_in(request))
            card = selectors.own_scorecard_get(user=request.user, pk=card.pk)
            if not card.is_submitted:
                recommendation, summary, ratings = _posted(request, card)
                card = services.scorecard_save_draft(
                    scorecard=card,
                    by=signed_in(request),
                    recommendation=recommendation,
                    summary=summary,
                    ratings=ratings,
                    # Absent from forms rendered before versions existed: no check then.
                    version=request.POST.get("version"),
                )
    except ApplicationError as exc:
        if autosave:
            return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.status_code)
        messages.error(request, exc.message)
        card = selectors.scorecard_for_page(user=signed_in(request), interview=interview)
        return _card_page(request, card)
    if card.is_submitted:
        if autosave:
            return JsonResponse({"error": "This scorecard is already submitted."}, status=409)
        messages.error(request, "This scorecard is already submitted: nothing was changed.")
        return _card_page(request, card)
    if autosave:
        return JsonResponse(
            {
                "saved_at": timezone.localtime().strftime("%H:%M:%S"),
                "version": selectors.scorecard_version(card),
            }
        )
    if request.POST.get("action") == "submit":
        try:
            services.scorecard_submit(scorecard=card, by=signed_in(request))
        except ApplicationError as exc:  # the draft is saved; say what is missing
            messages.error(request, exc.message)
            return _card_page(request, selectors.own_scorecard_get(user=request.user, pk=card.pk))
        messages.success(request, "Scorecard submitted. The panel's feedback is open to you.")
        return redirect("scoring:debrief", interview.loop_id)
    messages.success(request, "Draft saved.")
    return redirect("scoring:scorecard", interview.pk)


@login_required
def debrief(request: HttpRequest, pk: int) -> HttpResponse:
    loop = selectors.loop_for_debrief(user=request.user, pk=pk)
    if request.method == "POST":
        if not is_recruiter(request.user):
            raise PermissionDenied("Only recruiters record decisions.")
        try:
            services.loop_decide(
                loop=loop,
                by=signed_in(request),
                decision=request.POST.get("decision", ""),
                rationale=request.POST.get("rationale", ""),
            )
            messages.success(request, "Decision recorded.")
            return redirect("scoring:debrief", loop.pk)
        except ApplicationError as exc:
            messages.error(request, exc.message)
    debrief = selectors.debrief(user=request.user, loop=loop)
    if debrief.reads_others:
        services.feedback_read(user=request.user, loop_ids=[loop.pk])
    return render(
        request,
        "scoring/debrief.html",
        {
            "debrief": debrief,
            "loop": loop,
            "decisions": Loop.Decision.choices,
            "can_decide": is_recruiter(request.user) and loop.status != Loop.Status.DECIDED,
        },
    )


@login_required
def amend(request: HttpRequest, pk: int) -> HttpResponse:
    """Amend your submitted scorecard: same form, plus the reason."""
    card = selectors.own_scorecard_get(user=request.user, pk=pk)
    if not card.is_submitted:
        return redirect("scoring:scorecard", card.interview_id)
    if request.method == "POST":
        try:
            recommendation, summary, ratings = _posted(request, card)
            services.scorecard_amend(
                scorecard=card,
                by=signed_in(request),
                reason=request.POST.get("reason", ""),
                recommendation=recommendation,
                summary=summary,
                ratings=ratings,
            )
            messages.success(request, "Amendment recorded.")
            return redirect("scoring:debrief", card.interview.loop_id)
        except ApplicationError as exc:
            messages.error(request, exc.message)
    return _card_page(request, card, amending=True)
