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


class ExternalIdentity(models.Model):
    """Who the identity provider says someone is, and the account that person has here.

    Single sign-on signs in as `user` only the person whose ID token carries this
    issuer and subject (`iss` and `sub`, the claims the provider promises never to
    reassign). A first sign-in creates a new account and its identity; an existing
    account gets one only when an administrator links it (`link_identity`, or the
    admin), never through a matching username or email.
    """

    issuer = models.CharField(max_length=255)
    # OIDC Core 2: at most 255 ASCII characters, unique and never reassigned per issuer.
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="external_identities"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who linked an existing account to it; None: made by a first sign-in.
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "subject"],
                name="externalidentity_one_account",
                violation_error_message="This identity is already linked to an account.",
            ),
            # One person per provider: a second subject for the same account would let
            # two of the provider's people share it.
            models.UniqueConstraint(
                fields=["issuer", "user"],
                name="externalidentity_one_per_issuer",
                violation_error_message="This account is already linked to an identity at "
                "this issuer.",
            ),
        ]
        verbose_name_plural = "external identities"

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
