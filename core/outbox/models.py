from django.conf import settings
from django.db import models


class OutgoingEmail(models.Model):
    """An email written in the transaction that caused it and sent after it commits.

    Rendered when queued (in the recipient's time zone, from data that may be gone by
    the time it is sent: a seat taken away, an interview removed); its text is blanked
    once sent, so the outbox keeps no names past delivery.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32)
    # The loop the email is about, if any: a candidate's erasure deletes unsent ones.
    loop_id = models.IntegerField(null=True, blank=True, db_index=True)
    subject = models.CharField(max_length=300)
    text = models.TextField()
    html = models.TextField()
    # An RFC 5545 invite (METHOD REQUEST or CANCEL) attached as text/calendar, if any.
    ics = models.TextField(blank=True)
    ics_method = models.CharField(max_length=10, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Claimed with a conditional update, so two workers never send one email twice.
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user}"
