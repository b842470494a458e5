from __future__ import annotations

from rest_framework import serializers

from interviews.models import Loop
from kit.models import FollowUp, RubricItem
from scoring.models import Amendment, QuestionRating, Scorecard


class RatingSerializer(serializers.ModelSerializer):
    question = serializers.IntegerField(source="item.question_id")
    title = serializers.CharField(source="item.question.title")
    version = serializers.IntegerField(source="version.number")
    checked: serializers.PrimaryKeyRelatedField[RubricItem] = serializers.PrimaryKeyRelatedField(
        many=True, read_only=True
    )
    follow_ups_asked: serializers.PrimaryKeyRelatedField[FollowUp] = (
        serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    )

    class Meta:
        model = QuestionRating
        fields = [
            "id", "item", "question", "title", "version", "rating", "not_asked",
            "not_asked_reason", "checked", "follow_ups_asked", "notes",
        ]  # fmt: skip


class AmendmentSerializer(serializers.ModelSerializer):
    by = serializers.CharField(source="by.username")

    class Meta:
        model = Amendment
        fields = ["id", "by", "at", "reason", "before", "after"]


class ScorecardSerializer(serializers.ModelSerializer):
    interviewer = serializers.CharField(source="interviewer.username")
    loop = serializers.IntegerField(source="interview.loop_id")
    ratings = RatingSerializer(many=True)
    amendments = AmendmentSerializer(many=True)

    class Meta:
        model = Scorecard
        fields = [
            "id", "interview", "loop", "interviewer", "is_shadow", "status", "recommendation",
            "summary", "submitted_at", "updated_at", "ratings", "amendments",
        ]  # fmt: skip


class ScorecardStartSerializer(serializers.Serializer):
    interview = serializers.IntegerField()


class RatingInputSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="id of the interview question (see the interview)")
    rating = serializers.IntegerField(allow_null=True, default=None, min_value=0, max_value=100)
    not_asked = serializers.BooleanField(default=False)
    not_asked_reason = serializers.CharField(allow_blank=True, default="", max_length=300)
    checked = serializers.ListField(child=serializers.IntegerField(), default=list)
    follow_ups_asked = serializers.ListField(child=serializers.IntegerField(), default=list)
    notes = serializers.CharField(allow_blank=True, default="")


class ScorecardInputSerializer(serializers.Serializer):
    recommendation = serializers.ChoiceField(
        choices=Scorecard.Recommendation.choices, allow_blank=True, default=""
    )
    summary = serializers.CharField(allow_blank=True, default="")
    ratings = RatingInputSerializer(many=True, default=list)


class AmendInputSerializer(ScorecardInputSerializer):
    reason = serializers.CharField()


class PendingSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    interview = serializers.IntegerField(source="interview_id")
    is_shadow = serializers.BooleanField()


class DebriefLoopSerializer(serializers.ModelSerializer):
    candidate = serializers.CharField(source="candidate.name")
    role = serializers.CharField(source="role.name")
    level = serializers.CharField(source="level.name")
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True)

    class Meta:
        model = Loop
        fields = [
            "id", "candidate", "role", "level", "status", "decision", "decision_rationale",
            "decided_by", "decided_at",
        ]  # fmt: skip


class DebriefSerializer(serializers.Serializer):
    loop = DebriefLoopSerializer()
    blind = serializers.BooleanField(
        help_text="true while the caller still owes a scorecard: others are hidden"
    )
    scorecards = ScorecardSerializer(many=True)
    pending = PendingSerializer(many=True)


class DecisionInputSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=Loop.Decision.choices)
    rationale = serializers.CharField()
