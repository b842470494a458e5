"""Pages: staff a loop from its pools (accept or re-roll), and the pools page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from core.api.exceptions import ApplicationError
from interviews import staffing
from interviews.models import Loop
from interviews.pools import rules, selectors, services


def _loop(request: HttpRequest, pk: int) -> Loop:
    loop = (
        Loop.objects.filter(staffing.scope(request.user))
        .select_related("role", "level", "candidate")
        .filter(pk=pk)
        .first()
    )
    if loop is None:
        raise Http404
    return loop


def _ids(raw: str) -> list[int]:
    """Ids from a comma-separated list; anything else, or too long to be an id, is left out."""
    parts = [part.strip() for part in raw.split(",")[:200]]
    return [int(part) for part in parts if part.isascii() and part.isdigit() and len(part) <= 18]


@login_required
def staff_loop(request: HttpRequest, pk: int) -> HttpResponse:
    """GET proposes panels (``?avoid=1,2`` re-rolls without those people where possible);
    POST seats the proposal shown, all or nothing, and shows its warnings."""
    loop = _loop(request, pk)
    assert isinstance(request.user, User)  # login_required
    if request.method == "POST":
        interviews = {i.pk: i for i in loop.interviews.all()}
        chosen = [pk for pk in _ids(request.POST.get("interviews", "")) if pk in interviews]
        people = User.objects.in_bulk(
            {u for pk in chosen for u in _ids(request.POST.get(f"i{pk}-interviewers", ""))}
            | {u for pk in chosen for u in _ids(request.POST.get(f"i{pk}-shadow", ""))}
        )
        try:
            with transaction.atomic():
                said = []
                for interview_pk in chosen:
                    shadow = _ids(request.POST.get(f"i{interview_pk}-shadow", ""))
                    kind = request.POST.get(f"i{interview_pk}-shadow_kind") or None
                    said += services.panel_accept(
                        interview=interviews[interview_pk],
                        interviewers=[
                            people[u]
                            for u in _ids(request.POST.get(f"i{interview_pk}-interviewers", ""))
                            if u in people
                        ],
                        shadow=people.get(shadow[0]) if shadow else None,
                        shadow_kind=kind if shadow else None,
                        by=request.user,
                    )
        except (ApplicationError, ValidationError) as exc:
            text = exc.message if isinstance(exc, ApplicationError) else "; ".join(exc.messages)
            messages.error(request, f"Nothing was seated: {text}")
            return redirect(reverse("interviews:loop-staff", args=[loop.pk]))
        for warning in said:
            messages.warning(request, warning)
        messages.success(request, "Seated the proposed panels; invites go out as usual.")
        return redirect(reverse("interviews:loop-detail", args=[loop.pk]))
    avoid = _ids(request.GET.get("avoid", ""))
    plans = selectors.staffing_proposal(loop=loop, viewer=request.user, avoid=avoid)
    rows = []
    for plan in plans:
        counted = [p for p in plan.picks if p.kind == "interviewer"]
        trainee = next((p for p in plan.picks if p.kind != "interviewer"), None)
        rows.append({"plan": plan, "counted": counted, "trainee": trainee})
    picked = sorted({p.user_id for plan in plans for p in plan.picks} | set(avoid))
    context = {
        "loop": loop,
        "rows": rows,
        "acceptable": [r for r in rows if r["counted"]],
        "reroll": ",".join(str(pk) for pk in picked),
    }
    return render(request, "interviews/staff_loop.html", context)


@login_required
def pool_list(request: HttpRequest) -> HttpResponse:
    """Per pool: who is qualified, who is training and where, their load over the last
    and next four weeks, and who is near or at their weekly limit (keepers only)."""
    if not rules.is_keeper(request.user):
        raise Http404
    pools = list(selectors.pools_visible_to(request.user)[:100])
    overview = selectors.pool_overview(pools)
    return render(request, "interviews/pools.html", {"overview": overview})
