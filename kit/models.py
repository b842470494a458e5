from django.conf import settings
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models

from core.validators import validate_one_line

# How long a question's texts may be, in characters. Each is several times the longest
# in the starter bank and the seed document (prompt 366, outline 1,509, follow-up 176,
# rubric item 115), so no real question comes near, while a pasted document or a
# hostile client cannot make a kit that no one can read out or tick in an interview:
# * a prompt is read out as asked: 5,000 characters is about five minutes of speech;
# * an outline is the interviewer's notes on a good answer, up to about two pages;
# * a follow-up is one question, a rubric item one point an interviewer ticks.
# The title is a heading (its column is 120 characters wide).
TITLE_MAX_LENGTH = 120
PROMPT_MAX_LENGTH = 5_000
OUTLINE_MAX_LENGTH = 10_000
FOLLOW_UP_MAX_LENGTH = 1_000
RUBRIC_ITEM_MAX_LENGTH = 500


class Role(models.Model):
    name = models.CharField(max_length=120, unique=True, validators=[validate_one_line])
    description = models.TextField(blank=True)
    # The hiring managers who build and staff this role's loops (interviews/staffing.py).
    owners = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="owned_roles"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Level(models.Model):
    """One rung of the ladder; `rank` orders it (L3 < L4 < ...)."""

    name = models.CharField(max_length=20, unique=True, validators=[validate_one_line])
    rank = models.PositiveSmallIntegerField(unique=True)
    title = models.CharField(max_length=60, blank=True, validators=[validate_one_line])

    class Meta:
        ordering = ["rank"]

    def __str__(self) -> str:
        return self.name


class Competency(models.Model):
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=120, validators=[validate_one_line])
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = "competencies"

    def __str__(self) -> str:
        return self.slug


class Question(models.Model):
    """A question's identity. What an interviewer asks and rates against lives in its versions."""

    class Status(models.TextChoices):
        DRAFT = "draft"
        ACTIVE = "active"
        RETIRED = "retired"

    role = models.ForeignKey(Role, on_delete=models.PROTECT, related_name="questions")
    title = models.CharField(max_length=TITLE_MAX_LENGTH, validators=[validate_one_line])
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    competencies = models.ManyToManyField(Competency, blank=True, related_name="questions")
    # An open end (null) means the range is unbounded on that side.
    min_level = models.ForeignKey(
        Level, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    max_level = models.ForeignKey(
        Level, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    current = models.ForeignKey(
        "QuestionVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["role_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["role", "title"], name="question_title_unique_per_role"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def level_range(self) -> str:
        low = self.min_level.name if self.min_level else ""
        high = self.max_level.name if self.max_level else ""
        if not low and not high:
            return "any level"
        if low == high:
            return low
        return f"{low or '…'}–{high or '…'}"


class QuestionVersion(models.Model):
    """What was asked and the rubric it was rated against; frozen once `in_use`."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # Limits as validators, not TextField(max_length=...): that would only size form
    # widgets, and changing it rebuilds the table on SQLite; validators cost no DDL.
    prompt = models.TextField(validators=[MaxLengthValidator(PROMPT_MAX_LENGTH)])
    outline = models.TextField(validators=[MaxLengthValidator(OUTLINE_MAX_LENGTH)])
    minutes = models.PositiveSmallIntegerField(
        default=15, validators=[MinValueValidator(1), MaxValueValidator(240)]
    )
    scale_max = models.PositiveSmallIntegerField(
        default=4, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    # Set once the version is assigned to an interview or rated; from then on an
    # edit makes a new version so every rating keeps the rubric it was given against.
    in_use = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["question_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["question", "number"], name="version_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.question} v{self.number}"


class RubricItem(models.Model):
    class Kind(models.TextChoices):
        CORE = "core"
        STRONG = "strong"
        RED_FLAG = "red_flag", "red flag"

    version = models.ForeignKey(QuestionVersion, on_delete=models.CASCADE, related_name="rubric")
    text = models.TextField(validators=[MaxLengthValidator(RUBRIC_ITEM_MAX_LENGTH)])
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CORE)
    order = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["version_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["version", "order"], name="rubric_order_unique"),
        ]

    def __str__(self) -> str:
        return self.text


class FollowUp(models.Model):
    version = models.ForeignKey(
        QuestionVersion, on_delete=models.CASCADE, related_name="follow_ups"
    )
    text = models.TextField(validators=[MaxLengthValidator(FOLLOW_UP_MAX_LENGTH)])
    order = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["version_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["version", "order"], name="follow_up_order_unique"),
        ]

    def __str__(self) -> str:
        return self.text


class LoopTemplate(models.Model):
    """The interviews a role's level is assessed with, in order."""

    role = models.ForeignKey(Role, on_delete=models.PROTECT, related_name="loop_templates")
    level = models.ForeignKey(Level, on_delete=models.PROTECT, related_name="loop_templates")
    name = models.CharField(max_length=120, validators=[validate_one_line])

    class Meta:
        ordering = ["role_id", "level__rank"]
        constraints = [
            models.UniqueConstraint(fields=["role", "level"], name="one_template_per_role_level"),
        ]

    def __str__(self) -> str:
        return self.name


class LoopSlot(models.Model):
    template = models.ForeignKey(LoopTemplate, on_delete=models.CASCADE, related_name="slots")
    order = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=120, validators=[validate_one_line])
    competencies = models.ManyToManyField(Competency, blank=True, related_name="+")
    minutes = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(5), MaxValueValidator(240)]
    )
    question_count = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    interviewer_count = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(5)]
    )

    class Meta:
        ordering = ["template_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["template", "order"], name="slot_order_unique"),
        ]

    def __str__(self) -> str:
        return self.title
