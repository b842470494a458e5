from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from config.exceptions import ApplicationError
from core.auth import signed_in
from core.params import optional_int, optional_page, valid_query_form
from core.permissions import is_lead
from kit import selectors, services
from kit.filters import QuestionFilter
from kit.forms import QuestionForm, question_initial
from kit.models import Question, RubricItem


def _lead(request: HttpRequest) -> None:
    # The bank is everyone's to read; writing it is the leads' (others get a 404).
    if not is_lead(request.user):
        raise Http404


@login_required
def question_list(request: HttpRequest) -> HttpResponse:
    bank = QuestionFilter(request.GET, queryset=selectors.question_list())
    valid_query_form(bank.form)  # an unknown level or status is a 400, not every question
    page = Paginator(bank.qs, 50).get_page(optional_page(request.GET))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "kit/question_list.html",
        {"filter": bank, "page": page, "query": query.urlencode()},
    )


@login_required
def question_detail(request: HttpRequest, pk: int) -> HttpResponse:
    question = selectors.question_get(pk=pk)
    number = optional_int(request.GET, "version", minimum=1, maximum=2**31 - 1)
    version = selectors.version_detail(question=question, number=number)
    groups = [
        (label, kind, [item for item in version.rubric.all() if item.kind == kind])
        for kind, label in RubricItem.Kind.choices
    ]
    return render(
        request,
        "kit/question_detail.html",
        {
            "question": question,
            "version": version,
            "rubric_groups": groups,
            "versions": selectors.question_versions(question=question),
            "can_edit": is_lead(request.user),
        },
    )


@login_required
@require_POST
def question_status(request: HttpRequest, pk: int) -> HttpResponse:
    """Retire, restore or draft a question (calibration leads; the form is theirs alone)."""
    _lead(request)
    question = selectors.question_get(pk=pk)
    try:
        changed = services.question_status_set(
            question=question, status=request.POST.get("status", ""), by=signed_in(request)
        )
    except ApplicationError as error:
        return HttpResponseBadRequest(str(error))
    if changed:
        messages.success(request, f"“{question.title}” is now {question.get_status_display()}.")
    return redirect("kit:question-detail", pk=question.pk)


@login_required
def question_new(request: HttpRequest) -> HttpResponse:
    """Write a new question (leads). It starts as a draft, out of loops until activated."""
    _lead(request)
    form = QuestionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        meta, content = form.parts(Question.Status.DRAFT)
        try:
            question = services.question_create(
                role=form.cleaned_data["role"], meta=meta, content=content, by=signed_in(request)
            )
        except ValidationError as error:
            form.refuse(error)
        else:
            messages.success(
                request, f"“{question.title}” saved as a draft: activate it to use it."
            )
            return redirect("kit:question-detail", pk=question.pk)
    return render(request, "kit/question_form.html", {"form": form, "question": None})


@login_required
def question_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit a question (leads). Changing what is asked or rated of a version already used
    in interviews makes a new version; the old one stays with its ratings."""
    _lead(request)
    question = selectors.question_get(pk=pk)
    if request.method == "POST":
        form = QuestionForm(request.POST, editing=True)
    else:
        form = QuestionForm(editing=True, initial=question_initial(question))
    if request.method == "POST" and form.is_valid():
        meta, content = form.parts(question.status)
        assert question.current is not None  # question_create sets it with the question
        number = question.current.number
        try:
            changed = services.question_update(
                question=question, meta=meta, content=content, by=signed_in(request)
            )
        except ValidationError as error:
            form.refuse(error)
        else:
            question.refresh_from_db()
            if not changed:
                messages.info(request, "Nothing changed.")
            elif question.current.number != number:
                messages.success(
                    request,
                    f"Saved as version {question.current.number}: interviews already held keep "
                    f"version {number}.",
                )
            else:
                messages.success(request, "Saved.")
            return redirect("kit:question-detail", pk=question.pk)
    return render(request, "kit/question_form.html", {"form": form, "question": question})
