from django.contrib.auth.models import User
from rest_framework import serializers

from core.api.fields import ChosenField
from interviews.assembly import Option
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import Level, Question, Role
from kit.serializers import FollowUpSerializer, NamedRelatedField, RubricItemSerializer


class CandidateSerializer(serializers.ModelSerializer):
    """A candidate with contact details: recruiters only."""

    class Meta:
        model = Candidate
        fields = ["id", "name", "email", "phone", "notes", "created_at"]
        read_only_fields = ["id", "created_at"]


class CandidateNameSerializer(serializers.ModelSerializer):
    """What an interviewer may know of a candidate."""

    class Meta:
        model = Candidate
        fields = ["id", "name"]


class PanelistSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")
    name = serializers.CharField(source="user.get_full_name")

    class Meta:
        model = Panelist
        fields = ["username", "name", "is_shadow"]


class InterviewQuestionSerializer(serializers.ModelSerializer):
    """An assigned question at the version it was given: what the interviewer asks and rates."""

    title = serializers.CharField(source="question.title")
    version = serializers.IntegerField(source="version.number")
    minutes = serializers.IntegerField(source="version.minutes")
    scale_max = serializers.IntegerField(source="version.scale_max")
    prompt = serializers.CharField(source="version.prompt")
    outline = serializers.CharField(source="version.outline")
    rubric = RubricItemSerializer(source="version.rubric", many=True)
    follow_ups = FollowUpSerializer(source="version.follow_ups", many=True)

    class Meta:
        model = InterviewQuestion
        fields = [
            "id", "order", "question", "title", "version", "minutes", "scale_max", "reason",
            "prompt", "outline", "rubric", "follow_ups",
        ]  # fmt: skip


class InterviewSerializer(serializers.ModelSerializer):
    candidate = CandidateNameSerializer(source="loop.candidate")
    role = serializers.CharField(source="loop.role.name")
    level = serializers.CharField(source="loop.level.name")
    panel = PanelistSerializer(many=True)
    questions = InterviewQuestionSerializer(many=True)

    class Meta:
        model = Interview
        fields = [
            "id", "loop", "candidate", "role", "level", "order", "title", "minutes",
            "interviewers_wanted", "scheduled_start", "scheduled_end", "panel", "questions",
        ]  # fmt: skip


class LoopInterviewSerializer(InterviewSerializer):
    class Meta(InterviewSerializer.Meta):
        fields = [
            "id", "order", "title", "minutes", "interviewers_wanted", "scheduled_start",
            "scheduled_end", "panel", "questions",
        ]  # fmt: skip


class LoopSerializer(serializers.ModelSerializer):
    candidate = CandidateNameSerializer()
    role = serializers.CharField(source="role.name")
    level = serializers.CharField(source="level.name")
    status = serializers.ChoiceField(
        source="status_seen",
        choices=Loop.Status.choices,
        read_only=True,
        help_text="A panelist who still owes a scorecard here reads `scheduled` until the"
        " loop is decided: `in_progress` and `debrief` would tell them others submitted.",
    )
    warnings = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="What assembly could not do as the template asked (a slot short of"
        " questions, say), in words",
    )
    decision = ChosenField(choices=Loop.Decision.choices, help_text="null until decided")
    interviews = LoopInterviewSerializer(many=True)

    class Meta:
        model = Loop
        fields = [
            "id", "candidate", "role_id", "role", "level_id", "level", "status", "warnings",
            "decision", "decided_at", "created_at", "interviews",
        ]  # fmt: skip


class LoopListSerializer(LoopSerializer):
    class Meta(LoopSerializer.Meta):
        fields = [
            "id",
            "candidate",
            "role_id",
            "role",
            "level_id",
            "level",
            "status",
            "warnings",
            "decision",
            "created_at",
        ]


class LoopInputSerializer(serializers.Serializer):
    candidate = serializers.PrimaryKeyRelatedField(queryset=Candidate.objects.all())
    role = NamedRelatedField(slug_field="name", queryset=Role.objects.all())
    level = NamedRelatedField(slug_field="name", queryset=Level.objects.all())


class LoopCreateInputSerializer(LoopInputSerializer):
    allow_duplicate = serializers.BooleanField(
        default=False,
        help_text="Build the loop even though the candidate already has an open one "
        "(otherwise 409 candidate_has_open_loop).",
    )


class PlannedQuestionSerializer(serializers.Serializer):
    question = serializers.IntegerField(source="option.question_id")
    title = serializers.CharField(source="option.title")
    minutes = serializers.IntegerField(source="option.minutes")
    reason = serializers.CharField()


class PlannedSlotSerializer(serializers.Serializer):
    title = serializers.CharField(source="slot.title")
    minutes = serializers.IntegerField(source="slot.minutes")
    questions = PlannedQuestionSerializer(source="picks", many=True)
    warning = serializers.CharField(allow_null=True)


class LoopPreviewSerializer(serializers.Serializer):
    slots = PlannedSlotSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField())


class InterviewInputSerializer(serializers.Serializer):
    # Any user by name: who may sit on a panel is interviews.services.panel_check's to
    # say, and it says why not (deactivated, not an interviewer) naming the field.
    interviewers = NamedRelatedField(
        slug_field="username",
        queryset=User.objects.all(),
        many=True,
        help_text="Usernames of active members of the Interviewers group.",
    )
    shadow = NamedRelatedField(
        slug_field="username",
        queryset=User.objects.all(),
        allow_null=True,
        default=None,
        help_text="Username of an active member of the Interviewers group, or null.",
    )
    scheduled_start = serializers.DateTimeField(allow_null=True, default=None)
    scheduled_end = serializers.DateTimeField(allow_null=True, default=None)


class SwapInputSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="id of the interview question to replace")
    question = serializers.PrimaryKeyRelatedField(queryset=Question.objects.all())
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="why the question changes (optional); the loop page shows it",
    )


class AlternativesQuerySerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="id of the interview question to replace")


class ReorderInputSerializer(serializers.Serializer):
    order = serializers.ListField(
        child=serializers.IntegerField(), help_text="the interview question ids in the new order"
    )


class AlternativeSerializer(serializers.Serializer):
    question = serializers.IntegerField(source="question_id")
    title = serializers.CharField()
    minutes = serializers.IntegerField()
    competencies = serializers.SerializerMethodField()
    exposure_30 = serializers.IntegerField()
    exposure_90 = serializers.IntegerField()

    def get_competencies(self, option: Option) -> list[str]:
        return sorted(option.competencies)
