"""The candidate data rights API: export and erase (recruiters; audited)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import error
from core.auth import signed_in
from core.permissions import is_recruiter
from interviews.models import Candidate
from scoring.rights import services
from scoring.rights.schema import (
    ERASURE_EXAMPLE,
    EXPORT_EXAMPLE,
    CandidateErasureSerializer,
    CandidateExportSerializer,
)


class CandidateExportView(APIView):
    """Everything held about a candidate, for a data-access request (recruiters; audited)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            200: OpenApiResponse(
                CandidateExportSerializer,
                description="Every row held about the candidate, with every column.",
                examples=[EXPORT_EXAMPLE],
            )
        }
    )
    def get(self, request: Request, pk: int) -> Response:
        candidate = _candidate_for_recruiter(request, pk)
        return Response(services.candidate_export(candidate=candidate, by=signed_in(request)))


class CandidateEraseView(APIView):
    """Erase a candidate's personal data; ratings stay, anonymous (recruiters; audited)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            200: OpenApiResponse(
                CandidateErasureSerializer,
                description="The candidate as they are now: erased.",
                examples=[ERASURE_EXAMPLE],
            ),
            409: error("Already erased."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        candidate = services.candidate_erase(
            candidate=_candidate_for_recruiter(request, pk), by=signed_in(request)
        )
        return Response(
            {"id": candidate.pk, "name": candidate.name, "erased_at": candidate.erased_at}
        )


def _candidate_for_recruiter(request: Request, pk: int) -> Candidate:
    # Candidates are recruiters' business: anyone else gets 404, as if it did not exist.
    if not is_recruiter(request.user):
        raise NotFound()
    return get_object_or_404(Candidate, pk=pk)
