from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.permissions import is_recruiter
from interviews.models import Loop
from interviews.selectors import interview_get
from kit.models import RubricItem
from scoring import visibility
from scoring.anchors import anchors
from scoring.models import Scorecard
from scoring.scorecards import closing, hiring, selectors, services
from scoring.scorecards.forms import parse_scorecard


def _questions(scorecard: Scorecard) -> list[dict]:
    rows: list[dict] = []
    for item, rating in selectors.scorecard_form_data(scorecard=scorecard):
        rubric = list(item.version.rubric.all())
        rows.append(
            {
                "item": item,
                "rating": rating,
                "checked": {c.pk for c in rating.checked.all()} if rating else set(),
                "asked": {f.pk for f in rating.follow_ups_asked.all()} if rating else set(),
                "anchors": anchors(item.version.scale_max),
                "errors": {},  # a refusal's messages by field (_refusal)
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


# Which of a question's fields each refusal's problem is shown by (and the summary's
# link leads to): the template's ids q<item>-rating and q<item>-reason.
_QUESTION_SLOTS = {
    "scorecard_incomplete": "rating",
    "not_asked_reason_missing": "reason",
}
_RATE_IT = "If you asked this question, untick “Not asked” and rate it."
# A refusal without `problems` (an amendment's) that still concerns one field of the card.
_CARD_FIELDS = {"recommendation_missing": "recommendation", "amendment_reason_missing": "reason"}


def _refusal(exc: ApplicationError, questions: list[dict]) -> list[dict]:
    """Lay a refusal out on the page: put each problem on its question (`errors` of
    the row) or card field, and return the summary's entries, each linking to it.

    The service names what each problem concerns (its ``problems``: an interview
    question's id or a field); a refusal naming nothing is one entry without a link.
    """
    by_item = {q["item"].pk: (n, q) for n, q in enumerate(questions, start=1)}
    problems = exc.extra.get("problems")
    if problems is None:
        field = _CARD_FIELDS.get(exc.code)
        problems = [{"field": field, "detail": exc.message}] if field else []
    summary = []
    for problem in problems:
        detail = problem["detail"]
        if problem.get("item") in by_item:
            n, q = by_item[problem["item"]]
            slot = _QUESTION_SLOTS.get(problem["code"], "rating")
            q["errors"].setdefault(slot, detail)
            label = f"Question {n}, {q['item'].question.title}"
            summary.append({"href": f"#q{q['item'].pk}-{slot}", "label": label, "detail": detail})
        elif problem.get("items"):  # too few rated: each question marked not asked
            marked = [by_item[i] for i in problem["items"] if i in by_item]
            for _, q in marked:
                q["errors"].setdefault("not_asked", _RATE_IT)
            href = f"#q{marked[0][1]['item'].pk}-not_asked" if marked else None
            summary.append({"href": href, "label": "Questions marked not asked", "detail": detail})
        elif problem.get("field"):
            label = "Reason for the amendment" if problem["field"] == "reason" else "Overall"
            summary.append({"href": f"#{problem['field']}", "label": label, "detail": detail,
                            "field": problem["field"]})  # fmt: skip
    if not summary:
        summary.append({"detail": exc.message})
    return summary


def _card_page(
    request: HttpRequest,
    card: Scorecard,
    *,
    amending: bool = False,
    refused: ApplicationError | None = None,
) -> HttpResponse:
    questions = _questions(card)
    errors = _refusal(refused, questions) if refused else []
    return render(
        request,
        "scoring/scorecard.html",
        {
            "interview": card.interview,
            "card": card,
            "questions": questions,
            "recommendations": Scorecard.Recommendation.choices,
            "amending": amending,
            "closed": card.interview.loop.is_closed,
            # Before its interview starts a card is a draft only (visibility.may_submit).
            "submittable": visibility.may_submit(
                scheduled_start=card.interview.scheduled_start, now=timezone.now()
            ),
            "version": selectors.scorecard_version(card),
            "errors": errors,
            "field_errors": {e["field"]: e["detail"] for e in errors if e.get("field")},
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
                "saved_at": timezone.localtime().strftime("%H:%M:%S %Z"),
                "version": selectors.scorecard_version(card),
            }
        )
    if request.POST.get("action") == "submit":
        try:
            services.scorecard_submit(scorecard=card, by=signed_in(request))
        except ApplicationError as exc:  # the draft is saved; say what is missing, where
            card = selectors.own_scorecard_get(user=request.user, pk=card.pk)
            return _card_page(request, card, refused=exc)
        messages.success(request, "Scorecard submitted. The panel's feedback is open to you.")
        return redirect("scoring:debrief", interview.loop_id)
    messages.success(request, "Draft saved.")
    return redirect("scoring:scorecard", interview.pk)


def _reason(request: HttpRequest) -> str:
    return request.POST.get("reason", "")


@login_required
def debrief(request: HttpRequest, pk: int) -> HttpResponse:
    loop = selectors.loop_for_debrief(user=request.user, pk=pk)
    posted: dict[str, str] = {}  # a refused decision's choice and rationale, shown again
    if request.method == "POST":
        if not is_recruiter(request.user):
            raise PermissionDenied("Only recruiters record decisions.")
        action = request.POST.get("action", "decide")
        try:
            if action == "cancel":
                closing.loop_cancel(loop=loop, by=signed_in(request), reason=_reason(request))
                messages.success(request, "Loop cancelled; its open seats are cancelled.")
            elif action == "reopen":
                closing.loop_reopen(loop=loop, by=signed_in(request), reason=_reason(request))
                messages.success(request, "Loop reopened.")
            elif action == "decide":
                services.loop_decide(
                    loop=loop,
                    by=signed_in(request),
                    decision=request.POST.get("decision", ""),
                    rationale=request.POST.get("rationale", ""),
                )
                messages.success(request, "Decision recorded.")
            else:
                raise BadRequest("'action' must be one of decide, cancel, reopen.")
            return redirect("scoring:debrief", loop.pk)
        except ApplicationError as exc:
            messages.error(request, exc.message)
            if action == "decide":
                posted = {k: request.POST.get(k, "") for k in ("decision", "rationale")}
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
            "can_decide": is_recruiter(request.user) and not loop.is_closed,
            "can_manage": is_recruiter(request.user),
            "posted": posted,
            "rationale_min": hiring.RATIONALE_MIN_CHARS,
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
            return _card_page(request, card, amending=True, refused=exc)
    return _card_page(request, card, amending=True)
