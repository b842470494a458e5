from collections.abc import Callable, Sequence
from typing import Any

import django_filters
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import error
from core.auth import signed_in
from core.permissions import is_lead, is_recruiter
from interviews.api import IdFilter
from interviews.models import Interview, Loop
from scoring.models import Scorecard
from scoring.scorecards import closing, selectors, services
from scoring.scorecards.serializers import (
    AmendInputSerializer,
    AmendmentSerializer,
    DebriefSerializer,
    DecisionInputSerializer,
    ReasonInputSerializer,
    ScorecardInputSerializer,
    ScorecardSerializer,
    ScorecardStartSerializer,
)


class IsLead(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.user.is_authenticated and is_lead(request.user)


def _ratings(data: dict[str, Any]) -> list[services.RatingInput]:
    return [
        services.RatingInput(
            item=r["item"],
            question=r["question"],
            rating=r["rating"],
            not_asked=r["not_asked"],
            not_asked_reason=r["not_asked_reason"],
            checked=tuple(r["checked"]),
            follow_ups_asked=tuple(r["follow_ups_asked"]),
            notes=r["notes"],
        )
        for r in data["ratings"]
    ]


def _read(request: Request, cards: Sequence[Scorecard]) -> None:
    """Record the loops whose other panelists' cards the caller is shown."""
    me = request.user.pk
    services.feedback_read(
        user=request.user,
        loop_ids=[card.interview.loop_id for card in cards if card.interviewer_id != me],
    )


class ScorecardFilter(django_filters.FilterSet):
    interview = IdFilter(field_name="interview_id", help_text="Interview id.")

    class Meta:
        model = Scorecard
        fields = ["interview", "status"]


class ScorecardViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Scorecards. You read your own, and others' submitted cards once you owe none in
    their loop (recruiters read all submitted). You write only your own."""

    lookup_value_converter = "int"  # an integer id in the schema; a non-numeric one is a 404
    serializer_class = ScorecardSerializer
    filterset_class = ScorecardFilter

    def get_queryset(self):  # type: ignore[no-untyped-def]
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Scorecard.objects.none()
        cards = selectors.scorecards_for_api(user=self.request.user)
        return cards.select_related("interviewer", "interview").order_by("id")

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        assert page is not None  # every list is paginated (REST_FRAMEWORK settings)
        _read(request, page)
        return self.get_paginated_response(selectors.scorecard_documents(page))

    def retrieve(self, request: Request, pk: str) -> Response:
        card = self.get_object()
        _read(request, [card])
        return _with_version(Response(selectors.scorecard_document(card)), card)

    def _own(self, pk: str) -> Scorecard:
        return selectors.own_scorecard_get(user=self.request.user, pk=int(pk))

    @staticmethod
    def _ref(pk: str) -> Scorecard:
        # The write services read the card once, under their lock, and answer 404
        # to anyone but its author: no read here.
        return Scorecard(pk=int(pk))

    @extend_schema(
        request=ScorecardStartSerializer,
        responses={
            201: ScorecardSerializer,
            200: OpenApiResponse(ScorecardSerializer, description="your draft, already started"),
            404: error("No such interview on your panel."),
        },
    )
    def create(self, request: Request) -> Response:
        """Start (or return) your draft scorecard for an interview you are on."""
        serializer = ScorecardStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        interview = Interview(pk=serializer.validated_data["interview"])  # 404 unless on its panel
        asked_at = timezone.now()
        card = services.scorecard_start(interview=interview, by=signed_in(request))
        # Starting again returns the draft already there: 200, not a second 201.
        code = status.HTTP_201_CREATED if card.created_at >= asked_at else status.HTTP_200_OK
        return _with_version(Response(selectors.scorecard_document(card), status=code), card)

    @extend_schema(
        request=ScorecardInputSerializer,
        responses={200: ScorecardSerializer, 409: error("The scorecard is already submitted.")},
    )
    def update(self, request: Request, pk: str) -> Response:
        """Save your draft as given (the whole card: missing ratings are removed)."""
        serializer = ScorecardInputSerializer(data=request.data)
        if not serializer.is_valid():
            self._own(pk)  # someone else's card is a 404 whatever the body
            raise ValidationError(serializer.errors)
        data = serializer.validated_data
        card = services.scorecard_save_draft(
            scorecard=self._ref(pk),
            by=signed_in(request),
            recommendation=data["recommendation"],
            summary=data["summary"],
            ratings=_ratings(data),
            version=request.headers.get("If-Match"),
        )
        return _with_version(Response(selectors.scorecard_document(card)), card)

    @extend_schema(
        request=None,
        responses={
            200: ScorecardSerializer,
            400: error("The draft is incomplete, or its interview has not started."),
            409: error("The scorecard is already submitted."),
        },
    )
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str) -> Response:
        """Submit your complete draft once its interview has started. A second submission
        answers 409."""
        card = services.scorecard_submit(scorecard=self._ref(pk), by=signed_in(request))
        return Response(selectors.scorecard_document(card))

    @extend_schema(request=AmendInputSerializer, responses={201: AmendmentSerializer})
    @action(detail=True, methods=["post"])
    def amend(self, request: Request, pk: str) -> Response:
        """Change your submitted scorecard, with a reason; the debrief shows before and after."""
        card = self._own(pk)
        serializer = AmendInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        amendment = services.scorecard_amend(
            scorecard=card,
            by=signed_in(request),
            reason=data["reason"],
            recommendation=data["recommendation"],
            summary=data["summary"],
            ratings=_ratings(data),
        )
        return Response(AmendmentSerializer(amendment).data, status=status.HTTP_201_CREATED)


class DebriefView(APIView):
    """A loop's debrief, blind until you have submitted every scorecard you owe in it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: DebriefSerializer})
    def get(self, request: Request, pk: int) -> Response:
        document = selectors.debrief_document(user=request.user, pk=pk)
        me = request.user.get_username()
        if any(card["interviewer"] != me for card in document["scorecards"]):
            services.feedback_read(user=request.user, loop_ids=[pk])
        return Response(document)


class DecisionView(APIView):
    """Record the hire / no-hire decision (recruiters). The loop becomes decided.

    A hire waits until every interview is held and scored (400 hire_waits_*); a hire
    against a panel that mostly said no needs a rationale that says why, of at least
    40 characters (400 rationale_required)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=DecisionInputSerializer,
        responses={200: DebriefSerializer, 409: error("The loop is already decided.")},
    )
    def post(self, request: Request, pk: int) -> Response:
        loop = selectors.loop_for_debrief(user=request.user, pk=pk)
        if not is_recruiter(request.user):
            raise PermissionDenied("Only recruiters record decisions.")
        serializer = DecisionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        loop = services.loop_decide(loop=loop, by=signed_in(request), **serializer.validated_data)
        return Response(selectors.debrief_document(user=request.user, pk=loop.pk))


def _close_or_reopen(request: Request, pk: int, service: Callable[..., Loop]) -> Response:
    loop = selectors.loop_for_debrief(user=request.user, pk=pk)
    if not is_recruiter(request.user):
        raise PermissionDenied("Only recruiters cancel or reopen loops.")
    serializer = ReasonInputSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    service(loop=loop, by=signed_in(request), **serializer.validated_data)
    return Response(selectors.debrief_document(user=request.user, pk=loop.pk))


class CancelView(APIView):
    """Cancel an undecided loop (recruiters): its seats without a card are cancelled and
    their holders get a calendar cancellation; drafts stay, read-only."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=ReasonInputSerializer,
        responses={200: DebriefSerializer, 409: error("The loop is already closed.")},
    )
    def post(self, request: Request, pk: int) -> Response:
        return _close_or_reopen(request, pk, closing.loop_cancel)


class ReopenView(APIView):
    """Reopen a decided or cancelled loop (recruiters): the decision is cleared and the
    cancelled seats come back, invited again."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=ReasonInputSerializer,
        responses={200: DebriefSerializer, 409: error("The loop is open.")},
    )
    def post(self, request: Request, pk: int) -> Response:
        return _close_or_reopen(request, pk, closing.loop_reopen)


def _with_version(response: Response, card: Scorecard) -> Response:
    """Tag a scorecard's answer with its version, the If-Match a save may send
    (core/api/etags.py)."""
    response["ETag"] = selectors.scorecard_version(card)
    return response
