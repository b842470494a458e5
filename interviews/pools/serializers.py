"""Shapes of the pools API: inputs (checked for shape only) and outputs."""

from django.contrib.auth.models import User
from rest_framework import serializers

from interviews.pools.models import (
    Graduation,
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from kit.models import Competency, Level, Role
from kit.serializers import NamedRelatedField


class PoolSerializer(serializers.ModelSerializer):
    role = serializers.CharField(source="role.name", default=None, read_only=True, allow_null=True)
    competency = serializers.CharField(
        source="competency.slug", default=None, read_only=True, allow_null=True
    )
    level_min = serializers.CharField(
        source="level_min.name", default=None, read_only=True, allow_null=True
    )
    level_max = serializers.CharField(
        source="level_max.name", default=None, read_only=True, allow_null=True
    )
    slot_title = serializers.CharField(
        source="slot.title", default=None, read_only=True, allow_null=True
    )

    class Meta:
        model = Pool
        fields = [
            "id", "name", "slot", "slot_title", "competency", "role", "role_id",
            "level_min", "level_max", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class PoolInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    slot = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, allow_null=True, default=None,
        help_text="A loop template slot's id.",
    )  # fmt: skip
    competency = NamedRelatedField(
        slug_field="slug", queryset=Competency.objects.all(), allow_null=True, default=None
    )
    role = NamedRelatedField(
        slug_field="name", queryset=Role.objects.all(), allow_null=True, default=None
    )
    level_min = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )
    level_max = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )


class PoolRenameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)


class GraduationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Graduation
        fields = ["id", "graduated_at", "by", "evidence"]
        read_only_fields = fields


class MembershipSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    name = serializers.SerializerMethodField()
    graduation = GraduationSerializer(read_only=True, default=None, allow_null=True)

    class Meta:
        model = PoolMembership
        fields = [
            "id", "pool", "user", "username", "name", "status", "added_by", "added_at",
            "removed_at", "graduation",
        ]  # fmt: skip
        read_only_fields = fields

    def get_name(self, membership: PoolMembership) -> str:
        return membership.user.get_full_name() or membership.user.get_username()


class MembershipInputSerializer(serializers.Serializer):
    pool = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    user = NamedRelatedField(slug_field="username", queryset=User.objects.all())
    status = serializers.ChoiceField(
        choices=PoolMembership.Status.choices, default=PoolMembership.Status.QUALIFIED
    )


class LimitsSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    # HH:MM:SS on the person's own clock: a "time" format would ask for an offset.
    day_start = serializers.CharField(read_only=True, help_text="HH:MM:SS in their zone")
    day_end = serializers.CharField(read_only=True, help_text="HH:MM:SS in their zone")

    class Meta:
        model = InterviewerLimits
        fields = ["id", "user", "username", "per_day", "per_week", "day_start", "day_end"]
        read_only_fields = fields


class LimitsInputSerializer(serializers.Serializer):
    user = NamedRelatedField(slug_field="username", queryset=User.objects.all(), required=False)
    per_day = serializers.IntegerField(min_value=1, max_value=20, required=False)
    per_week = serializers.IntegerField(min_value=1, max_value=60, required=False)
    day_start = serializers.TimeField(required=False, help_text="In the person's own zone.")
    day_end = serializers.TimeField(required=False, help_text="In the person's own zone.")


class PathSerializer(serializers.ModelSerializer):
    class Meta:
        model = TrainingPath
        fields = [
            "id", "pool", "shadows", "reverse_shadows", "calibration_max_gap",
            "no_severity_flag", "flag_min_ratings", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields


class PathInputSerializer(serializers.Serializer):
    shadows = serializers.IntegerField(min_value=0, max_value=10)
    reverse_shadows = serializers.IntegerField(min_value=0, max_value=10)
    calibration_max_gap = serializers.DecimalField(
        max_digits=4, decimal_places=2, min_value=0, max_value=10, allow_null=True, default=None
    )
    no_severity_flag = serializers.BooleanField(default=False)
    flag_min_ratings = serializers.IntegerField(min_value=1, max_value=1000, default=20)


class SeatSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="membership.user.username", read_only=True)
    pool = serializers.IntegerField(source="membership.pool_id", read_only=True)

    class Meta:
        model = TrainingSeat
        fields = [
            "id", "membership", "pool", "username", "interview", "kind", "outcome", "note",
            "signed_off_by", "signed_off_at",
        ]  # fmt: skip
        read_only_fields = fields


class SignOffInputSerializer(serializers.Serializer):
    ready = serializers.BooleanField()
    note = serializers.CharField(allow_blank=True, default="", max_length=4000)


class StaffInputSerializer(serializers.Serializer):
    avoid = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        default=list,
        max_length=200,
        help_text="User ids to put last (a re-roll: send the previous picks).",
    )


class PickSerializer(serializers.Serializer):
    user = serializers.IntegerField(source="user_id")
    name = serializers.CharField()
    kind = serializers.CharField()
    reason = serializers.CharField()


class PanelPlanSerializer(serializers.Serializer):
    interview = serializers.IntegerField(source="spec.interview_id")
    title = serializers.CharField(source="spec.title")
    pool = serializers.IntegerField(source="spec.pool.pool_id", default=None)
    picks = PickSerializer(many=True)
    shortfall = serializers.CharField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())


class PanelInputSerializer(serializers.Serializer):
    interview = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    interviewers = NamedRelatedField(slug_field="username", queryset=User.objects.all(), many=True)
    shadow = NamedRelatedField(
        slug_field="username", queryset=User.objects.all(), allow_null=True, default=None
    )
    shadow_kind = serializers.ChoiceField(
        choices=TrainingSeat.Kind.choices, allow_null=True, default=None
    )


class AcceptInputSerializer(serializers.Serializer):
    panels = PanelInputSerializer(many=True, allow_empty=False, max_length=20)  # type: ignore[call-arg]  # ListSerializer takes it; the stubs miss it


class AcceptedSerializer(serializers.Serializer):
    interview = serializers.IntegerField()
    warnings = serializers.ListField(child=serializers.CharField())
