"""The pools API: pools, memberships, limits, training paths, training seats and their
sign-offs, and staffing a loop (a proposal, and accepting panels).

Reads are scoped by the selectors (an object the caller may not see is a 404); writes
ask interviews.pools.rules through the services (403 ``pool_not_kept``).
"""

from typing import Any

import django_filters
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.etags import ETagMixin
from core.api.openapi import error
from core.auth import signed_in
from interviews import staffing
from interviews.api import IdFilter
from interviews.models import Loop
from interviews.pools import rules, selectors, services
from interviews.pools.models import InterviewerLimits, PoolMembership, TrainingPath, TrainingSeat
from interviews.pools.serializers import (
    AcceptedSerializer,
    AcceptInputSerializer,
    LimitsInputSerializer,
    LimitsSerializer,
    MembershipInputSerializer,
    MembershipSerializer,
    PanelPlanSerializer,
    PathInputSerializer,
    PathSerializer,
    PoolInputSerializer,
    PoolRenameSerializer,
    PoolSerializer,
    SeatSerializer,
    SignOffInputSerializer,
    StaffInputSerializer,
)
from kit.models import LoopSlot


def _valid(serializer_class: type, request: Request, **kwargs: Any) -> dict[str, Any]:
    serializer = serializer_class(data=request.data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _fake(view: Any) -> bool:
    return getattr(view, "swagger_fake_view", False)  # schema generation


class PoolViewSet(
    ETagMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Pools of interviewers: keepers see the pools they keep, others the pools they are in."""

    lookup_value_converter = "int"
    serializer_class = PoolSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet:
        if _fake(self):
            return selectors.Pool.objects.none()
        return selectors.pools_visible_to(self.request.user)

    @extend_schema(request=PoolInputSerializer, responses={201: PoolSerializer})
    def create(self, request: Request) -> Response:
        if not rules.is_keeper(request.user):  # before the body: a 400 says who may
            raise rules.Forbidden(rules.NOT_KEPT, code="pool_not_kept")
        data = _valid(PoolInputSerializer, request)
        if data["slot"] is not None:
            slot = LoopSlot.objects.select_related("template").filter(pk=data["slot"]).first()
            if slot is None:
                raise ValidationError({"slot": [f"No loop template slot with id {data['slot']}."]})
            data["slot"] = slot
        pool = services.pool_create(**data, by=signed_in(request))
        pool = selectors.pools_visible_to(request.user).get(pk=pool.pk)
        return Response(PoolSerializer(pool).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PoolRenameSerializer, responses={200: PoolSerializer})
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        pool = self.get_object()
        rules.keep_check(request.user, pool.role_id)
        data = _valid(PoolRenameSerializer, request)
        services.pool_rename(pool=pool, name=data["name"], by=signed_in(request))
        return Response(PoolSerializer(self.get_queryset().get(pk=pool.pk)).data)


class MembershipFilter(django_filters.FilterSet):
    pool = IdFilter(field_name="pool_id", help_text="Pool id.")
    current = django_filters.BooleanFilter(
        field_name="removed_at", lookup_expr="isnull", help_text="Only current members."
    )

    class Meta:
        model = PoolMembership
        fields = ["pool", "current", "status"]


@extend_schema_view(
    destroy=extend_schema(responses={204: None, 409: error("They are already out of the pool.")})
)
class MembershipViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Who is in which pool, qualified or training. DELETE takes someone out of the pool
    (the row stays, with removed_at; their past seats and ratings stay too)."""

    lookup_value_converter = "int"
    serializer_class = MembershipSerializer
    filterset_class = MembershipFilter

    def get_queryset(self) -> QuerySet:
        if _fake(self):
            return PoolMembership.objects.none()
        return selectors.memberships_visible_to(self.request.user).order_by("pool_id", "id")

    @extend_schema(
        request=MembershipInputSerializer,
        responses={
            201: MembershipSerializer,
            404: error("No pool with this id that you may see."),
            409: error("They are already in this pool."),
        },
    )
    def create(self, request: Request) -> Response:
        if not rules.is_keeper(request.user):
            raise rules.Forbidden(rules.NOT_KEPT, code="pool_not_kept")
        data = _valid(MembershipInputSerializer, request)
        try:
            pool = selectors.pool_get(user=request.user, pk=data["pool"])
        except selectors.Pool.DoesNotExist:
            raise Http404 from None
        membership = services.membership_add(
            pool=pool, user=data["user"], status=data["status"], by=signed_in(request)
        )
        return Response(
            MembershipSerializer(self.get_queryset().get(pk=membership.pk)).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=None,
        responses={
            200: MembershipSerializer,
            409: error(
                "Not training, or the path is not complete (the detail says what is missing)."
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def graduate(self, request: Request, pk: str) -> Response:
        """Graduate a trainee whose path is complete (409 ``path_incomplete`` says what is
        missing); a ready sign-off completing the path graduates them by itself."""
        membership = self.get_object()
        services.membership_graduate(membership=membership, by=signed_in(request))
        return Response(MembershipSerializer(self.get_queryset().get(pk=membership.pk)).data)

    def perform_destroy(self, instance: PoolMembership) -> None:
        services.membership_remove(membership=instance, by=signed_in(self.request))


class LimitsViewSet(
    ETagMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Interviewers' limits and working hours (in their own zone). Everyone reads and sets
    their own; recruiters, leads and hiring managers anyone's. A person without a row
    has the defaults (2 a day, 4 a week, 09:00-17:00). POST sets them (made if need be)."""

    lookup_value_converter = "int"
    serializer_class = LimitsSerializer
    http_method_names = ["get", "post", "put", "head", "options"]

    def get_queryset(self) -> QuerySet:
        if _fake(self):
            return InterviewerLimits.objects.none()
        limits = InterviewerLimits.objects.select_related("user").order_by("user_id")
        if rules.is_keeper(self.request.user):
            return limits
        return limits.filter(user_id=self.request.user.pk or 0)

    @extend_schema(
        request=LimitsInputSerializer, responses={200: LimitsSerializer, 201: LimitsSerializer}
    )
    def create(self, request: Request) -> Response:
        data = _valid(LimitsInputSerializer, request)
        by = signed_in(request)
        user = data.pop("user", by)
        existed = InterviewerLimits.objects.filter(user=user).exists()
        limits = services.limits_set(user=user, by=by, **data)
        code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
        return Response(LimitsSerializer(limits).data, status=code)

    @extend_schema(request=LimitsInputSerializer, responses={200: LimitsSerializer})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        limits = self.get_object()
        data = _valid(LimitsInputSerializer, request)
        data.pop("user", None)
        limits = services.limits_set(user=limits.user, by=signed_in(request), **data)
        return Response(LimitsSerializer(limits).data)


class PathViewSet(
    ETagMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Each pool's training path (made with the pool); PUT replaces it."""

    lookup_value_converter = "int"
    serializer_class = PathSerializer
    http_method_names = ["get", "put", "head", "options"]

    def get_queryset(self) -> QuerySet:
        if _fake(self):
            return TrainingPath.objects.none()
        pools = selectors.pools_visible_to(self.request.user)
        return TrainingPath.objects.filter(pool__in=pools).select_related("pool").order_by("id")

    @extend_schema(request=PathInputSerializer, responses={200: PathSerializer})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        path = self.get_object()
        rules.keep_check(request.user, path.pool.role_id)
        data = _valid(PathInputSerializer, request)
        path = services.path_set(pool=path.pool, by=signed_in(request), **data)
        return Response(PathSerializer(path).data)


class SeatFilter(django_filters.FilterSet):
    membership = IdFilter(field_name="membership_id", help_text="Membership id.")
    pool = IdFilter(field_name="membership__pool_id", help_text="Pool id.")

    class Meta:
        model = TrainingSeat
        fields = ["membership", "pool", "outcome"]


class SeatViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Trainees' shadow and reverse-shadow seats; the trainer signs each off."""

    lookup_value_converter = "int"
    serializer_class = SeatSerializer
    filterset_class = SeatFilter

    def get_queryset(self) -> QuerySet:
        if _fake(self):
            return TrainingSeat.objects.none()
        return selectors.seats_visible_to(self.request.user).order_by("id")

    @extend_schema(
        request=SignOffInputSerializer,
        responses={
            200: SeatSerializer,
            409: error("The seat is already signed off, or its trainee is no longer training."),
        },
    )
    @action(detail=True, methods=["post"], url_path="sign-off")
    def sign_off(self, request: Request, pk: str) -> Response:
        """Sign a seat off: ready, or not yet with a note (the trainee takes it again)."""
        seat = self.get_object()
        services.seat_sign_off_check(seat=seat, by=signed_in(request))
        data = _valid(SignOffInputSerializer, request)
        services.seat_sign_off(seat=seat, **data, by=signed_in(request))
        return Response(SeatSerializer(self.get_queryset().get(pk=seat.pk)).data)


def _staffable_loop(request: Request, pk: int) -> Loop:
    """The loop, if the caller may staff it (interviews.staffing); else 404."""
    loop = (
        Loop.objects.filter(staffing.scope(request.user))
        .select_related("role", "level", "candidate")
        .filter(pk=pk)
        .first()
    )
    if loop is None:
        raise Http404
    return loop


class StaffLoopView(APIView):
    """Propose a panel for each interview of the loop whose panel is not full, from its
    pool, each pick with its reason, each shortfall said. Writes nothing; send the
    previous picks as `avoid` to re-roll."""

    @extend_schema(request=StaffInputSerializer, responses={200: PanelPlanSerializer(many=True)})
    def post(self, request: Request, pk: int) -> Response:
        loop = _staffable_loop(request, pk)
        data = _valid(StaffInputSerializer, request)
        plans = selectors.staffing_proposal(loop=loop, viewer=signed_in(request), **data)
        return Response(PanelPlanSerializer(plans, many=True).data)


class AcceptPanelsView(APIView):
    """Seat the panels (as proposed, or edited): each one's warnings (over a limit,
    outside hours, already on the loop, a booked length that is not the interview's)
    come back and stay in the audit log. All or nothing."""

    @extend_schema(request=AcceptInputSerializer, responses={200: AcceptedSerializer(many=True)})
    def post(self, request: Request, pk: int) -> Response:
        loop = _staffable_loop(request, pk)
        data = _valid(AcceptInputSerializer, request)
        by = signed_in(request)
        interviews = {i.pk: i for i in loop.interviews.select_related("loop")}
        out = []
        with transaction.atomic():
            for panel in data["panels"]:
                interview = interviews.get(panel.pop("interview"))
                if interview is None:  # not this loop's
                    raise Http404
                warnings = services.panel_accept(interview=interview, by=by, **panel)
                out.append({"interview": interview.pk, "warnings": warnings})
        return Response(AcceptedSerializer(out, many=True).data)
