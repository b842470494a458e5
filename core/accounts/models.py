from django.conf import settings
from django.db import models


class Notice(models.TextChoices):
    """The kinds of email the service sends a person; each can be switched off."""

    PANEL_ADDED = "panel_added", "You are put on an interview panel (with a calendar invite)"
    PANEL_CHANGED = "panel_changed", "An interview of yours moves or its panel changes"
    PANEL_REMOVED = "panel_removed", "You are taken off an interview, or it is cancelled"
    EXERCISE_INVITED = "exercise_invited", "A calibration exercise asks for your ratings"
    LOOP_DECIDED = "loop_decided", "A loop you sat on is decided"
    SCORECARD_REMINDER = "scorecard_reminder", "Your scorecard is overdue"


class Profile(models.Model):
    """A person's own settings: their time zone, which emails they get, their calendar feed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # An IANA name ("Europe/London"); empty until chosen or guessed from their browser,
    # and meanwhile settings.TIME_ZONE applies.
    time_zone = models.CharField(max_length=64, blank=True)
    # Notice values this person switched off.
    emails_off = models.JSONField(default=list, blank=True)
    # SHA-256 of the calendar feed's secret, which is shown once; empty: no feed.
    calendar_token_hash = models.CharField(max_length=64, blank=True, db_index=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"
