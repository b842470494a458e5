"""An invite goes out from a real Celery worker to a real SMTP relay (PostgreSQL shared).

The worker gets its relay from the environment alone, as production does: EMAIL_URL
with STARTTLS and a login, and SSL_CERT_FILE trusting the relay's test certificate.
"""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from core.outbox.models import OutgoingEmail
from core.permissions import INTERVIEWER, RECRUITER
from interviews import services
from tests.conftest import make_user
from tests.integration.conftest import wait_for
from tests.smtp_relay import PASSWORD, USER, Relay, assert_imip_request, smtp_relay
from tests.support.loops import make_world

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

START = (timezone.now() + timedelta(days=7)).replace(minute=0, second=0, microsecond=0)


@pytest.fixture
def relay(monkeypatch, tmp_path) -> Iterator[Relay]:  # type: ignore[no-untyped-def]
    # Set before the worker starts (it copies this environment).
    with smtp_relay(tmp_path) as running:
        monkeypatch.setenv("EMAIL_URL", f"smtp+starttls://{USER}:@127.0.0.1:{running.port}")
        secret = tmp_path / "smtp-password"
        secret.write_text(PASSWORD)
        monkeypatch.setenv("EMAIL_HOST_PASSWORD_FILE", str(secret))
        monkeypatch.setenv("SSL_CERT_FILE", str(running.ca_file))
        yield running


def test_a_worker_delivers_an_invite_through_a_relay_that_needs_a_login_over_starttls(  # type: ignore[no-untyped-def]
    relay, worker
):
    world = make_world()
    recruiter = make_user("rita", RECRUITER)
    panelist: User = make_user("ines", INTERVIEWER)
    loop = services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, by=recruiter
    )
    services.interview_update(
        interview=loop.interviews.order_by("order")[0],
        interviewers=[panelist],
        scheduled_start=START,
        scheduled_end=START + timedelta(minutes=45),
    )
    wait_for(lambda: relay.received, timeout=60, what="the invite to reach the relay")
    (received,) = relay.received
    assert (received.login, received.tls, received.recipients) == (USER, True, [panelist.email])
    assert_imip_request(received.message, start=START)
    wait_for(
        lambda: OutgoingEmail.objects.filter(sent_at__isnull=False, text="").exists(),
        timeout=10,
        what="the outbox to mark it sent",
    )
