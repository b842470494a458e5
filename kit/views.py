from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from kit import selectors
from kit.filters import QuestionFilter
from kit.models import RubricItem


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
        },
    )
