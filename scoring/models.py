from django.conf import settings
from django.db import models
from django.db.models import Q

from core.validators import validate_one_line
from interviews.models import Interview, InterviewQuestion, Loop
from kit.models import FollowUp, Level, QuestionVersion, Role, RubricItem


class Scorecard(models.Model):
    """One interviewer's record of one interview. Immutable once submitted, except by amendment."""

    class Status(models.TextChoices):
        DRAFT = "draft"
        SUBMITTED = "submitted"

    class Recommendation(models.TextChoices):
        STRONG_NO = "strong_no", "Strong no"
        NO = "no"
        YES = "yes"
        STRONG_YES = "strong_yes", "Strong yes"

    # Indexed by one_scorecard_per_interviewer's (interview, interviewer).
    interview = models.ForeignKey(
        Interview, on_delete=models.CASCADE, related_name="scorecards", db_index=False
    )
    interviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="scorecards"
    )
    # Copied from the panel seat when the scorecard is started: a shadow's card is
    # shown marked and does not count toward the decision or calibration.
    is_shadow = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    recommendation = models.CharField(max_length=10, choices=Recommendation.choices, blank=True)
    summary = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["interview_id", "is_shadow", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["interview", "interviewer"], name="one_scorecard_per_interviewer"
            ),
            models.CheckConstraint(
                condition=Q(status="draft") | Q(submitted_at__isnull=False),
                name="submitted_scorecard_has_time",
            ),
        ]
        indexes = [models.Index(fields=["status", "submitted_at"])]

    def __str__(self) -> str:
        return f"{self.interviewer} on {self.interview}"

    @property
    def is_submitted(self) -> bool:
        return self.status == self.Status.SUBMITTED


class QuestionRating(models.Model):
    """The rating of one assigned question, against the version (and rubric) it was asked at."""

    # No index of its own: one_rating_per_question's (scorecard, item) index serves
    # lookups by scorecard, and a million-row import maintains one index fewer.
    scorecard = models.ForeignKey(
        Scorecard, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    item = models.ForeignKey(InterviewQuestion, on_delete=models.PROTECT, related_name="ratings")
    version = models.ForeignKey(QuestionVersion, on_delete=models.PROTECT, related_name="ratings")
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    not_asked = models.BooleanField(default=False)
    not_asked_reason = models.CharField(max_length=300, blank=True)
    # Rubric items observed: covered core/strong points and red flags seen.
    checked = models.ManyToManyField(RubricItem, blank=True, related_name="+")
    follow_ups_asked = models.ManyToManyField(FollowUp, blank=True, related_name="+")
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["scorecard_id", "item__order"]
        constraints = [
            models.UniqueConstraint(fields=["scorecard", "item"], name="one_rating_per_question"),
            models.CheckConstraint(
                condition=Q(not_asked=False) | Q(rating__isnull=True),
                name="not_asked_has_no_rating",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item}: {self.rating}"


class Amendment(models.Model):
    """A change to a submitted scorecard: who, when, why, and the card before and after."""

    scorecard = models.ForeignKey(Scorecard, on_delete=models.CASCADE, related_name="amendments")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField()
    before = models.JSONField()
    after = models.JSONField()
    # Made after its author first read the panel's other cards (FeedbackRead): the
    # change may echo what they read, and the debrief says so.
    after_reading = models.BooleanField(default=False)

    class Meta:
        ordering = ["scorecard_id", "at", "id"]

    def __str__(self) -> str:
        return f"Amendment of {self.scorecard} by {self.by}"


class FeedbackRead(models.Model):
    """When a panelist first read the other scorecards of a loop (its debrief, or the
    cards through the API), so that an amendment made later is marked as such."""

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["loop", "user"], name="one_first_read")]

    def __str__(self) -> str:
        return f"{self.user} read loop {self.loop_id} at {self.at:%Y-%m-%d %H:%M}"


class CalibrationJob(models.Model):
    """A requested recalculation for a role. At most one waits per role at a time,
    so a burst of submissions collapses into one run."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    role = models.ForeignKey(Role, on_delete=models.CASCADE, related_name="calibration_jobs")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    requested_at = models.DateTimeField(auto_now_add=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    progress = models.PositiveSmallIntegerField(default=0)
    stage = models.CharField(max_length=80, blank=True)
    error = models.TextField(blank=True)
    snapshot = models.ForeignKey(
        "CalibrationSnapshot", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["role"], condition=Q(status="queued"), name="one_queued_job_per_role"
            ),
        ]

    def __str__(self) -> str:
        return f"Calibration of {self.role} ({self.status})"


class CalibrationSnapshot(models.Model):
    """The calibration result for a scope, keyed by the inputs it was computed from."""

    role = models.ForeignKey(Role, on_delete=models.CASCADE, related_name="snapshots")
    level = models.ForeignKey(
        Level, on_delete=models.CASCADE, null=True, blank=True, related_name="snapshots"
    )
    # Identifies the inputs (count and latest change of the ratings in scope):
    # the same inputs give the same watermark, so a rerun adds no duplicate.
    watermark = models.CharField(max_length=200)
    computed_at = models.DateTimeField(auto_now_add=True)
    result = models.JSONField()

    class Meta:
        ordering = ["-computed_at", "-id"]
        # The newest snapshot of a scope, which the dashboard and the debrief read.
        indexes = [
            models.Index(fields=["role", "level", "-computed_at", "-id"], name="snapshot_newest")
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["role", "level", "watermark"],
                condition=Q(level__isnull=False),
                name="one_snapshot_per_level_inputs",
            ),
            models.UniqueConstraint(
                fields=["role", "watermark"],
                condition=Q(level__isnull=True),
                name="one_snapshot_per_role_inputs",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.level or 'all levels'} @ {self.computed_at:%Y-%m-%d %H:%M}"


class CalibrationExercise(models.Model):
    """A lead's exercise: everyone invited scores the same reference answers, blind.

    Because every participant rates every answer, the ratings form a complete
    grid, where the Shrout and Fleiss ICCs apply and each interviewer can be
    compared with the panel median and with the lead's key.
    """

    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    title = models.CharField(max_length=200, validators=[validate_one_line])
    version = models.ForeignKey(QuestionVersion, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=6, choices=Status.choices, default=Status.OPEN)
    participants = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="calibration_exercises"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title


class ReferenceAnswer(models.Model):
    """A transcript of an answer, with the lead's key: the rating and rubric items it earns."""

    exercise = models.ForeignKey(
        CalibrationExercise, on_delete=models.CASCADE, related_name="answers"
    )
    order = models.PositiveSmallIntegerField()
    transcript = models.TextField()
    key_rating = models.PositiveSmallIntegerField()
    key_checked = models.ManyToManyField(RubricItem, blank=True, related_name="+")

    class Meta:
        ordering = ["exercise_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["exercise", "order"], name="answer_order_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.exercise} answer {self.order}"


class ExerciseRating(models.Model):
    answer = models.ForeignKey(ReferenceAnswer, on_delete=models.CASCADE, related_name="ratings")
    interviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    rating = models.PositiveSmallIntegerField()
    checked = models.ManyToManyField(RubricItem, blank=True, related_name="+")
    rated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["answer_id", "interviewer_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["answer", "interviewer"], name="one_exercise_rating_per_answer"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.interviewer} on {self.answer}: {self.rating}"
