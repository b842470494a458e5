"""Pools of interviewers, their limits, training paths and their progress.

interviews.models imports this module, so the app label is `interviews` and the
one migration history stays the app's.
"""

from datetime import time

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from core.validators import validate_one_line
from kit.models import Competency, Level, LoopSlot, Role


class Pool(models.Model):
    """The people who may interview for one loop template slot, one competency, or a
    role's levels (a range). An interview draws on the most specific pool that fits:
    its slot's, else one of its competencies', else its role and level's."""

    name = models.CharField(max_length=120, validators=[validate_one_line])
    slot = models.ForeignKey(
        LoopSlot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    competency = models.ForeignKey(
        Competency, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # Whose hiring managers keep the pool; set from the slot's template for a slot pool.
    role = models.ForeignKey(
        Role, on_delete=models.PROTECT, null=True, blank=True, related_name="pools"
    )
    level_min = models.ForeignKey(
        Level, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    level_max = models.ForeignKey(
        Level, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class PoolMembership(models.Model):
    """Someone in a pool, qualified or training. Removing them sets removed_at and
    touches nothing else: their past seats, cards and ratings stay as they were."""

    class Status(models.TextChoices):
        QUALIFIED = "qualified"
        TRAINING = "training"

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="pool_memberships"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUALIFIED)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    added_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pool_id", "status", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["pool", "user"],
                condition=Q(removed_at__isnull=True),
                name="one_current_membership_per_pool",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.pool} ({self.status})"


class InterviewerLimits(models.Model):
    """How much one person interviews, and when, in their own time zone (their profile's)."""

    DEFAULT_PER_DAY = 2
    DEFAULT_PER_WEEK = 4
    DEFAULT_START = time(9, 0)
    DEFAULT_END = time(17, 0)

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="interviewer_limits"
    )
    per_day = models.PositiveSmallIntegerField(
        default=DEFAULT_PER_DAY, validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    per_week = models.PositiveSmallIntegerField(
        default=DEFAULT_PER_WEEK, validators=[MinValueValidator(1), MaxValueValidator(60)]
    )
    day_start = models.TimeField(default=DEFAULT_START)
    day_end = models.TimeField(default=DEFAULT_END)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "interviewer limits"
        constraints = [
            models.CheckConstraint(
                condition=Q(day_end__gt=models.F("day_start")), name="working_day_ends_after_start"
            ),
            models.CheckConstraint(
                condition=Q(per_week__gte=models.F("per_day")), name="week_limit_covers_day_limit"
            ),
        ]

    def __str__(self) -> str:
        return f"limits of {self.user}"


class TrainingPath(models.Model):
    """What a trainee of a pool does before they graduate into it, in order: shadows
    (they sit in), then reverse shadows (they lead, a qualified interviewer signs off),
    then, if asked, a closed calibration exercise within `calibration_max_gap` of the
    key and no severity flag in the current period once they have `flag_min_ratings`."""

    pool = models.OneToOneField(Pool, on_delete=models.CASCADE, related_name="path")
    shadows = models.PositiveSmallIntegerField(default=2, validators=[MaxValueValidator(10)])
    reverse_shadows = models.PositiveSmallIntegerField(
        default=1, validators=[MaxValueValidator(10)]
    )
    # Mean absolute distance from the reference ratings; null: no exercise asked.
    calibration_max_gap = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(10)],
    )
    no_severity_flag = models.BooleanField(default=False)
    flag_min_ratings = models.PositiveSmallIntegerField(default=20)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"path of {self.pool}"

    @property
    def seats(self) -> int:
        return self.shadows + self.reverse_shadows


class TrainingSeat(models.Model):
    """A trainee's seat on an interview as part of their path, and the trainer's sign-off.

    The trainee sits as a shadow (Panelist.is_shadow, never counted) in both kinds; in a
    reverse shadow they lead and the counted interviewer beside them signs off. A seat
    signed "not yet" stays on record and the step is taken again (a retake)."""

    class Kind(models.TextChoices):
        SHADOW = "shadow"
        REVERSE_SHADOW = "reverse_shadow", "reverse shadow"

    class Outcome(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        NOT_YET = "not_yet", "not yet"

    membership = models.ForeignKey(
        PoolMembership, on_delete=models.CASCADE, related_name="training_seats"
    )
    # The interview, not the Panelist row: a panel edit recreates seats.
    interview = models.ForeignKey(
        "interviews.Interview", on_delete=models.CASCADE, related_name="training_seats"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, default=Outcome.PENDING)
    note = models.TextField(blank=True)
    signed_off_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    signed_off_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["membership_id", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["membership", "interview"], name="one_training_seat_per_interview"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.membership} on {self.interview_id}"


class Graduation(models.Model):
    """A trainee's graduation into the pool, and the evidence it rests on (seat ids,
    the exercise and its gap, the severity period), as it was when they graduated."""

    membership = models.OneToOneField(
        PoolMembership, on_delete=models.CASCADE, related_name="graduation"
    )
    graduated_at = models.DateTimeField()
    # Who signed the last seat off (or graduated them by hand).
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    evidence = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"graduation of {self.membership}"
