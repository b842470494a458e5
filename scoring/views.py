from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from config.exceptions import ApplicationError
from interviews.models import Loop
from interviews.selectors import interview_get
from kit.models import RubricItem
from kit.permissions import is_recruiter
from scoring import selectors, services
from scoring.anchors import anchors
from scoring.forms import parse_scorecard
from scoring.models import Scorecard


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


@login_required
def scorecard(request: HttpRequest, pk: int) -> HttpResponse:
    """Write your scorecard for an interview; drafts save as you go."""
    interview = interview_get(user=request.user, pk=pk)
    try:
        card = services.scorecard_start(interview=interview, by=request.user)
    except ApplicationError:
        raise Http404 from None  # a recruiter looking at an interview they are not on
    card = selectors.own_scorecard_get(user=request.user, pk=card.pk)
    if request.method == "POST" and not card.is_submitted:
        autosave = request.headers.get("X-Autosave") == "1"
        try:
            items = [row["item"] for row in _questions(card)]
            recommendation, summary, ratings = parse_scorecard(request.POST, items)
            services.scorecard_save_draft(
                scorecard=card,
                by=request.user,
                recommendation=recommendation,
                summary=summary,
                ratings=ratings,
            )
            if autosave:
                return JsonResponse({"saved_at": timezone.localtime().strftime("%H:%M:%S")})
            if request.POST.get("action") == "submit":
                services.scorecard_submit(scorecard=card, by=request.user)
                messages.success(
                    request, "Scorecard submitted. The panel's feedback is open to you."
                )
                return redirect("scoring:debrief", interview.loop_id)
            messages.success(request, "Draft saved.")
            return redirect("scoring:scorecard", interview.pk)
        except ApplicationError as exc:
            if autosave:
                return JsonResponse({"error": exc.message}, status=exc.status_code)
            messages.error(request, exc.message)
            card = selectors.own_scorecard_get(user=request.user, pk=card.pk)
    return render(
        request,
        "scoring/scorecard.html",
        {
            "interview": interview,
            "card": card,
            "questions": _questions(card),
            "recommendations": Scorecard.Recommendation.choices,
        },
    )


@login_required
def debrief(request: HttpRequest, pk: int) -> HttpResponse:
    loop = selectors.loop_for_debrief(user=request.user, pk=pk)
    if request.method == "POST":
        if not is_recruiter(request.user):
            raise Http404
        try:
            services.loop_decide(
                loop=loop,
                by=request.user,
                decision=request.POST.get("decision", ""),
                rationale=request.POST.get("rationale", ""),
            )
            messages.success(request, "Decision recorded.")
            return redirect("scoring:debrief", loop.pk)
        except ApplicationError as exc:
            messages.error(request, exc.message)
    return render(
        request,
        "scoring/debrief.html",
        {
            "debrief": selectors.debrief(user=request.user, loop=loop),
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
            items = [row["item"] for row in _questions(card)]
            recommendation, summary, ratings = parse_scorecard(request.POST, items)
            services.scorecard_amend(
                scorecard=card,
                by=request.user,
                reason=request.POST.get("reason", ""),
                recommendation=recommendation,
                summary=summary,
                ratings=ratings,
            )
            messages.success(request, "Amendment recorded.")
            return redirect("scoring:debrief", card.interview.loop_id)
        except ApplicationError as exc:
            messages.error(request, exc.message)
    return render(
        request,
        "scoring/scorecard.html",
        {
            "interview": card.interview,
            "card": card,
            "questions": _questions(card),
            "recommendations": Scorecard.Recommendation.choices,
            "amending": True,
        },
    )
