"""A whole journey logged at DEBUG: no secret it used appears in any line.

Sign in (once wrongly), get API tokens, open a calendar feed (and a wrong one), subscribe
a webhook, and submit a scorecard through the API, whose webhook is delivered. Queries run
with a debug cursor, as under DEBUG=True, whose SQL (API keys and webhook secrets among
its parameters) the settings keep below the level logged. Every line must be one JSON
object with the required keys, and none may hold a password, a token, a feed address or a secret.
"""

import json
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from prometheus_client import REGISTRY
from rest_framework.test import APIClient

from core.accounts.services import calendar_feed_reset
from tests.core.conftest import KEYS, Captured
from tests.core.webhooks.receiver import receiving
from tests.scoring.helpers import draft
from tests.support.loops import Seat, build_loop

PASSWORD = "Journey-Pass-5150-xyz"
RECRUITER_PASSWORD = "Recruiter-Pass-8080-abc"
WRONG_PASSWORD = "Wrong-Guess-4242-qrs"


def token_of(username: str, password: str) -> str:
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": username, "password": password}, format="json"
    )
    assert response.status_code == 200, response.content
    return str(response.json()["token"])


def test_a_full_journey_logs_no_secret(
    interviewer: User,
    recruiter: User,
    settings: Any,
    captured: Captured,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    for user, password in ((interviewer, PASSWORD), (recruiter, RECRUITER_PASSWORD)):
        user.set_password(password)
        user.save()
    built = build_loop(seats=[Seat(interviewers=[interviewer])], recruiter=recruiter)
    interview = built.interviews[0]
    delivered = REGISTRY.get_sample_value("webhook_deliveries_total", {"outcome": "succeeded"})
    connection.force_debug_cursor = True
    try:
        browser = Client()
        refused = browser.post("/login/", {"username": "ines", "password": WRONG_PASSWORD})
        signed_in = browser.post("/login/", {"username": "ines", "password": PASSWORD})
        key = token_of("ines", PASSWORD)
        # The subscriber reads every submitted card (a recruiter): a webhook carries only
        # what its owner may read (core/webhooks/readers.py).
        recruiter_key = token_of("rita", RECRUITER_PASSWORD)

        feed = calendar_feed_reset(user=interviewer)
        opened = browser.get(f"/calendar/{feed}.ics")
        guessed_feed = "NotTheFeed_" + feed[11:]
        wrong = Client().get(f"/calendar/{guessed_feed}.ics?token={feed}")

        with receiving() as receiver:
            subscribed = APIClient().post(
                "/api/v1/webhooks/",
                {"url": receiver.url, "event_types": ["scorecard.submitted"]},
                format="json",
                HTTP_AUTHORIZATION=f"Token {recruiter_key}",
            )
            secret = subscribed.json()["secret"]
            card = draft(interviewer, interview)
            with django_capture_on_commit_callbacks(execute=True):
                submitted = APIClient().post(
                    f"/api/v1/scorecards/{card.pk}/submit/", HTTP_AUTHORIZATION=f"Token {key}"
                )
        refused_by_key = APIClient().get(
            "/api/v1/interviews/999999/", HTTP_AUTHORIZATION=f"Token {key}x"
        )
    finally:
        connection.force_debug_cursor = False

    assert (refused.status_code, signed_in.status_code) == (200, 302)
    assert (opened.status_code, wrong.status_code) == (200, 404)
    assert (subscribed.status_code, submitted.status_code) == (201, 200)
    assert refused_by_key.status_code == 401
    assert len(receiver.received) == 1
    assert REGISTRY.get_sample_value("webhook_deliveries_total", {"outcome": "succeeded"}) == (
        (delivered or 0) + 1
    )
    lines = captured.lines()
    loggers = {json.loads(line)["logger"] for line in lines}
    assert {"django.request", "axes.handlers.database", "django.template"} <= loggers, loggers
    for line in lines:
        assert list(json.loads(line))[:6] == KEYS, line
    secrets = [
        PASSWORD,
        RECRUITER_PASSWORD,
        WRONG_PASSWORD,
        key,
        recruiter_key,
        feed,
        guessed_feed,
        secret,
    ]
    secrets.append(secret.removeprefix("whsec_"))
    leaks = [(s[:6], line) for line in lines for s in secrets if s in line]
    assert leaks == []
