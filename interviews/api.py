from decimal import Decimal
from typing import Any

import django_filters
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from core.api.etags import ETagMixin
from core.api.openapi import error, forbidden_reads_register
from core.auth import signed_in
from core.permissions import is_recruiter
from interviews import editing, scheduling, selectors, services, staffing
from interviews.models import Candidate, Interview, Loop
from interviews.serializers import (
    AlternativeSerializer,
    AlternativesQuerySerializer,
    CandidateSerializer,
    InterviewInputSerializer,
    InterviewSerializer,
    LoopCreateInputSerializer,
    LoopInputSerializer,
    LoopListSerializer,
    LoopPreviewSerializer,
    LoopSerializer,
    ReorderInputSerializer,
    SwapInputSerializer,
)
from kit.models import Role

# The candidate list (recruiters and leads) and a swap's alternatives (recruiters)
# refuse other personas outright rather than answer an empty list.
forbidden_reads_register("candidates_list", "interviews_alternatives_list")


class RecruiterWrites(BasePermission):
    """Reads follow the queryset's scoping; writes need a recruiter.

    On a single object the lookup comes first, so an object the caller may not
    see answers 404 and ids leak nothing; one they may see but not change is 403.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not request.user.is_authenticated:
            return False
        if request.method in SAFE_METHODS or getattr(view, "detail", False):
            return True
        return is_recruiter(request.user)

    def has_object_permission(self, request: Request, view: APIView, obj: object) -> bool:
        return request.method in SAFE_METHODS or is_recruiter(request.user)


class StaffWrites(RecruiterWrites):
    """As RecruiterWrites, with hiring managers writing too, to the loops and interviews
    of the roles they own (interviews.staffing; a create names its role: the view asks)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not request.user.is_authenticated:
            return False
        if request.method in SAFE_METHODS or getattr(view, "detail", False):
            return True
        return staffing.is_staffer(request.user)

    def has_object_permission(self, request: Request, view: APIView, obj: object) -> bool:
        if request.method in SAFE_METHODS:
            return True
        loop = obj.loop if isinstance(obj, Interview) else obj
        return isinstance(loop, Loop) and staffing.may_staff(request.user, loop.role_id)


def _staffs(request: Request, role: Role) -> None:
    if not staffing.may_staff(request.user, role.pk):
        raise PermissionDenied(staffing.ROLE_NOT_OWNED, code="role_not_owned")


class IdFilter(django_filters.NumberFilter):
    """Filter by the id of an object the caller may not see: any number, and one that
    matches no row answers an empty list.

    A 400 for an id that does not exist and an empty list for one the caller may not
    see would tell an outsider which ids exist. django-filter caps numbers at 1e50 (a
    400 the schema does not document), and foreign key lookups skip Django's range
    check, so a number no id can be is answered here, before SQLite overflows on it.
    """

    def get_max_validator(self) -> None:
        return None

    def filter(self, qs: QuerySet, value: Decimal | None) -> QuerySet:
        if value is not None and (value != value.to_integral_value() or not 0 < value < 2**63):
            return qs.none()
        return super().filter(qs, value)


class LoopFilter(django_filters.FilterSet):
    candidate = IdFilter(field_name="candidate_id", help_text="Candidate id.")
    # The status the caller sees (selectors.loops_visible_to), so a blind panelist
    # cannot learn from a filter what the field hides.
    status = django_filters.ChoiceFilter(field_name="status_seen", choices=Loop.Status.choices)

    class Meta:
        model = Loop
        fields = ["status", "candidate"]


class InterviewFilter(django_filters.FilterSet):
    loop = IdFilter(field_name="loop_id", help_text="Loop id.")

    class Meta:
        model = Interview
        fields = ["loop"]


class CandidateViewSet(ETagMixin, viewsets.ModelViewSet):
    """Candidates and their contact details: recruiters only (others get 403, or 404 by id)."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    serializer_class = CandidateSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_permissions(self) -> list[BasePermission]:
        return [RecruiterWrites()]

    def get_queryset(self) -> QuerySet[Candidate]:
        if not is_recruiter(self.request.user):
            return Candidate.objects.none()
        return Candidate.objects.all()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not is_recruiter(request.user):
            raise PermissionDenied("Only recruiters see candidates.")
        return super().list(request, *args, **kwargs)

    def perform_create(self, serializer: BaseSerializer[Candidate]) -> None:
        serializer.instance = services.candidate_create(**serializer.validated_data)

    def perform_update(self, serializer: BaseSerializer[Candidate]) -> None:
        assert serializer.instance is not None  # update() binds get_object()'s candidate
        serializer.instance = services.candidate_update(
            candidate=serializer.instance, **serializer.validated_data
        )


class LoopViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Loops. `POST` with candidate, role and level assembles one from the level's template."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    permission_classes = [StaffWrites]
    filterset_class = LoopFilter

    def get_queryset(self) -> QuerySet[Loop]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Loop.objects.none()
        loops = selectors.loops_visible_to(self.request.user)
        if self.action == "retrieve":
            return loops.prefetch_related(selectors.loop_detail_prefetch(self.request.user))
        return loops

    def get_serializer_class(self) -> type:
        return LoopSerializer if self.action == "retrieve" else LoopListSerializer

    @extend_schema(
        request=LoopCreateInputSerializer,
        responses={
            201: LoopSerializer,
            409: error("The candidate already has an open loop (send allow_duplicate)."),
        },
    )
    def create(self, request: Request) -> Response:
        data = _valid(LoopCreateInputSerializer, request)
        _staffs(request, data["role"])
        loop = services.loop_create(**data, by=signed_in(request))
        loop = selectors.loop_get(user=request.user, pk=loop.pk)
        return Response(LoopSerializer(loop).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LoopInputSerializer, responses={200: LoopPreviewSerializer})
    @action(detail=False, methods=["post"])
    def preview(self, request: Request) -> Response:
        """Show the loop assembly would build, with reasons and warnings, without saving it."""
        data = _valid(LoopInputSerializer, request)
        _staffs(request, data["role"])
        plan = selectors.loop_plan(**data)
        return Response(LoopPreviewSerializer(plan).data)


class InterviewViewSet(
    ETagMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Interviews: recruiters see all, hiring managers those of the roles they own and
    those they sit on, interviewers only those they sit on (others are 404)."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    serializer_class = InterviewSerializer
    permission_classes = [StaffWrites]
    http_method_names = ["get", "post", "put", "head", "options"]
    filterset_class = InterviewFilter

    def get_queryset(self) -> QuerySet[Interview]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Interview.objects.none()
        # A hiring manager reads and writes every interview of a role they own
        # (interviews.staffing); who may change an interview's questions is asked
        # again in _changeable (interviews.editing).
        interviews = selectors.interviews_staffable_by(self.request.user)
        return interviews.order_by("loop_id", "order")

    @extend_schema(request=InterviewInputSerializer, responses={200: InterviewSerializer})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Set the panel (interviewers, optional shadow) and the scheduled time."""
        interview = self.get_object()
        data = _valid(InterviewInputSerializer, request)
        scheduling.interview_schedule(interview=interview, **data)  # past times refused
        return self._fresh(interview.pk)

    @extend_schema(
        parameters=[AlternativesQuerySerializer],
        responses={200: AlternativeSerializer(many=True)},
    )
    # The interview list's filters and pages are not this action's: a whole ranked list.
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def alternatives(self, request: Request, pk: str) -> Response:
        """Rank the questions that could replace one of this interview's questions."""
        interview = self._changeable(reading=True)
        query = AlternativesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        item = self._item(query.validated_data["item"], interview)
        return Response(
            AlternativeSerializer(selectors.swap_alternatives(item=item), many=True).data
        )

    @extend_schema(request=SwapInputSerializer, responses={200: InterviewSerializer})
    # Who may: interviews.editing (its panelists too), asked in _changeable.
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def swap(self, request: Request, pk: str) -> Response:
        """Replace one question with one of its ranked alternatives, saying why (optional)."""
        interview = self._changeable()  # 404, 403 or 400 before looking at the body
        data = _valid(SwapInputSerializer, request)
        item = self._item(data["item"], interview)
        services.interview_question_swap(
            item=item,
            question=data["question"],
            by=signed_in(request),
            reason=data.get("reason", ""),
        )
        return self._fresh(item.interview_id)

    @extend_schema(request=ReorderInputSerializer, responses={200: InterviewSerializer})
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def reorder(self, request: Request, pk: str) -> Response:
        interview = self._changeable()
        data = _valid(ReorderInputSerializer, request)
        services.interview_questions_reorder(
            interview=interview, order=data["order"], by=signed_in(request)
        )
        return self._fresh(interview.pk)

    def _changeable(self, *, reading: bool = False) -> Interview:
        """Return the interview if the caller may change its questions (interviews.editing);
        `reading` (the ranked alternatives) asks only who may, not whether it is too late."""
        interview = self.get_object()  # 404 for those who may not see it
        editing.check(user=self.request.user, interview=interview, reading=reading)
        return interview

    def _item(self, raw: object, interview: Interview | None = None) -> Any:
        interview = interview or self.get_object()
        try:
            pk = int(str(raw))
        except ValueError:
            pk = 0
        return get_object_or_404(interview.questions.select_related("interview__loop"), pk=pk)

    def _fresh(self, pk: int) -> Response:
        return Response(InterviewSerializer(self.get_queryset().get(pk=pk)).data)


def _valid(serializer_class: type, request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
