"""The candidate export and erasure answers, described for the OpenAPI schema only.

Nothing serialises through these: `selectors.candidate_record` builds the export
(every column of every row held about the candidate, `selectors.row`) and the
erase view answers three keys. Foreign keys are `{"id": ..}` plus the label read
with the row (`selectors._label`): which label each one has is fixed by the
export's queries, so each reference below names its own.
"""

from typing import Any

from django.contrib.admin.models import ACTION_FLAG_CHOICES
from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers

from core.api.openapi import optional_members_register
from interviews.models import Loop
from interviews.pools.models import TrainingSeat
from kit.models import RubricItem
from scoring.calibration.schema import CandidateCalibrationSerializer, SnapshotScopeSerializer
from scoring.models import Scorecard


class RowRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()


class NamedRowRefSerializer(RowRefSerializer):
    name = serializers.CharField()


class TitledRowRefSerializer(RowRefSerializer):
    title = serializers.CharField()


class UserRowRefSerializer(RowRefSerializer):
    username = serializers.CharField()


class VersionRowRefSerializer(RowRefSerializer):
    number = serializers.IntegerField(help_text="the question version's number")


def when(help_text: str = "", *, null: bool = False) -> serializers.DateTimeField:
    return serializers.DateTimeField(allow_null=null, help_text=help_text)


def recommendation() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=Scorecard.Recommendation.choices, allow_blank=True, help_text="blank: none yet"
    )


@extend_schema_field(
    {"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}], "nullable": True}
)
class AuditValueField(serializers.Field):  # schema only: never run
    """One value of an audit event's data: text, a number or a flag."""


class ExportedCandidateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    email = serializers.CharField(help_text="blank when not given")
    phone = serializers.CharField(help_text="blank when not given")
    notes = serializers.CharField()
    created_at = when()
    erased_at = when("when their personal data was erased; null if it was not", null=True)


class ExportedFeedbackReadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    loop = RowRefSerializer()
    user = UserRowRefSerializer()
    at = when("when the user first read the loop's other scorecards")


class ExportedPanelistSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    interview = TitledRowRefSerializer()
    user = UserRowRefSerializer()
    is_shadow = serializers.BooleanField()
    reminded_at = when("when the overdue-scorecard reminder last went out", null=True)
    cancelled_at = when("when the seat was cancelled, its loop closed first", null=True)


class ExportedTrainingSeatSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    membership = RowRefSerializer(help_text="the trainee's pool membership")
    interview = TitledRowRefSerializer()
    kind = serializers.ChoiceField(choices=TrainingSeat.Kind.choices)
    outcome = serializers.ChoiceField(choices=TrainingSeat.Outcome.choices)
    note = serializers.CharField(help_text="the trainer's sign-off note")
    signed_off_by = UserRowRefSerializer(allow_null=True)
    signed_off_at = when(null=True)
    created_at = when()


class ExportedInterviewQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    interview = TitledRowRefSerializer()
    loop = RowRefSerializer()
    question = TitledRowRefSerializer()
    version = VersionRowRefSerializer()
    order = serializers.IntegerField()
    reason = serializers.CharField(help_text="why assembly chose the question")
    assigned_at = when()


class ExportedRubricTickSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=RubricItem.Kind.choices)
    text = serializers.CharField()


class ExportedFollowUpSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()


class ExportedRatingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    scorecard = RowRefSerializer()
    item = RowRefSerializer(help_text="the interview question rated")
    version = VersionRowRefSerializer()
    rating = serializers.IntegerField(allow_null=True, help_text="null until rated, or not asked")
    not_asked = serializers.BooleanField()
    not_asked_reason = serializers.CharField()
    notes = serializers.CharField()
    checked = ExportedRubricTickSerializer(many=True, help_text="rubric items ticked")
    follow_ups_asked = ExportedFollowUpSerializer(many=True)


class RatingCopySerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="the interview question's id")
    rating = serializers.IntegerField(allow_null=True)
    not_asked = serializers.BooleanField()
    not_asked_reason = serializers.CharField()
    checked = serializers.ListField(child=serializers.IntegerField(), help_text="rubric item ids")
    follow_ups_asked = serializers.ListField(
        child=serializers.IntegerField(), help_text="follow-up ids"
    )
    notes = serializers.CharField()


class ScorecardCopySerializer(serializers.Serializer):
    recommendation = recommendation()
    summary = serializers.CharField()
    ratings = RatingCopySerializer(many=True)


class ExportedAmendmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    scorecard = RowRefSerializer()
    by = UserRowRefSerializer()
    at = when()
    reason = serializers.CharField()
    before = ScorecardCopySerializer(help_text="the card's content before the amendment")
    after = ScorecardCopySerializer(help_text="the card's content after it")
    after_reading = serializers.BooleanField(
        help_text="made after its author first read the panel's other cards"
    )


class ExportedScorecardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    interview = TitledRowRefSerializer()
    interviewer = UserRowRefSerializer()
    is_shadow = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Scorecard.Status.choices)
    recommendation = recommendation()
    summary = serializers.CharField()
    created_at = when()
    updated_at = when()
    submitted_at = when(null=True)
    ratings = ExportedRatingSerializer(many=True)
    amendments = ExportedAmendmentSerializer(many=True)


class ExportedInterviewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    loop = RowRefSerializer()
    slot = TitledRowRefSerializer(allow_null=True, help_text="null once the slot is gone")
    order = serializers.IntegerField()
    title = serializers.CharField()
    minutes = serializers.IntegerField()
    competencies = serializers.ListField(
        child=serializers.CharField(), help_text="the slot's competency slugs"
    )
    interviewers_wanted = serializers.IntegerField()
    scheduled_start = when(null=True)
    scheduled_end = when(null=True)
    invite_sequence = serializers.IntegerField(help_text="the calendar invites' SEQUENCE")
    created_at = when()
    panel = ExportedPanelistSerializer(many=True)
    training_seats = ExportedTrainingSeatSerializer(
        many=True, help_text="trainees who shadowed it, and their trainers' sign-offs"
    )
    questions = ExportedInterviewQuestionSerializer(many=True)
    scorecards = ExportedScorecardSerializer(many=True, help_text="drafts too")


class ExportedLoopSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    candidate = RowRefSerializer()
    role = NamedRowRefSerializer()
    level = NamedRowRefSerializer()
    template = NamedRowRefSerializer(allow_null=True)
    status = serializers.ChoiceField(choices=Loop.Status.choices)
    warnings = serializers.ListField(
        child=serializers.CharField(), help_text="slots assembly could not fill"
    )
    decision = serializers.ChoiceField(
        choices=Loop.Decision.choices, allow_blank=True, help_text="blank: not decided"
    )
    decision_rationale = serializers.CharField()
    decided_by = UserRowRefSerializer(allow_null=True)
    decided_at = when(null=True)
    created_by = UserRowRefSerializer(allow_null=True)
    created_at = when()
    cancelled_at = when("when the loop was cancelled", null=True)
    cancel_reason = serializers.CharField(help_text="why it was cancelled; blank if not")
    interviews = ExportedInterviewSerializer(many=True)
    feedback_reads = ExportedFeedbackReadSerializer(many=True)


class ExportedCalibrationSerializer(serializers.Serializer):
    snapshot = serializers.IntegerField(help_text="the snapshot's id")
    scope = SnapshotScopeSerializer()
    computed_at = when()
    rows = CandidateCalibrationSerializer(many=True, help_text="the candidate's rows")


class ExportedAuditEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    actor = UserRowRefSerializer(allow_null=True, help_text="null once the user is deleted")
    at = when()
    action = serializers.CharField(help_text="e.g. `loop.decided`")
    target = serializers.CharField()
    # The metaclass moves declared fields out of the class: Serializer.data stays as it is.
    data = serializers.DictField(  # type: ignore[assignment]  # a field named like Serializer.data
        child=AuditValueField(), help_text="what the action recorded, each a text, number or flag"
    )


class ExportedLogEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    action_time = when()
    user = UserRowRefSerializer()
    content_type = NamedRowRefSerializer(
        allow_null=True, help_text="the model, as `app_label.model`"
    )
    object_id = serializers.CharField(allow_null=True)
    object_repr = serializers.CharField()
    action_flag = serializers.ChoiceField(choices=ACTION_FLAG_CHOICES)
    change_message = serializers.CharField(help_text="the admin's JSON list of changes, or text")


class ExportedContactSerializer(serializers.Serializer):
    name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()


class ExportedEventDetailsSerializer(serializers.Serializer):
    # Which members an event has depends on its kind (registered below as optional).
    candidate = ExportedContactSerializer(required=False)
    summary = serializers.CharField(required=False, help_text="scorecard events")
    reason = serializers.CharField(required=False, help_text="scorecard.amended")
    rationale = serializers.CharField(required=False, help_text="loop.decided")


optional_members_register("ExportedEventDetails", "candidate", "summary", "reason", "rationale")


class ExportedWebhookEventSerializer(serializers.Serializer):
    event_id = serializers.CharField(help_text="the webhook-id its deliveries carried")
    kind = serializers.CharField(help_text="e.g. `scorecard.submitted`")
    created_at = when()
    payload = serializers.DictField(
        child=AuditValueField(), help_text="the ids (and states) every subscriber was sent"
    )
    details = ExportedEventDetailsSerializer(
        help_text="their name, contact details and free text, as sent to subscriptions"
        " allowed them; empty otherwise, and after an erasure",
    )


class ExportedKeptAnswerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField(help_text="the Idempotency-Key the POST was sent with")
    created_at = when()
    status = serializers.IntegerField(help_text="the answer's HTTP status")
    content_type = serializers.CharField()
    location = serializers.CharField(help_text="its Location header; blank if none")
    body = serializers.CharField(help_text="the answer's body, as it was sent (text)")


class CandidateExportSerializer(serializers.Serializer):
    candidate = ExportedCandidateSerializer()
    loops = ExportedLoopSerializer(many=True, help_text="oldest first")
    calibration = ExportedCalibrationSerializer(
        many=True, help_text="their rows of each scope's latest calibration snapshot"
    )
    audit_events = ExportedAuditEventSerializer(
        many=True, help_text="audit events about them or quoting them"
    )
    admin_log = ExportedLogEntrySerializer(
        many=True, help_text="admin log entries about their rows or quoting them"
    )
    webhook_events = ExportedWebhookEventSerializer(
        many=True, help_text="events about them sent to the company's other systems"
    )
    kept_answers = ExportedKeptAnswerSerializer(
        many=True,
        help_text="answers to POSTs sent with an Idempotency-Key that show them, kept 24"
        " hours so that a retry gets the same answer",
    )


class CandidateErasureSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="the name the candidate goes by now")
    erased_at = when()


def _export_example() -> dict[str, Any]:
    """Return the export of a candidate with one loop of one interview, one card."""
    recruiter = {"id": 1, "username": "demo-recruiter"}
    interviewer = {"id": 3, "username": "demo-interviewer-1"}
    interview = {"id": 7, "title": "Distributed training"}
    version = {"id": 31, "number": 1}
    return {
        "candidate": {
            "id": 12, "name": "Ada Lovelace", "email": "ada@example.com", "phone": "",
            "notes": "", "created_at": "2026-11-20T10:00:00+00:00", "erased_at": None,
        },
        "loops": [
            {
                "id": 5, "candidate": {"id": 12},
                "role": {"id": 1, "name": "AI Infrastructure Engineer"},
                "level": {"id": 3, "name": "L5"},
                "template": {"id": 2, "name": "AI Infrastructure Engineer L5"},
                "status": "decided", "warnings": [], "decision": "hire",
                "decision_rationale": "Strong on sharding and cost.", "decided_by": recruiter,
                "decided_at": "2026-12-01T16:00:00+00:00", "created_by": recruiter,
                "created_at": "2026-11-20T10:05:00+00:00",
                "cancelled_at": None, "cancel_reason": "",
                "interviews": [
                    {
                        "id": 7, "loop": {"id": 5},
                        "slot": {"id": 4, "title": "Distributed training"}, "order": 1,
                        "title": "Distributed training", "minutes": 60,
                        "competencies": ["distributed-training"], "interviewers_wanted": 1,
                        "scheduled_start": "2026-12-01T09:00:00+00:00",
                        "scheduled_end": "2026-12-01T10:00:00+00:00",
                        "invite_sequence": 1,
                        "created_at": "2026-11-20T10:05:00+00:00",
                        "panel": [
                            {
                                "id": 9, "interview": interview, "user": interviewer,
                                "is_shadow": False, "reminded_at": None, "cancelled_at": None,
                            }
                        ],
                        "training_seats": [],
                        "questions": [
                            {
                                "id": 15, "interview": interview, "loop": {"id": 5},
                                "question": {"id": 30, "title": "Sharding a 70B model"},
                                "version": version, "order": 1,
                                "reason": "covers distributed-training; fits L5, 15 min",
                                "assigned_at": "2026-11-20T10:05:00+00:00",
                            }
                        ],
                        "scorecards": [
                            {
                                "id": 21, "interview": interview, "interviewer": interviewer,
                                "is_shadow": False, "status": "submitted",
                                "recommendation": "yes", "summary": "Clear on trade-offs.",
                                "created_at": "2026-12-01T10:05:00+00:00",
                                "updated_at": "2026-12-01T10:20:00+00:00",
                                "submitted_at": "2026-12-01T10:20:00+00:00",
                                "ratings": [
                                    {
                                        "id": 40, "scorecard": {"id": 21}, "item": {"id": 15},
                                        "version": version, "rating": 3, "not_asked": False,
                                        "not_asked_reason": "", "notes": "Named both.",
                                        "checked": [
                                            {
                                                "id": 88, "kind": "core",
                                                "text": "Names tensor and pipeline parallelism.",
                                            }
                                        ],
                                        "follow_ups_asked": [
                                            {"id": 61, "text": "What would you measure first?"}
                                        ],
                                    }
                                ],
                                "amendments": [],
                            }
                        ],
                    }
                ],
                "feedback_reads": [
                    {
                        "id": 3, "loop": {"id": 5}, "user": interviewer,
                        "at": "2026-12-01T10:21:00+00:00",
                    }
                ],
            }
        ],
        "calibration": [
            {
                "snapshot": 44,
                "scope": {
                    "role": "AI Infrastructure Engineer", "level": None, "period": None,
                    "flags": "confirmatory",
                },
                "computed_at": "2026-12-02T02:00:00+00:00",
                "rows": [
                    {
                        "candidate": "Ada Lovelace", "candidate_id": 12, "ratings": 1,
                        "raw_mean": 3.0, "adjusted": 3.1, "adjusted_se": 0.4,
                        "adjusted_ci": [2.316, 3.884], "comparable": True, "estimable": True,
                        "reason": None,
                    }
                ],
            }
        ],
        "audit_events": [
            {
                "id": 101, "actor": recruiter, "at": "2026-12-01T16:00:00+00:00",
                "action": "loop.decided", "target": "loop 5", "data": {"decision": "hire"},
            }
        ],
        "admin_log": [],
        "webhook_events": [],
        "kept_answers": [],
    }  # fmt: skip


EXPORT_EXAMPLE = OpenApiExample(
    "Export", summary="A candidate with one loop", value=_export_example(), response_only=True
)
ERASURE_EXAMPLE = OpenApiExample(
    "Erased",
    summary="The candidate, erased",
    value={"id": 12, "name": "Erased candidate 12", "erased_at": "2026-12-03T09:00:00Z"},
    response_only=True,
)
