from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from config.exceptions import ApplicationError
from core.auth import signed_in
from core.params import optional_id
from core.permissions import is_lead, is_recruiter
from interviews import markdown, selectors, services
from interviews.forms import CandidateForm, LoopBuildForm, PanelForm, interviewer_choices
from interviews.models import Candidate, InterviewQuestion, Loop
from kit.models import Question, Role, RubricItem


def _recruiter(request: HttpRequest) -> None:
    # Pages for recruiters answer 404 to everyone else, as the API does for objects.
    if not is_recruiter(request.user):
        raise Http404


@login_required
def home(request: HttpRequest) -> HttpResponse:
    if is_recruiter(request.user):
        return redirect("interviews:loop-list")
    if is_lead(request.user):
        return redirect("kit:question-list")
    return redirect("interviews:my-interviews")


# --- candidates ---------------------------------------------------------------------


@login_required
def candidate_list(request: HttpRequest) -> HttpResponse:
    _recruiter(request)
    candidates = selectors.candidate_list().order_by("-created_at")
    return render(request, "interviews/candidate_list.html", {"candidates": candidates})


@login_required
def candidate_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    _recruiter(request)
    candidate = get_object_or_404(Candidate, pk=pk) if pk else None
    form = CandidateForm(request.POST or None, instance=candidate)
    if request.method == "POST" and form.is_valid():
        data = {k: form.cleaned_data[k] for k in ("name", "email", "phone", "notes")}
        if candidate is None:
            candidate = services.candidate_create(**data)
            messages.success(request, f"Added {candidate.name}.")
        else:
            services.candidate_update(candidate=candidate, **data)
            messages.success(request, "Saved.")
        return redirect("interviews:candidate-detail", candidate.pk)
    return render(request, "interviews/candidate_form.html", {"form": form, "candidate": candidate})


@login_required
def candidate_detail(request: HttpRequest, pk: int) -> HttpResponse:
    _recruiter(request)
    candidate = get_object_or_404(Candidate, pk=pk)
    loops = candidate.loops.select_related("role", "level").annotate(n=Count("interviews"))
    return render(
        request, "interviews/candidate_detail.html", {"candidate": candidate, "loops": loops}
    )


# --- loops ----------------------------------------------------------------------------


@login_required
def loop_list(request: HttpRequest) -> HttpResponse:
    _recruiter(request)
    loops = selectors.loop_list(user=request.user)
    return render(request, "interviews/loop_list.html", {"loops": loops})


@login_required
def loop_new(request: HttpRequest) -> HttpResponse:
    """Pick candidate, role and level; preview the assembled loop; save it."""
    _recruiter(request)
    if request.method != "POST":  # a malformed id in the link is a 400; an unknown one, the form's
        for name in ("candidate", "role", "level"):
            optional_id(request.GET, name)
    data = request.POST if request.method == "POST" else request.GET
    # "Build a loop" on a candidate's page links here with the candidate alone:
    # preselect them rather than greet the recruiter with "role: required".
    bound = request.method == "POST" or bool({"role", "level"} & set(data))
    initial: dict[str, object] = {"candidate": data.get("candidate")}
    if not bound:  # with a single role, nothing to pick
        roles = list(Role.objects.values_list("pk", flat=True)[:2])
        initial["role"] = roles[0] if len(roles) == 1 else None
    form = LoopBuildForm(data if bound else None, initial=initial)
    plan = error = None
    open_loops: list[Loop] = []
    if form.is_bound and form.is_valid():
        picked = {k: form.cleaned_data[k] for k in ("candidate", "role", "level")}
        try:
            if request.method == "POST":
                loop = services.loop_create(
                    **picked,
                    allow_duplicate=form.cleaned_data["allow_duplicate"],
                    by=signed_in(request),
                )
                messages.success(request, "Loop saved. Add the panel and times for each interview.")
                return redirect("interviews:loop-detail", loop.pk)
        except ApplicationError as exc:
            error = exc.message
        try:
            plan = selectors.loop_plan(**picked)
        except ApplicationError as exc:
            error = error or exc.message
        open_loops = selectors.open_loops_of(candidate=picked["candidate"])
    context = {"form": form, "plan": plan, "error": error, "open_loops": open_loops}
    return render(request, "interviews/loop_new.html", context)


@login_required
def loop_detail(request: HttpRequest, pk: int) -> HttpResponse:
    _recruiter(request)
    return _loop_page(request, pk)


def _loop_page(
    request: HttpRequest,
    pk: int,
    *,
    refused: tuple[int, PanelForm] | None = None,
    people: list[User] | None = None,
) -> HttpResponse:
    """Render the loop; `refused` is an interview's panel form that was turned down,
    shown again with what the recruiter entered and why."""
    loop = selectors.loop_get(user=request.user, pk=pk)
    people = people if people is not None else interviewer_choices()
    interviews = [
        (
            interview,
            refused[1]
            if refused and refused[0] == interview.pk
            else PanelForm(
                initial={
                    "interviewers": [p.user_id for p in interview.panel.all() if not p.is_shadow],
                    "shadow": next((p.user_id for p in interview.panel.all() if p.is_shadow), None),
                    "scheduled_start": interview.scheduled_start,
                    "scheduled_end": interview.scheduled_end,
                },
                prefix=f"i{interview.pk}",
                people=people,
            ),
        )
        for interview in loop.interviews.all()
    ]
    return render(request, "interviews/loop_detail.html", {"loop": loop, "interviews": interviews})


@login_required
@require_POST
def interview_panel(request: HttpRequest, pk: int) -> HttpResponse:
    _recruiter(request)
    interview = selectors.interview_get(user=request.user, pk=pk)
    people = interviewer_choices()
    form = PanelForm(request.POST, prefix=f"i{interview.pk}", people=people)
    if form.is_valid():
        try:
            services.interview_update(interview=interview, **form.cleaned_data)
            messages.success(request, f"Saved the panel for {interview.title}.")
            return redirect(f"{_loop_url(interview.loop_id)}#interview-{interview.pk}")
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        except ValidationError as exc:  # panel_check: someone left the group meanwhile
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
    # Shown again as entered, with the reason beside the form, not redirected: a
    # redirect would drop what was picked. The banner says where to look.
    messages.error(request, f"{interview.title}: not saved; the reason is by its panel form.")
    return _loop_page(request, interview.loop_id, refused=(interview.pk, form), people=people)


def _item_for(request: HttpRequest, pk: int) -> InterviewQuestion:
    _recruiter(request)
    return get_object_or_404(
        InterviewQuestion.objects.select_related(
            "interview__loop__candidate", "interview__loop__role", "interview__loop__level",
            "interview__slot", "question", "version",
        ),
        pk=pk,
    )  # fmt: skip


@login_required
def question_swap(request: HttpRequest, pk: int) -> HttpResponse:
    """List ranked replacements for one assigned question; POST swaps one in."""
    item = _item_for(request, pk)
    if request.method == "POST":
        try:
            question = get_object_or_404(Question, pk=optional_id(request.POST, "question") or 0)
            services.interview_question_swap(item=item, question=question, by=signed_in(request))
            messages.success(request, f"Swapped in “{question.title}”.")
            return redirect(f"{_loop_url(item.loop_id)}#interview-{item.interview_id}")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    options = selectors.swap_alternatives(item=item)
    return render(request, "interviews/question_swap.html", {"item": item, "options": options})


@login_required
@require_POST
def question_move(request: HttpRequest, pk: int) -> HttpResponse:
    item = _item_for(request, pk)
    try:
        services.interview_question_move(item=item, up=request.POST.get("direction") == "up")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"{_loop_url(item.loop_id)}#interview-{item.interview_id}")


def _loop_url(pk: int) -> str:
    return reverse("interviews:loop-detail", args=[pk])


# --- interviewers -------------------------------------------------------------------


@login_required
def my_interviews(request: HttpRequest) -> HttpResponse:
    owed, upcoming, past = selectors.my_interviews(user=request.user)
    context = {"owed": owed, "upcoming": upcoming, "past": past}
    return render(request, "interviews/my_interviews.html", context)


@login_required
def interview_kit(request: HttpRequest, pk: int) -> HttpResponse:
    interview = selectors.interview_get(user=request.user, pk=pk)
    items = selectors.kit_for(interview=interview)
    kinds = RubricItem.Kind.choices
    questions = [
        (item, [(label, kind, [r for r in item.version.rubric.all() if r.kind == kind])
                for kind, label in kinds])
        for item in items
    ]  # fmt: skip
    # A recruiter reads any kit, but only the panel writes scorecards for it.
    seated = any(seat.user_id == request.user.pk for seat in interview.panel.all())
    return render(
        request,
        "interviews/kit.html",
        {"interview": interview, "questions": questions, "seated": seated},
    )


@login_required
def interview_kit_markdown(request: HttpRequest, pk: int) -> HttpResponse:
    interview = selectors.interview_get(user=request.user, pk=pk)
    text = markdown.kit_markdown(interview, selectors.kit_for(interview=interview))
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    name = slugify(f"kit-{interview.loop.candidate.name}-{interview.title}")
    response["Content-Disposition"] = f'attachment; filename="{name}.md"'
    return response
