from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.http.params import optional_int, optional_page, valid_query_form
from core.permissions import is_lead, is_recruiter
from kit import selectors, services
from kit.filters import QuestionFilter
from kit.forms import QuestionForm, question_initial
from kit.models import Question, Role, RubricItem

# The most people the owners form lists at once; a search narrows it.
OWNER_CHOICES = 200


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


# --- role owners ------------------------------------------------------------------------


def _recruiter(request: HttpRequest) -> None:
    # Owning a role lets a hiring manager staff its loops (interviews.staffing): who does
    # is the recruiters' call, as loops are. Others get a 404, as on the leads' pages.
    if not is_recruiter(request.user):
        raise Http404


class RoleOwnersForm(forms.Form):
    owners = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: object, role: Role, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # Form's own arguments
        # Anyone active may become an owner; one already owning stays a valid choice.
        field = self.fields["owners"]
        field.queryset = User.objects.filter(  # type: ignore[attr-defined]  # a ModelMultipleChoiceField
            Q(is_active=True) | Q(pk__in=role.owners.values("pk"))
        )


def _people(role: Role, search: str) -> tuple[list[User], bool]:
    """Return the role's owners, then up to OWNER_CHOICES others matching `search`, and
    whether more matched. Owners always show, so saving the form never drops one unseen."""
    owners = list(role.owners.order_by("username"))
    others = User.objects.filter(is_active=True).exclude(pk__in=[u.pk for u in owners])
    if search:
        others = others.filter(
            Q(username__icontains=search)
            | Q(first_name__icontains=search)
            | Q(last_name__icontains=search)
            | Q(email__icontains=search)
        )
    found = list(others.order_by("username")[: OWNER_CHOICES + 1])
    return owners + found[:OWNER_CHOICES], len(found) > OWNER_CHOICES


@login_required
def role_owners(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """List each role with its owners; with a role, the form that sets its owners."""
    _recruiter(request)
    owners = Prefetch("owners", queryset=User.objects.order_by("username"))
    roles = Role.objects.prefetch_related(owners).order_by("name")
    role = get_object_or_404(Role, pk=pk) if pk is not None else None
    context: dict[str, object] = {"roles": roles, "role": role}
    if role is None:
        return render(request, "kit/role_owners.html", context)
    # Not `request.POST or None`: a form with every box cleared posts nothing, and means it.
    form = RoleOwnersForm(request.POST if request.method == "POST" else None, role=role)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                changed = services.role_owners_set(
                    role=role, owners=form.cleaned_data["owners"], by=signed_in(request)
                )
            except ValidationError as error:
                form.add_error("owners", error)
            else:
                messages.success(
                    request, f"Saved the owners of {role.name}." if changed else "Nothing changed."
                )
                return redirect("kit:role-owners")
        status = 400
    search = request.GET.get("q", "").strip()[:100]
    people, more = _people(role, search)
    picked = {str(value) for value in form["owners"].value() or []}
    if not form.is_bound:
        picked = {str(user.pk) for user in role.owners.all()}
    context.update(form=form, people=people, more=more, search=search, picked=picked)
    return render(request, "kit/role_owners.html", context, status=status)
