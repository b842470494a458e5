"""The calibration API: the latest snapshot, history, starting and following runs."""

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import error, forbidden_reads_register
from core.auth import signed_in
from core.permissions import is_lead
from kit.models import Level, Role
from scoring.calibration import selectors, services
from scoring.calibration.schema import SNAPSHOT_EXAMPLE, CalibrationSnapshotResultSerializer
from scoring.calibration.serializers import (
    CalibrationJobSerializer,
    CalibrationRunInputSerializer,
    CalibrationScopeSerializer,
    SnapshotSerializer,
)
from scoring.models import CalibrationSnapshot

# The calibration history refuses anyone but a lead outright (403, not an empty list).
forbidden_reads_register("calibration_history_list")


class IsLead(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.user.is_authenticated and is_lead(request.user)


def _scope(request: Request) -> tuple[Role, Level | None]:
    serializer = CalibrationScopeSerializer(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    role = selectors.scope_part(Role, serializer.validated_data["role"])
    if role is None:
        raise NotFound(f"No role named '{serializer.validated_data['role']}'.")
    level = None
    if serializer.validated_data.get("level"):
        level = selectors.scope_part(Level, serializer.validated_data["level"])
        if level is None:
            raise NotFound(f"No level named '{serializer.validated_data['level']}'.")
    return role, level


class CalibrationLatestView(APIView):
    """The newest calibration snapshot of a role (and level). Leads see everything;
    others see the scope, the day it was computed, the definitions and their own
    interviewer row only (computed without the loops where they are still blind)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CalibrationScopeSerializer],
        responses={
            200: OpenApiResponse(
                CalibrationSnapshotResultSerializer,
                description="The snapshot as the caller may read it: everything for leads;"
                " for anyone else the scope, the day, their own row and the definitions.",
                examples=[SNAPSHOT_EXAMPLE],
            ),
            404: error("No such role or level, or no calibration of it yet."),
        },
    )
    def get(self, request: Request) -> Response:
        role, level = _scope(request)
        snapshot = selectors.latest_snapshot(role=role, level=level)
        if snapshot is None:
            raise NotFound("No calibration has been computed for this scope yet.")
        return Response(selectors.result_visible_to(user=request.user, snapshot=snapshot))


class CalibrationHistoryView(generics.ListAPIView):
    """Past snapshots of a scope, newest first (calibration leads), a page at a time."""

    permission_classes = [IsLead]
    serializer_class = SnapshotSerializer
    filter_backends: list[Any] = []  # the scope is the filter: ?role= and ?level=

    def get_queryset(self) -> QuerySet[CalibrationSnapshot]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return CalibrationSnapshot.objects.none()
        role, level = _scope(self.request)
        return selectors.snapshot_history(role=role, level=level)

    @extend_schema(
        parameters=[CalibrationScopeSerializer],
        responses={
            200: SnapshotSerializer(many=True),
            404: error("No such role or level, or a page past the end."),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class CalibrationRunsView(APIView):
    """Start a calibration run for a role (calibration leads). Follow it at its URL."""

    permission_classes = [IsLead]

    @extend_schema(request=CalibrationRunInputSerializer, responses={202: CalibrationJobSerializer})
    def post(self, request: Request) -> Response:
        serializer = CalibrationRunInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        role = selectors.scope_part(Role, serializer.validated_data["role"])
        if role is None:
            name = serializer.validated_data["role"]
            raise ValidationError({"role": [f"No role named '{name}'."]})
        job = services.calibration_request(role=role, by=signed_in(request))
        return Response(CalibrationJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class CalibrationRunView(APIView):
    """A calibration run's status and progress (calibration leads; others get 404)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: CalibrationJobSerializer})
    def get(self, request: Request, pk: int) -> Response:
        if not is_lead(request.user):
            raise NotFound()
        return Response(CalibrationJobSerializer(selectors.calibration_job_get(pk=pk)).data)
