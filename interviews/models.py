from django.conf import settings
from django.db import models

from core.validators import validate_one_line
from kit.models import Level, LoopSlot, LoopTemplate, Question, QuestionVersion, Role


class Candidate(models.Model):
    name = models.CharField(max_length=200, validators=[validate_one_line])
    # Contact details are for recruiters only; interviewers never see them.
    email = models.EmailField(blank=True)
    phone = models.CharField(max_length=40, blank=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when the candidate's personal data was erased; their ratings stay, anonymous.
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Loop(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        SCHEDULED = "scheduled"
        IN_PROGRESS = "in_progress", "in progress"
        DEBRIEF = "debrief"
        DECIDED = "decided"
        CANCELLED = "cancelled"

    class Decision(models.TextChoices):
        HIRE = "hire"
        NO_HIRE = "no_hire", "no hire"

    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="loops")
    role = models.ForeignKey(Role, on_delete=models.PROTECT, related_name="loops")
    level = models.ForeignKey(Level, on_delete=models.PROTECT, related_name="loops")
    template = models.ForeignKey(
        LoopTemplate, on_delete=models.SET_NULL, null=True, blank=True, related_name="loops"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    # Slots assembly could not fill, as readable sentences.
    warnings = models.JSONField(default=list, blank=True)
    decision = models.CharField(max_length=8, choices=Decision.choices, blank=True)
    decision_rationale = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # A cancelled loop (the candidate withdrew before a decision, a loop built by
    # mistake); who cancelled it is in the audit log.
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # A database default too, for the scorecard import's set-based INSERTs.
    cancel_reason = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.role} {self.level}"

    # A closed loop changes no more: no scorecard is started or changed in it, and its
    # interviews leave everyone's diary and clash checks.
    CLOSED = (Status.DECIDED, Status.CANCELLED)

    @property
    def is_closed(self) -> bool:
        return self.status in self.CLOSED


class Interview(models.Model):
    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="interviews")
    slot = models.ForeignKey(
        LoopSlot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    order = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=120, validators=[validate_one_line])
    minutes = models.PositiveSmallIntegerField()
    # The slot's competencies (slugs) when the loop was built: swaps keep to them
    # even if the template is edited or its slot removed later.
    competencies = models.JSONField(default=list, blank=True)
    # The slot's interviewer count, copied for the same reason (a template edit
    # recreates its slots and unlinks them from existing loops). A database default
    # too, for the scorecard import's set-based INSERTs.
    interviewers_wanted = models.PositiveSmallIntegerField(
        default=1, db_default=1, help_text="interviewers the panel needs, shadows aside"
    )
    interviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Panelist", related_name="interviews"
    )
    scheduled_start = models.DateTimeField(null=True, blank=True)
    scheduled_end = models.DateTimeField(null=True, blank=True)
    # The calendar invites' SEQUENCE (RFC 5545): raised whenever the time or the panel
    # changes or a seat is cancelled, so calendars take the newest invite.
    invite_sequence = models.PositiveIntegerField(default=0, db_default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["loop_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["loop", "order"], name="interview_order_unique"),
            models.CheckConstraint(
                condition=models.Q(scheduled_end__isnull=True)
                | models.Q(scheduled_start__isnull=True)
                | models.Q(scheduled_end__gt=models.F("scheduled_start")),
                name="interview_ends_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.loop})"

    @property
    def interviewers_missing(self) -> int:
        """How many more interviewers (shadows aside) the interview asks for; 0 when the
        panel is full. Reads the prefetched panel."""
        seated = sum(1 for seat in self.panel.all() if not seat.is_shadow)
        return max(0, self.interviewers_wanted - seated)


class Panelist(models.Model):
    # Indexed by one_seat_per_interviewer's (interview, user).
    interview = models.ForeignKey(
        Interview, on_delete=models.CASCADE, related_name="panel", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="panel_seats"
    )
    # A shadow sits in to learn; their scorecard is shown marked and does not count.
    is_shadow = models.BooleanField(default=False)
    # When the overdue-scorecard reminder last went out; claimed with a conditional
    # update so two beat or worker processes never send the same reminder twice.
    reminded_at = models.DateTimeField(null=True, blank=True)
    # Set when the loop closed (decided or cancelled) before this seat's card was in:
    # the seat leaves Upcoming and reminders; a draft stays, read-only.
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["interview_id", "is_shadow", "id"]
        constraints = [
            models.UniqueConstraint(fields=["interview", "user"], name="one_seat_per_interviewer"),
            models.UniqueConstraint(
                fields=["interview"],
                condition=models.Q(is_shadow=True),
                name="one_shadow_per_interview",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.interview}{' (shadow)' if self.is_shadow else ''}"


class InterviewQuestion(models.Model):
    """A question assigned to an interview, pinned to the version it was given at."""

    # The two FKs below need no index of their own: the unique constraints'
    # (interview, order) and (loop, question) indexes start with them.
    interview = models.ForeignKey(
        Interview, on_delete=models.CASCADE, related_name="questions", db_index=False
    )
    # Denormalised from the interview so the database itself forbids a repeat within a loop.
    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="+", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="assignments")
    version = models.ForeignKey(QuestionVersion, on_delete=models.PROTECT, related_name="+")
    order = models.PositiveSmallIntegerField()
    reason = models.CharField(max_length=300, blank=True)
    assigned_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["interview_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["loop", "question"], name="question_once_per_loop"),
            models.UniqueConstraint(fields=["interview", "order"], name="question_order_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.interview}: {self.order}. {self.question}"


# Pools and training (issue 34) live in their own module; imported here so Django
# finds them under this app.
from interviews.pools.models import (  # noqa: E402
    Graduation,
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)

__all__ = [
    "Candidate",
    "Graduation",
    "Interview",
    "InterviewQuestion",
    "InterviewerLimits",
    "Loop",
    "Panelist",
    "Pool",
    "PoolMembership",
    "TrainingPath",
    "TrainingSeat",
]
