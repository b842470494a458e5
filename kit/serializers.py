from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.sql import in_range
from core.validators import validate_one_line
from kit.models import (
    FOLLOW_UP_MAX_LENGTH,
    OUTLINE_MAX_LENGTH,
    PROMPT_MAX_LENGTH,
    RUBRIC_ITEM_MAX_LENGTH,
    TITLE_MAX_LENGTH,
    Competency,
    FollowUp,
    Level,
    LoopSlot,
    LoopTemplate,
    Question,
    QuestionVersion,
    Role,
    RubricItem,
)
from kit.services import check_level_range


@extend_schema_field(
    {
        "oneOf": [{"type": "integer"}, {"type": "string"}],
        "description": "the object's id, or its name (a role's or level's name, a"
        " competency's slug, a user's username)",
    }
)
class NamedRelatedField(serializers.SlugRelatedField):
    """An object named by its id or by a unique text field (a role's name, a username).

    Integers are ids (what responses carry as `<field>_id` or `id`); text is the name,
    as bodies took before ids were accepted. A name with a NUL character is refused
    before it reaches the database: PostgreSQL cannot compare text holding one and
    fails the query (a 500 the schemathesis fuzz found on POST /questions/).
    """

    default_error_messages = {
        "null_characters": "Null characters are not allowed.",
        "no_such_id": "No object with id {value}.",
    }

    def to_internal_value(self, data: object) -> object:
        if isinstance(data, int) and not isinstance(data, bool):
            queryset = self.get_queryset()
            assert queryset is not None  # every use names one
            found = queryset.filter(pk=data).first() if in_range(data) else None
            if found is None:
                self.fail("no_such_id", value=data)
            return found
        if isinstance(data, str) and "\x00" in data:
            self.fail("null_characters")
        return super().to_internal_value(data)


class RoleSerializer(serializers.ModelSerializer):
    class Meta:
        model = Role
        fields = ["id", "name", "description"]


class LevelSerializer(serializers.ModelSerializer):
    class Meta:
        model = Level
        fields = ["id", "name", "rank", "title"]


class CompetencySerializer(serializers.ModelSerializer):
    class Meta:
        model = Competency
        fields = ["id", "slug", "name", "description"]


class RubricItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = RubricItem
        fields = ["id", "text", "kind", "order"]


class FollowUpSerializer(serializers.ModelSerializer):
    class Meta:
        model = FollowUp
        fields = ["id", "text", "order"]


class LevelRangeSerializer(serializers.Serializer):
    min = serializers.CharField(source="min_level.name", allow_null=True, default=None)
    max = serializers.CharField(source="max_level.name", allow_null=True, default=None)


class QuestionListSerializer(serializers.ModelSerializer):
    role = serializers.CharField(source="role.name")
    competencies: serializers.SlugRelatedField[Competency] = serializers.SlugRelatedField(
        slug_field="slug", many=True, read_only=True
    )
    levels = LevelRangeSerializer(source="*")
    version = serializers.IntegerField(source="current.number")
    prompt = serializers.CharField(source="current.prompt")
    minutes = serializers.IntegerField(source="current.minutes")
    scale_max = serializers.IntegerField(source="current.scale_max")
    asked_30_days = serializers.IntegerField(source="asked_30", read_only=True)
    asked_90_days = serializers.IntegerField(source="asked_90", read_only=True)

    class Meta:
        model = Question
        fields = [
            "id", "title", "role", "status", "competencies", "levels",
            "version", "prompt", "minutes", "scale_max", "asked_30_days", "asked_90_days",
        ]  # fmt: skip


class VersionSerializer(serializers.ModelSerializer):
    rubric = RubricItemSerializer(many=True)
    follow_ups = FollowUpSerializer(many=True)

    class Meta:
        model = QuestionVersion
        fields = [
            "id", "number", "prompt", "outline", "minutes", "scale_max",
            "rubric", "follow_ups", "in_use", "created_at",
        ]  # fmt: skip


class QuestionDetailSerializer(QuestionListSerializer):
    current = VersionSerializer()
    versions: serializers.SlugRelatedField[QuestionVersion] = serializers.SlugRelatedField(
        slug_field="number", many=True, read_only=True
    )

    class Meta(QuestionListSerializer.Meta):
        fields = [*QuestionListSerializer.Meta.fields, "current", "versions"]


# The limits below are the models' (kit.models, where they are explained), repeated
# here so the schema documents them and a refusal names the very item; the services
# enforce them for every other way in.


class RubricInputSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=RUBRIC_ITEM_MAX_LENGTH)
    kind = serializers.ChoiceField(choices=RubricItem.Kind.choices, default=RubricItem.Kind.CORE)


class LevelRangeInputSerializer(serializers.Serializer):
    min = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )
    max = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )


class QuestionInputSerializer(serializers.Serializer):
    role = NamedRelatedField(slug_field="name", queryset=Role.objects.all())
    title = serializers.CharField(max_length=TITLE_MAX_LENGTH, validators=[validate_one_line])
    prompt = serializers.CharField(max_length=PROMPT_MAX_LENGTH)
    outline = serializers.CharField(max_length=OUTLINE_MAX_LENGTH)
    follow_ups = serializers.ListField(
        child=serializers.CharField(max_length=FOLLOW_UP_MAX_LENGTH), default=list
    )
    rubric = RubricInputSerializer(many=True, required=False, default=list)
    competencies = NamedRelatedField(
        slug_field="slug", queryset=Competency.objects.all(), many=True, default=list
    )
    min_level = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )
    max_level = NamedRelatedField(
        slug_field="name", queryset=Level.objects.all(), allow_null=True, default=None
    )
    levels = LevelRangeInputSerializer(
        required=False,
        help_text='The level range as a question shows it ({"min": "L4", "max": null}); '
        "the same as min_level and max_level, so give one or the other.",
    )
    minutes = serializers.IntegerField(min_value=1, max_value=240, default=15)
    scale_max = serializers.IntegerField(min_value=2, max_value=10, default=4)
    status = serializers.ChoiceField(choices=Question.Status.choices, default="active")

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        # A question read from the API and sent back carries its range as `levels`:
        # taking it keeps the range, where ignoring it would reset it to any level.
        levels = data.pop("levels", None)
        if levels is not None:
            both = sorted({"min_level", "max_level"} & set(self.initial_data))
            if both:
                raise serializers.ValidationError(
                    {"levels": [f"Give the range as levels or as {' and '.join(both)}, not both."]}
                )
            # Refused here, not in the service, to name the field the client sent.
            check_level_range(levels["min"], levels["max"], field="levels")
            data["min_level"], data["max_level"] = levels["min"], levels["max"]
        return data


class LoopSlotSerializer(serializers.ModelSerializer):
    competencies: serializers.SlugRelatedField[Competency] = serializers.SlugRelatedField(
        slug_field="slug", many=True, read_only=True
    )

    class Meta:
        model = LoopSlot
        fields = [
            "id", "order", "title", "minutes", "competencies", "question_count", "interviewer_count"
        ]  # fmt: skip


class LoopTemplateSerializer(serializers.ModelSerializer):
    role = serializers.CharField(source="role.name")
    level = serializers.CharField(source="level.name")
    slots = LoopSlotSerializer(many=True)

    class Meta:
        model = LoopTemplate
        fields = ["id", "role", "level", "name", "slots"]


class LoopSlotInputSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=120, validators=[validate_one_line])
    minutes = serializers.IntegerField(min_value=5, max_value=240)
    competencies = serializers.ListField(child=serializers.SlugField(), default=list)
    question_count = serializers.IntegerField(min_value=1, max_value=10, default=2)
    interviewer_count = serializers.IntegerField(min_value=1, max_value=5, default=1)


class LoopTemplateInputSerializer(serializers.Serializer):
    role = NamedRelatedField(slug_field="name", queryset=Role.objects.all())
    level = NamedRelatedField(slug_field="name", queryset=Level.objects.all())
    name = serializers.CharField(max_length=120, validators=[validate_one_line])
    slots = LoopSlotInputSerializer(many=True, allow_empty=False)
