from rest_framework import serializers

from scoring.models import CalibrationJob


class CalibrationScopeSerializer(serializers.Serializer):
    # Blank (or only whitespace and control characters, which CharField trims): no
    # role is named so, a 404; no level, all levels.
    role = serializers.CharField(
        allow_blank=True,
        help_text="the role's name (any case), e.g. AI Infrastructure Engineer, or its id",
    )
    level = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="the level's name, e.g. L5, or its id; omit (or leave empty) for all levels",
    )


class SnapshotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role_id = serializers.IntegerField()
    role = serializers.CharField(source="role.name")
    level_id = serializers.IntegerField(allow_null=True)
    level = serializers.CharField(source="level.name", allow_null=True, default=None)
    computed_at = serializers.DateTimeField()
    watermark = serializers.CharField()


class CalibrationJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role_id = serializers.IntegerField()
    role = serializers.CharField(source="role.name")
    status = serializers.ChoiceField(choices=CalibrationJob.Status.choices)
    progress = serializers.IntegerField(help_text="percent done")
    stage = serializers.CharField()
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField()
    snapshot = serializers.IntegerField(source="snapshot_id", allow_null=True)


class CalibrationRunInputSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="the role's name (any case) or its id")
