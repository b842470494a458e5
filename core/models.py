from django.conf import settings
from django.db import models
from django.utils import timezone

# Webhooks' models are the core app's; Django finds an app's models through this module.
from core.accounts.models import ExternalIdentity, Profile  # noqa: F401
from core.api.idempotency import IdempotentRequest  # noqa: F401
from core.outbox.models import OutgoingEmail  # noqa: F401
from core.webhooks.models import WebhookDelivery, WebhookEvent, WebhookSubscription  # noqa: F401


class AuditEvent(models.Model):
    """A sensitive action: who, when, what. Leads read the log and export it.

    It lives in core so that every app can record (a question retired, permissions
    changed, a decision recorded...) without importing another.
    """

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=60)
    target = models.CharField(max_length=200)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        # The model moved from scoring to kit to here; the table kept its name and rows.
        db_table = "scoring_auditevent"
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"


class ApiToken(models.Model):
    """An API token, stored as a SHA-256 digest of its key: the key itself is shown once.

    How a token is issued, looked up and refused is core/accounts/tokens.py's. A user may
    hold several (each sign-in issues one, so several clients of one account keep
    working); `prefix`, the key's first characters, lets a person tell them apart and
    is no secret (the rest of the key carries more than 200 random bits).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    # A MAC of the user's password hash when the token was issued (token_auth); empty for
    # a token bound to no password.
    password_mac = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"
