"""Queue and send the service's emails (subject, text and HTML bodies, an optional invite).

Every email is queued inside the transaction that causes it and handed to Celery
after that commits: a change that rolls back sends nothing, and a worker that is down
leaves the email queued for the sweep.
"""

from collections.abc import Mapping
from datetime import timedelta
from email.mime.base import MIMEBase
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from core.accounts import services as accounts
from core.accounts.models import Notice, Profile
from core.accounts.zones import zone_of
from core.metrics import email_recorded
from core.outbox.models import OutgoingEmail


class _Message(EmailMultiAlternatives):
    """An email whose parts may carry MIME parameters: `text/calendar; method=REQUEST`."""

    def _create_mime_attachment(self, content: Any, mimetype: str) -> MIMEBase:
        mimetype, *params = (part.strip() for part in mimetype.split(";"))
        # Django builds the part; it has no stub for this hook.
        part: MIMEBase = super()._create_mime_attachment(content, mimetype)  # type: ignore[misc]
        for param in params:
            name, _, value = param.partition("=")
            if name.lower() != "charset":  # text parts carry the message's own charset
                part.set_param(name, value)
        return part


def email_message(email: OutgoingEmail) -> EmailMultiAlternatives:
    """Return queued `email` as a message to send.

    An invite is an iMIP message (RFC 6047), as Outlook and Gmail expect one: in
    multipart/alternative beside the text and HTML bodies, the calendar itself
    (`text/calendar; method=REQUEST`, which makes the client show Accept/Decline and
    update its entry), and the same calendar as an `invite.ics` attachment
    (`application/ics`, so no client takes it for a second invite) for those that
    only offer to open files.
    """
    message = _Message(subject=email.subject, body=email.text, to=[email.user.email])
    message.attach_alternative(email.html, "text/html")
    if email.ics:
        message.attach_alternative(
            email.ics, f"text/calendar; method={email.ics_method}; charset=utf-8"
        )
        message.attach("invite.ics", email.ics.encode(), "application/ics")
    return message


def email_queue(
    *,
    user: User,
    kind: Notice,
    template: str,
    context: Mapping[str, Any],
    ics: str = "",
    ics_method: str = "",
    loop_id: int | None = None,
    profile: Profile | None = None,
) -> OutgoingEmail | None:
    """Render `template` (emails/<template>_subject.txt, _body.txt, _body.html) for `user`
    in their time zone and queue it; None if they switched this kind off or have no
    address. A caller queueing a batch passes each `profile` (accounts.profiles_of, read
    once) so the batch costs no query per recipient for their settings."""
    if profile is None:
        profile = accounts.profiles_of([user])[user.pk]
    if not accounts.wants(user=user, kind=kind, profile=profile):
        return None
    zone = zone_of(user, profile)
    with timezone.override(zone):
        context = {**context, "user": user, "zone": zone, "site_url": settings.SITE_URL}
        subject = render_to_string(f"emails/{template}_subject.txt", context)
        email = OutgoingEmail.objects.create(
            user=user,
            kind=kind.value,
            loop_id=loop_id,
            subject=" ".join(subject.split())[:300],
            text=render_to_string(f"emails/{template}_body.txt", context),
            html=render_to_string(f"emails/{template}_body.html", context),
            ics=ics,
            ics_method=ics_method,
        )
    from core.outbox.tasks import email_send_task

    # Robust: the change that queued it has committed; a send that fails here (eagerly,
    # without a broker) is logged and left unsent for the sweep, not raised into it.
    transaction.on_commit(lambda: email_send_task.delay(email.pk), robust=True)
    return email


def email_send(*, email_id: int) -> bool:
    """Send queued email `email_id` once; False if it was already sent (or is gone)."""
    claimed = OutgoingEmail.objects.filter(pk=email_id, sent_at=None).update(sent_at=timezone.now())
    if not claimed:
        return False
    email = OutgoingEmail.objects.select_related("user").get(pk=email_id)
    try:
        email_message(email).send()
    except Exception:
        # Not sent: release the claim so the retry (or the sweep) sends it.
        OutgoingEmail.objects.filter(pk=email_id).update(sent_at=None)
        email_recorded("failed")
        raise
    email_recorded("sent")
    OutgoingEmail.objects.filter(pk=email_id).update(subject="", text="", html="", ics="")
    return True


def emails_sweep(*, older_than_seconds: int = 300) -> int:
    """Hand Celery every email still unsent after a while (its worker was down); return how many."""
    from core.outbox.tasks import email_send_task

    before = timezone.now() - timedelta(seconds=older_than_seconds)
    ids = list(
        OutgoingEmail.objects.filter(sent_at=None, created_at__lt=before).values_list(
            "pk", flat=True
        )
    )
    for pk in ids:
        email_send_task.delay(pk)
    return len(ids)


def emails_about_loops_delete(*, loop_ids: list[int]) -> int:
    """Delete the unsent emails about these loops (a candidate's erasure); return how many."""
    deleted, _ = OutgoingEmail.objects.filter(loop_id__in=loop_ids).delete()
    return deleted
