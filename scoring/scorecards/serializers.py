from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api.fields import ChosenField
from interviews.models import Loop
from kit.models import FollowUp, RubricItem
from scoring.models import Amendment, QuestionRating, Scorecard
from scoring.scorecards import hiring


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
        fields = ["id", "by", "at", "reason", "before", "after", "after_reading"]
        extra_kwargs = {
            "after_reading": {
                "help_text": "Made after its author first read the panel's other scorecards"
            }
        }


class ScorecardSerializer(serializers.ModelSerializer):
    interviewer = serializers.CharField(source="interviewer.username")
    loop = serializers.IntegerField(source="interview.loop_id")
    recommendation = ChosenField(
        choices=Scorecard.Recommendation.choices, help_text="null until chosen"
    )
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


# A card rates the questions of one interview, each against its rubric and follow-ups: a
# handful of each, never hundreds. A list longer than its bound is refused before any of
# its items is validated (a 60,000-rating body took 3 s of CPU to refuse without them).
MAX_RATINGS = 200  # ratings on one card
MAX_TICKS = 200  # rubric items checked, or follow-ups asked, in one rating


class BoundedListField(serializers.ListField):
    """A ListField that refuses a list over max_length before validating its items
    (ListField validates every item first and checks the length afterwards)."""

    def to_internal_value(self, data: Any) -> list[Any]:
        if self.max_length is not None and isinstance(data, list) and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class RatingInputSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="id of the interview question (see the interview)")
    question = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text=(
            "id of the question the rating is about, as the interview showed it (its"
            " `question`). When given and the interview question has since been swapped"
            " for another, the save is refused (409 question_swapped) instead of rating"
            " a question that was not asked."
        ),
    )
    rating = serializers.IntegerField(allow_null=True, default=None, min_value=0, max_value=100)
    not_asked = serializers.BooleanField(default=False)
    not_asked_reason = serializers.CharField(allow_blank=True, default="", max_length=300)
    checked = BoundedListField(child=serializers.IntegerField(), default=list, max_length=MAX_TICKS)
    follow_ups_asked = BoundedListField(
        child=serializers.IntegerField(), default=list, max_length=MAX_TICKS
    )
    notes = serializers.CharField(allow_blank=True, default="")


class ScorecardInputSerializer(serializers.Serializer):
    recommendation = serializers.ChoiceField(
        choices=Scorecard.Recommendation.choices, allow_blank=True, default=""
    )
    summary = serializers.CharField(allow_blank=True, default="")
    ratings: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=RatingInputSerializer(),
        default=list,
        max_length=MAX_RATINGS,
        help_text=f"one per question of the interview, at most {MAX_RATINGS}",
    )


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
    decision = ChosenField(choices=Loop.Decision.choices, help_text="null until decided")

    class Meta:
        model = Loop
        fields = [
            "id", "candidate", "role_id", "role", "level_id", "level", "status", "decision",
            "decision_rationale", "decided_by", "decided_at",
        ]  # fmt: skip


class DebriefPanelSerializer(serializers.Serializer):
    strong_no = serializers.IntegerField(help_text="counted cards recommending strong no")
    no = serializers.IntegerField(help_text="counted cards recommending no")
    counted = serializers.IntegerField(
        help_text="counted cards with a recommendation, every way: submitted, not a shadow's"
    )
    mostly_no = serializers.BooleanField(
        help_text="more than half of the counted cards strong no or no: a hire goes against"
        f" the panel, and its rationale needs at least {hiring.RATIONALE_MIN_CHARS} characters"
    )


class DebriefSerializer(serializers.Serializer):
    loop = DebriefLoopSerializer()
    blind = serializers.BooleanField(
        help_text="true while the caller still owes a scorecard: others are hidden"
    )
    panel = DebriefPanelSerializer(
        allow_null=True,
        help_text="How the counted scorecards among those the caller reads recommend"
        " (scoring/scorecards/hiring.py); null while the caller is blind.",
    )
    hire_against_panel = serializers.BooleanField(
        allow_null=True,
        help_text="true: decided hire although the panel mostly said no (the rationale says"
        " why); false: decided otherwise; null: not decided yet, or the caller is blind.",
    )
    scorecards = ScorecardSerializer(many=True)
    pending = PendingSerializer(many=True)


class ReasonInputSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="Why: kept in the audit log.")


class DecisionInputSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=Loop.Decision.choices)
    rationale = serializers.CharField(
        help_text="The evidence the decision rests on. A hire against a panel that mostly"
        " said no (more than half of the submitted, non-shadow recommendations strong no or"
        f" no) needs at least {hiring.RATIONALE_MIN_CHARS} characters saying why, else 400"
        " rationale_required (scoring/scorecards/hiring.py)."
    )
