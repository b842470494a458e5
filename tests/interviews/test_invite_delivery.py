"""An invite reaches a real SMTP relay: signed in, over TLS, as an iMIP message (RFC 6047).

The relay (tests/smtp_relay.py, aiosmtpd on loopback) refuses a login before TLS and
any mail before a login. The email goes the way every email goes: queued in the
scheduling transaction, handed to Celery on commit (eager here), sent by the outbox
with Django's SMTP backend configured from the EMAIL_* settings.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.outbox.models import OutgoingEmail
from interviews import services
from interviews.models import Interview
from tests.smtp_relay import PASSWORD, USER, Relay, assert_imip_request, smtp_relay

# aiosmtpd counts only STARTTLS as TLS, so the implicit-TLS relay warns about a login
# it thinks is in the clear; every byte of that connection is encrypted.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

START = (timezone.now() + timedelta(days=7)).replace(minute=0, second=0, microsecond=0)


def schedule(interview: Interview, person, capture) -> None:  # type: ignore[no-untyped-def]
    with capture(execute=True):
        services.interview_update(
            interview=interview,
            interviewers=[person],
            scheduled_start=START,
            scheduled_end=START + timedelta(minutes=45),
        )


def use_relay(settings, monkeypatch, relay: Relay, *, implicit_tls: bool) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SSL_CERT_FILE", str(relay.ca_file))
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = relay.port
    settings.EMAIL_HOST_USER = USER
    settings.EMAIL_HOST_PASSWORD = PASSWORD
    settings.EMAIL_USE_TLS = not implicit_tls
    settings.EMAIL_USE_SSL = implicit_tls
    settings.EMAIL_TIMEOUT = 5


@pytest.mark.parametrize("implicit_tls", [False, True], ids=["starttls", "implicit-tls"])
def test_it_delivers_an_invite_to_a_relay_that_needs_a_login_over_tls(  # type: ignore[no-untyped-def]
    implicit_tls,
    interviews,
    interviewer,
    settings,
    monkeypatch,
    tmp_path,
    django_capture_on_commit_callbacks,
):
    with smtp_relay(tmp_path, implicit_tls=implicit_tls) as relay:
        use_relay(settings, monkeypatch, relay, implicit_tls=implicit_tls)
        schedule(interviews[0], interviewer, django_capture_on_commit_callbacks)
    (received,) = relay.received
    assert received.login == USER
    assert received.tls is True
    assert received.recipients == [interviewer.email]
    assert received.sender == settings.DEFAULT_FROM_EMAIL
    assert_imip_request(received.message, start=START)
    # Sent once, and the outbox keeps no text of it.
    (queued,) = OutgoingEmail.objects.all()
    assert queued.sent_at is not None and queued.text == queued.ics == ""
