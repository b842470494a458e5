from django.conf import settings
from django.db import models

# Webhooks' models are the core app's; Django finds an app's models through this module.
from core.accounts.models import ExternalIdentity, Profile  # noqa: F401
from core.idempotency import IdempotentRequest  # noqa: F401
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
