"""Repeated failed sign-ins lock the account for that address (django-axes), on the
sign-in page and the API's token endpoint alike. The address is the one
TRUSTED_PROXY_COUNT says to trust (core/http/client_address.py): whatever a caller writes
into X-Forwarded-For beyond that does not reset the count."""

from typing import Any

from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.tokens import key_digest
from core.models import ApiToken
from tests.problems import detail

WRONG = {"username": "ines", "password": "wrong"}
RIGHT = {"username": "ines", "password": "pw"}
LOCKED = (
    "Too many failed sign-ins for this account from your address; it is locked for "
    "60 minutes. Try again later or ask an admin to unlock it."
)


def attempts() -> list[tuple[str, str, int]]:
    rows = AccessAttempt.objects.values_list("username", "ip_address", "failures_since_start")
    return sorted(rows)


def test_five_wrong_passwords_lock_the_account_even_for_the_right_one(client, interviewer):
    for _ in range(5):
        response = client.post("/login/", {"username": "ines", "password": "wrong"})
    assert AccessAttempt.objects.get(username="ines").failures_since_start == 5

    response = client.post("/login/", {"username": "ines", "password": "pw"})

    assert response.status_code == 429
    assert "Account locked" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_right_password_before_the_limit_signs_in_and_resets_the_count(client, interviewer):
    for _ in range(3):
        client.post("/login/", {"username": "ines", "password": "wrong"})

    response = client.post("/login/", {"username": "ines", "password": "pw"})

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(interviewer.pk)
    assert not AccessAttempt.objects.filter(username="ines").exists()


def test_the_lockout_page_is_html_in_the_sites_layout_and_says_how_long(client, interviewer):
    for _ in range(5):
        client.post("/login/", WRONG)

    response = client.post("/login/", RIGHT)

    assert response.status_code == 429
    assert response["Content-Type"] == "text/html; charset=utf-8"
    # The sign-in view renders its form first; axes's middleware replaces the response.
    assert {"registration/lockout.html", "base.html"} <= {t.name for t in response.templates}
    html = response.content.decode()
    assert "<title>Account locked · " in html
    assert '<header class="topbar">' in html and '<main class="page">' in html
    assert "<h1>Account locked</h1>" in html
    assert (
        "Too many failed sign-ins for <strong>ines</strong> from your address (5 in a row)." in html
    )
    assert "The account is locked for 60 minutes from the last failed attempt." in html
    assert "ask an admin to unlock the account now" in html
    assert '<a class="button" href="/login/">Back to sign in</a>' in html
    assert 'name="password"' not in html
    assert "_auth_user_id" not in client.session


# --- the sign-in page, with spoofed X-Forwarded-For -------------------------------------


def test_without_proxies_a_varying_x_forwarded_for_does_not_escape_the_lockout(
    client: Client, interviewer: User
) -> None:
    for n in range(5):
        client.post("/login/", WRONG, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    assert attempts() == [("ines", "127.0.0.1", 5)]

    response = client.post("/login/", RIGHT, HTTP_X_FORWARDED_FOR="198.51.100.99")

    assert response.status_code == 429
    assert "Account locked" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_behind_one_proxy_the_lockout_keys_on_the_rightmost_address(
    client: Client, interviewer: User, settings: Any
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    for n in range(5):
        client.post("/login/", WRONG, HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.7")
    assert attempts() == [("ines", "203.0.113.7", 5)]

    locked = client.post("/login/", RIGHT, HTTP_X_FORWARDED_FOR="10.9.9.99, 203.0.113.7")
    elsewhere = Client()
    signed_in = elsewhere.post("/login/", RIGHT, HTTP_X_FORWARDED_FOR="203.0.113.7, 203.0.113.8")

    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session
    # The locked address named on the left is the caller's own writing: not looked at.
    assert signed_in.status_code == 302
    assert elsewhere.session["_auth_user_id"] == str(interviewer.pk)


# --- the token endpoint -----------------------------------------------------------------


def test_the_token_endpoint_counts_toward_the_same_lockout_and_says_so(interviewer: User) -> None:
    api = APIClient()
    for n in range(5):
        api.post("/api/v1/auth/token/", WRONG, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert attempts() == [("ines", "127.0.0.1", 5)]

    response = api.post(
        "/api/v1/auth/token/", RIGHT, format="json", HTTP_X_FORWARDED_FOR="10.0.0.99"
    )

    assert detail(response, 429, "locked_out") == LOCKED
    assert response.headers["Retry-After"] == "3600"
    assert not ApiToken.objects.exists()


def test_a_lockout_from_the_token_endpoint_also_holds_on_the_sign_in_page(
    client: Client, interviewer: User
) -> None:
    api = APIClient()
    for _ in range(5):
        api.post("/api/v1/auth/token/", WRONG, format="json")

    response = client.post("/login/", RIGHT)

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_behind_one_proxy_the_token_endpoint_locks_the_rightmost_address_only(
    interviewer: User, settings: Any
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    api = APIClient()
    for n in range(5):
        api.post(
            "/api/v1/auth/token/",
            WRONG,
            format="json",
            HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 203.0.113.7",
        )
    assert attempts() == [("ines", "203.0.113.7", 5)]

    locked = api.post(
        "/api/v1/auth/token/", RIGHT, format="json", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7"
    )
    elsewhere = api.post(
        "/api/v1/auth/token/", RIGHT, format="json", HTTP_X_FORWARDED_FOR="203.0.113.7, 203.0.113.8"
    )

    assert detail(locked, 429, "locked_out") == LOCKED
    assert elsewhere.status_code == 200
    assert ApiToken.objects.get(user=interviewer).digest == key_digest(elsewhere.json()["token"])
