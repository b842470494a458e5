from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from config.exceptions import ApplicationError
from kit import selectors, services
from kit.filters import QuestionFilter
from kit.models import RubricItem
from kit.permissions import is_lead


@login_required
def question_list(request: HttpRequest) -> HttpResponse:
    bank = QuestionFilter(request.GET, queryset=selectors.question_list())
    page = Paginator(bank.qs, 50).get_page(request.GET.get("page"))
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
    number = request.GET.get("version")
    version = selectors.version_detail(
        question=question, number=int(number) if number and number.isdigit() else None
    )
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
    if not is_lead(request.user):
        raise Http404
    question = selectors.question_get(pk=pk)
    try:
        changed = services.question_status_set(
            question=question, status=request.POST.get("status", ""), by=request.user
        )
    except ApplicationError as error:
        return HttpResponseBadRequest(str(error))
    if changed:
        messages.success(request, f"“{question.title}” is now {question.get_status_display()}.")
    return redirect("kit:question-detail", pk=question.pk)
