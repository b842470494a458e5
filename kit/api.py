from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from core.api.etags import ETagMixin
from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.permissions import IsLeadOrReadOnly, IsPlannerOrReadOnly
from kit import selectors, services
from kit.filters import QuestionFilter
from kit.models import Competency, Level, LoopTemplate, Question, Role
from kit.serializers import (
    CompetencySerializer,
    LevelSerializer,
    LoopTemplateInputSerializer,
    LoopTemplateSerializer,
    QuestionDetailSerializer,
    QuestionInputSerializer,
    QuestionListSerializer,
    RoleSerializer,
)


class RoleViewSet(ETagMixin, viewsets.ModelViewSet):
    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    queryset = Role.objects.all()
    serializer_class = RoleSerializer
    permission_classes = [IsLeadOrReadOnly]
    http_method_names = ["get", "post", "patch", "head", "options"]


class LevelViewSet(viewsets.ReadOnlyModelViewSet):
    """The levels of the ladder, lowest rank first. Read here; changed in the admin."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    queryset = Level.objects.all()
    serializer_class = LevelSerializer


class CompetencyViewSet(ETagMixin, viewsets.ModelViewSet):
    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    queryset = Competency.objects.all()
    serializer_class = CompetencySerializer
    permission_classes = [IsLeadOrReadOnly]
    http_method_names = ["get", "post", "patch", "head", "options"]


class QuestionViewSet(ETagMixin, viewsets.ModelViewSet):
    """The question bank. Everyone signed in reads it; calibration leads edit it.

    Editing the text, timing, scale or rubric of a question already used in an
    interview creates a new version; earlier versions stay readable.
    """

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    permission_classes = [IsLeadOrReadOnly]
    filterset_class = QuestionFilter
    http_method_names = ["get", "post", "put", "head", "options"]

    def get_queryset(self) -> QuerySet[Question]:
        questions = selectors.question_list()
        if self.action != "list":
            questions = questions.prefetch_related(
                "current__rubric", "current__follow_ups", "versions"
            )
        return questions

    def get_serializer_class(self) -> type[BaseSerializer]:
        if self.action in ("create", "update"):
            return QuestionInputSerializer
        if self.action == "retrieve":
            return QuestionDetailSerializer
        return QuestionListSerializer

    @extend_schema(request=QuestionInputSerializer, responses={201: QuestionDetailSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self._validated(request)
        question = services.question_create(
            role=data["role"],
            meta=self._meta(data),
            content=self._content(data),
            by=signed_in(request),
        )
        return self._detail(question.pk, status.HTTP_201_CREATED)

    @extend_schema(request=QuestionInputSerializer, responses={200: QuestionDetailSerializer})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.get_object()
        data = self._validated(request)
        if data["role"] != question.role:
            raise ValidationError({"role": ["A question cannot move to another role."]})
        services.question_update(
            question=question,
            meta=self._meta(data),
            content=self._content(data),
            by=signed_in(request),
        )
        return self._detail(question.pk, status.HTTP_200_OK)

    def representation(self, obj: Question) -> Any:
        return QuestionDetailSerializer(obj).data

    def _validated(self, request: Request) -> dict[str, Any]:
        serializer = QuestionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def _meta(self, data: dict[str, Any]) -> services.Meta:
        return services.Meta(
            title=data["title"],
            status=data["status"],
            competencies=data["competencies"],
            min_level=data["min_level"],
            max_level=data["max_level"],
        )

    def _content(self, data: dict[str, Any]) -> services.Content:
        return services.Content(
            prompt=data["prompt"],
            outline=data["outline"],
            minutes=data["minutes"],
            scale_max=data["scale_max"],
            follow_ups=tuple(data["follow_ups"]),
            rubric=tuple((item["text"], item["kind"]) for item in data["rubric"]),
        )

    def _detail(self, pk: int, code: int) -> Response:
        question = self.get_queryset().get(pk=pk)
        return Response(QuestionDetailSerializer(question).data, status=code)


class LoopTemplateViewSet(ETagMixin, viewsets.ModelViewSet):
    """Loop templates per role and level. Saving one for an existing role and level replaces it."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    permission_classes = [IsPlannerOrReadOnly]
    serializer_class = LoopTemplateSerializer
    http_method_names = ["get", "post", "put", "head", "options"]
    filterset_fields = ["role", "level"]

    def get_queryset(self) -> QuerySet[LoopTemplate]:
        return LoopTemplate.objects.select_related("role", "level").prefetch_related(
            "slots__competencies"
        )

    @extend_schema(request=LoopTemplateInputSerializer, responses={201: LoopTemplateSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        template = self._save(request)
        return Response(self._out(template.pk), status=status.HTTP_201_CREATED)

    @extend_schema(request=LoopTemplateInputSerializer, responses={200: LoopTemplateSerializer})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        template = self.get_object()
        data = LoopTemplateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if (data.validated_data["role"], data.validated_data["level"]) != (
            template.role,
            template.level,
        ):
            raise ApplicationError("A template keeps its role and level.", code="template_moved")
        return Response(self._out(self._save(request).pk))

    def _save(self, request: Request) -> LoopTemplate:
        serializer = LoopTemplateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        return services.loop_template_save(
            role=data["role"],
            level=data["level"],
            name=data["name"],
            slots=[
                services.SlotData(
                    title=s["title"],
                    minutes=s["minutes"],
                    competencies=tuple(s["competencies"]),
                    question_count=s["question_count"],
                    interviewer_count=s["interviewer_count"],
                )
                for s in data["slots"]
            ],
        )

    def _out(self, pk: int) -> dict[str, Any]:
        return LoopTemplateSerializer(self.get_queryset().get(pk=pk)).data
