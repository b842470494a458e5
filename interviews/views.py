from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import BadRequest, PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.http.params import optional_id, optional_page, valid_query_form
from core.permissions import is_lead, is_recruiter
from interviews import editing, markdown, scheduling, selectors, services, staffing
from interviews.filters import CandidateFilter, LoopFilter, MyInterviewFilter
from interviews.forms import (
    CandidateForm,
    InterviewAddForm,
    LoopBuildForm,
    PanelForm,
    interviewer_choices,
)
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from interviews.pools import selectors as pool_selectors
from interviews.pools import services as pool_services
from kit.models import Question, RubricItem

PER_PAGE = 25


def _without_page(request: HttpRequest) -> str:
    """Return the query string without `page`: the pager's links keep the filters."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


def _recruiter(request: HttpRequest) -> None:
    # Pages for recruiters answer 404 to everyone else, as the API does for objects.
    if not is_recruiter(request.user):
        raise Http404


def _staffer(request: HttpRequest, loop_id: int | None = None) -> None:
    """404 unless the user builds loops (interviews.staffing), and staffs this loop's role."""
    if not staffing.is_staffer(request.user):
        raise Http404
    if loop_id is not None and not is_recruiter(request.user):
        get_object_or_404(Loop.objects.filter(staffing.scope(request.user)), pk=loop_id)


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
    found = CandidateFilter(request.GET, queryset=selectors.candidate_list())
    valid_query_form(found.form)
    # The id breaks ties so that no candidate shows on two pages or on none.
    candidates = found.qs.order_by("-created_at", "-id")
    page = Paginator(candidates, PER_PAGE).get_page(optional_page(request.GET))
    return render(
        request,
        "interviews/candidate_list.html",
        {"filter": found, "page": page, "query": _without_page(request)},
    )


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
    _staffer(request)  # a hiring manager: the loops of their roles, and their own
    found = LoopFilter(request.GET, queryset=selectors.loop_list(user=request.user))
    valid_query_form(found.form)  # an unknown status or a bad date is a 400, not every loop
    page = Paginator(found.qs, PER_PAGE).get_page(optional_page(request.GET))
    return render(
        request,
        "interviews/loop_list.html",
        {"filter": found, "page": page, "query": _without_page(request)},
    )


@login_required
def loop_new(request: HttpRequest) -> HttpResponse:
    """Pick candidate, role and level; preview the assembled loop; save it."""
    _staffer(request)
    if request.method != "POST":  # a malformed id in the link is a 400; an unknown one, the form's
        for name in ("candidate", "role", "level"):
            optional_id(request.GET, name)
    data = request.POST if request.method == "POST" else request.GET
    # "Build a loop" on a candidate's page links here with the candidate alone:
    # preselect them rather than greet the recruiter with "role: required".
    bound = request.method == "POST" or bool({"role", "level"} & set(data))
    initial: dict[str, object] = {"candidate": data.get("candidate")}
    if not bound:  # with a single role, nothing to pick
        roles = list(staffing.roles_for(request.user).values_list("pk", flat=True)[:2])
        initial["role"] = roles[0] if len(roles) == 1 else None
    form = LoopBuildForm(data if bound else None, initial=initial)
    # Only the roles the user staffs (interviews.staffing); another is not a valid choice.
    roles_field = form.fields["role"]
    roles_field.queryset = staffing.roles_for(request.user)  # type: ignore[attr-defined]  # a ModelChoiceField
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
                if pool_selectors.loop_has_pool(loop):
                    # Its panels are proposed from the pools at once: accept, re-roll or edit.
                    messages.success(
                        request, "Loop saved. Its panels are proposed from the pools below."
                    )
                    return redirect("interviews:loop-staff", loop.pk)
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
    """Show the loop; POST saves every interview's panel and time at once, all or nothing."""
    _staffer(request, pk)
    if request.method != "POST":
        return _loop_page(request, pk)
    loop = selectors.loop_get(user=request.user, pk=pk)
    if loop.is_closed:
        messages.error(request, "This loop is decided; it can no longer change.")
        return _loop_page(request, pk, loop=loop)
    people = interviewer_choices()
    interviews = list(loop.interviews.all())
    forms = {i.pk: PanelForm(request.POST, prefix=f"i{i.pk}", people=people) for i in interviews}
    if all(form.is_valid() for form in forms.values()):
        plans = [scheduling.Plan(interview=i, **forms[i.pk].cleaned_data) for i in interviews]
        try:
            with transaction.atomic():
                done = scheduling.loop_schedule(loop=loop, plans=plans)
                # Allowed, but said and audited: over a limit, outside hours, on the loop.
                warnings = pool_services.panel_hand_warnings(interviews=done, by=signed_in(request))
        except scheduling.Refused as exc:
            _refusal_on(forms[exc.interview.pk], exc.error)
        else:
            if done:
                titles = ", ".join(i.title for i in done)
                messages.success(request, f"Saved the panels and times of {titles}.")
                for warning in warnings:
                    messages.warning(request, warning)
            else:
                messages.info(request, "Nothing changed.")
            return redirect(_loop_url(loop.pk))
    # Shown again as entered, each reason beside its field: a redirect would drop
    # what was picked. The summary at the top says which interview to look at.
    return _loop_page(request, pk, forms=forms, people=people)


# The field an ApplicationError of interview_update or the time rule is about.
_FIELD_OF = {
    "panel_empty": "interviewers",
    "interviewer_listed_twice": "interviewers",
    "interviewer_busy": "interviewers",
    "shadow_is_interviewer": "shadow",
    "time_incomplete": "scheduled_start",
    "time_in_past": "scheduled_start",
    "interview_clash": "scheduled_start",
    "time_reversed": "scheduled_end",
}


def _refusal_on(form: PanelForm, error: ApplicationError | ValidationError) -> None:
    """Put a service's refusal on the form, beside the field it concerns."""
    if isinstance(error, ApplicationError):
        form.add_error(_FIELD_OF.get(error.code or ""), error.message)
        return
    for field, errors in error.message_dict.items():  # panel_check names the field
        form.add_error(field if field in form.fields else None, errors)


def _loop_page(
    request: HttpRequest,
    pk: int,
    *,
    loop: Loop | None = None,
    forms: dict[int, PanelForm] | None = None,
    people: list[User] | None = None,
    add_form: InterviewAddForm | None = None,
) -> HttpResponse:
    """Render the loop with one form for all its interviews' panels and times, and one
    to add an interview; `forms` and `add_form` are the bound forms of a refused save,
    shown again with what was entered and why."""
    loop = loop or selectors.loop_get(user=request.user, pk=pk)
    if add_form is None and not loop.is_closed:
        add_form = InterviewAddForm(competencies=selectors.competencies_for(role=loop.role))
    people = people if people is not None else interviewer_choices()
    forms = forms or {}
    interviews = list(loop.interviews.all())
    # A refused save shows who else is busy on the day typed, not the day saved.
    starts = {i.pk: _typed_start(forms.get(i.pk), i.scheduled_start) for i in interviews}
    days = {pk: timezone.localdate(start) for pk, start in starts.items() if start}
    seats = selectors.seats_on_days(user_ids=[u.pk for u in people], days=set(days.values()))
    rows = []
    now = timezone.now()
    for interview in interviews:
        # Why the interview stays (a scorecard started...), said where its button would be.
        removal = selectors.removal_refusal(
            interview,
            carded=interview.carded,  # type: ignore[attr-defined]  # loop_detail_prefetch's
            interviews=len(interviews),
            now=now,
        )
        form = forms.get(interview.pk) or PanelForm(
            initial={
                "interviewers": [p.user_id for p in interview.panel.all() if not p.is_shadow],
                "shadow": next((p.user_id for p in interview.panel.all() if p.is_shadow), None),
                "scheduled_start": interview.scheduled_start,
                "scheduled_end": interview.scheduled_end,
            },
            prefix=f"i{interview.pk}",
            people=people,
        )
        form.describe_errors()
        day = days.get(interview.pk)
        picker = [
            (
                box,
                [
                    seat
                    for seat in seats.get((box.data["value"], day), [])
                    if seat.interview_id != interview.pk
                ]
                if day
                else [],
            )
            for box in form["interviewers"]
        ]
        rows.append((interview, form, picker, removal))
    refused = [(interview, form) for interview, form, _, _ in rows if form.errors]
    context = {"loop": loop, "interviews": rows, "refused": refused, "add_form": add_form}
    return render(request, "interviews/loop_detail.html", context)


def _typed_start(form: PanelForm | None, saved: datetime | None) -> datetime | None:
    """The start a bound form was sent with, if it reads as a time; else the saved one.

    Read from what was sent, not cleaned_data: a refusal on the field (a clash) takes
    the value out of cleaned_data.
    """
    if form is None or not form.is_bound:
        return saved
    try:
        typed = form.fields["scheduled_start"].clean(form["scheduled_start"].data)
    except ValidationError:
        return saved
    return typed if isinstance(typed, datetime) else saved


@login_required
@require_POST
def interview_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one interview's panel and time (the API's PUT, for a form of one interview)."""
    _staffer(request)
    interview = selectors.interview_staffable_get(user=request.user, pk=pk)
    _staffer(request, interview.loop_id)
    people = interviewer_choices()
    form = PanelForm(request.POST, prefix=f"i{interview.pk}", people=people)
    if form.is_valid():
        try:
            scheduling.interview_schedule(interview=interview, **form.cleaned_data)
            messages.success(request, f"Saved the panel for {interview.title}.")
            return redirect(f"{_loop_url(interview.loop_id)}#interview-{interview.pk}")
        except (ApplicationError, ValidationError) as exc:
            _refusal_on(form, exc)
    messages.error(request, f"{interview.title} was not saved: the reason is next to the field.")
    return _loop_page(request, interview.loop_id, forms={interview.pk: form}, people=people)


@login_required
@require_POST
def interview_add(request: HttpRequest, pk: int) -> HttpResponse:
    """Add an interview to an open loop (services.interview_add); a refusal is shown
    beside its field, with what was entered."""
    _staffer(request, pk)
    loop = selectors.loop_get(user=request.user, pk=pk)
    form = InterviewAddForm(request.POST, competencies=selectors.competencies_for(role=loop.role))
    if form.is_valid():
        try:
            by = signed_in(request)
            interview = services.interview_add(loop=loop, by=by, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            found = interview.questions.count()
            messages.success(
                request,
                f"Added {interview.title} with {found} question{'s' if found != 1 else ''}; "
                "give it a panel and a time under Panels and times.",
            )
            return redirect(f"{_loop_url(loop.pk)}#interview-{interview.pk}")
    return _loop_page(request, pk, loop=loop, add_form=form)


@login_required
@require_POST
def interview_remove(request: HttpRequest, pk: int) -> HttpResponse:
    """Take an interview that has not started out of its loop (services.interview_remove)."""
    _staffer(request)
    interview = selectors.interview_staffable_get(user=request.user, pk=pk)
    _staffer(request, interview.loop_id)
    try:
        services.interview_remove(interview=interview, by=signed_in(request))
        messages.success(request, f"{interview.title} is out of the loop; its panel is told.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(_loop_url(interview.loop_id))


def _item_for(request: HttpRequest, pk: int) -> InterviewQuestion:
    """Return the assigned question if the caller may change its interview's questions
    (interviews.editing): 404 if they may not see it, 403 or 400 with the reason."""
    item = get_object_or_404(
        InterviewQuestion.objects.select_related(
            "interview__loop__candidate", "interview__loop__role", "interview__loop__level",
            "interview__slot", "question", "version",
        ),
        pk=pk,
    )  # fmt: skip
    interview = selectors.interview_staffable_get(user=request.user, pk=item.interview_id)
    found = editing.refusal(user=request.user, interview=interview)
    if found is None:
        return item
    if found.status == 404:
        raise Http404
    if found.status == 403:
        raise PermissionDenied(found.message)
    raise BadRequest(found.message)


def _back(request: HttpRequest, item: InterviewQuestion) -> str:
    """Where the change was asked from: the loop page for its staffers, the kit for panelists."""
    if staffing.may_staff(request.user, item.interview.loop.role_id):
        return f"{_loop_url(item.loop_id)}#interview-{item.interview_id}"
    return reverse("interviews:kit", args=[item.interview_id])


@login_required
def question_swap(request: HttpRequest, pk: int) -> HttpResponse:
    """List ranked replacements for one assigned question; POST swaps one in, with a reason."""
    item = _item_for(request, pk)
    if request.method == "POST":
        try:
            question = get_object_or_404(Question, pk=optional_id(request.POST, "question") or 0)
            services.interview_question_swap(
                item=item,
                question=question,
                by=signed_in(request),
                reason=request.POST.get("reason", "")[:200],
            )
            messages.success(request, f"Swapped in “{question.title}”.")
            return redirect(_back(request, item))
        except ApplicationError as exc:
            messages.error(request, exc.message)
    options = selectors.swap_alternatives(item=item)
    context = {"item": item, "options": options, "back": _back(request, item)}
    return render(request, "interviews/question_swap.html", context)


@login_required
@require_POST
def question_move(request: HttpRequest, pk: int) -> HttpResponse:
    item = _item_for(request, pk)
    try:
        services.interview_question_move(
            item=item, up=request.POST.get("direction") == "up", by=signed_in(request)
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(_back(request, item))


def _loop_url(pk: int) -> str:
    return reverse("interviews:loop-detail", args=[pk])


# --- interviewers -------------------------------------------------------------------


@login_required
def my_interviews(request: HttpRequest) -> HttpResponse:
    found = MyInterviewFilter(request.GET, queryset=Interview.objects.all())
    valid_query_form(found.form)
    owed, upcoming, past = selectors.my_interviews(user=request.user, among=found.qs)
    # Only the past grows without end; owed and upcoming stay short and whole.
    page = Paginator(past, PER_PAGE).get_page(optional_page(request.GET))
    context = {
        "owed": owed,
        "upcoming": upcoming,
        "past": page,
        "filter": found,
        "query": _without_page(request),
    }
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
    # The swap and up/down controls, for whoever interviews.editing lets change them.
    editable = editing.may_change(user=request.user, interview=interview)
    return render(
        request,
        "interviews/kit.html",
        {"interview": interview, "questions": questions, "seated": seated, "editable": editable},
    )


@login_required
def interview_kit_markdown(request: HttpRequest, pk: int) -> HttpResponse:
    interview = selectors.interview_get(user=request.user, pk=pk)
    text = markdown.kit_markdown(interview, selectors.kit_for(interview=interview))
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    name = slugify(f"kit-{interview.loop.candidate.name}-{interview.title}")
    response["Content-Disposition"] = f'attachment; filename="{name}.md"'
    return response
