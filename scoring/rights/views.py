"""Pages for candidate data rights: download everything held, erase personal data."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.permissions import is_recruiter
from interviews.models import Candidate
from scoring.rights import services


@login_required
def candidate_export(request: HttpRequest, pk: int) -> HttpResponse:
    if not is_recruiter(request.user):
        raise Http404
    candidate = get_object_or_404(Candidate, pk=pk)
    record = services.candidate_export(candidate=candidate, by=signed_in(request))
    response = JsonResponse(record, json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="candidate-{candidate.pk}.json"'
    return response


@login_required
@require_POST
def candidate_erase(request: HttpRequest, pk: int) -> HttpResponse:
    if not is_recruiter(request.user):
        raise Http404
    candidate = get_object_or_404(Candidate, pk=pk)
    if request.POST.get("confirm") != "erase":
        messages.error(request, "Type erase to confirm.")
    else:
        try:
            services.candidate_erase(candidate=candidate, by=signed_in(request))
            messages.success(request, "Personal data erased; the ratings stay, anonymous.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    return redirect("interviews:candidate-detail", candidate.pk)
