"""Migration core 0007 hashes the API tokens DRF kept in clear: each key keeps working,
the clear keys are gone, and a key its password had already revoked is dropped."""

import base64

import pytest
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import connection
from django.utils.crypto import salted_hmac
from rest_framework.test import APIClient

from core.accounts.tokens import key_digest
from core.models import ApiToken
from tests.conftest import migrate
from tests.problems import detail

BEFORE = [("core", "0006_webhook_owner_rights"), ("authtoken", "0004_alter_tokenproxy_options")]


def old_bound_key(user: object, nonce: str) -> str:
    """A key as core/accounts/tokens.py issued it before keys were hashed."""
    value = f"{user.pk}\n{user.password}\n{nonce}"  # type: ignore[attr-defined]  # a historical User
    mac = salted_hmac(
        "config.tokens.password-bound-key", value, secret=settings.SECRET_KEY, algorithm="sha256"
    ).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(mac).decode()[:15]}"


def status_with(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return int(client.get("/api/v1/levels/").status_code)


@pytest.mark.django_db(transaction=True)
def test_existing_tokens_keep_working_and_no_key_stays_in_clear() -> None:
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state(BEFORE).apps
        users = old.get_model("auth", "User").objects
        ines = users.create(username="ines", password=make_password("pw"))
        omar = users.create(username="omar", password=make_password("pw"))
        rita = users.create(username="rita", password=make_password("pw"))
        tokens = old.get_model("authtoken", "Token").objects
        bound = old_bound_key(ines, "n" * 24)
        plain = "0123456789abcdef0123456789abcdef01234567"  # DRF's default: no MAC
        stale = old_bound_key(rita, "s" * 24)
        tokens.create(key=bound, user=ines)
        tokens.create(key=plain, user=omar)
        tokens.create(key=stale, user=rita)
        # Rita's password changed after her key was issued: it was refused already.
        users.filter(pk=rita.pk).update(password=make_password("new"))
    finally:
        migrate()

    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM authtoken_token")
        assert cursor.fetchone() == (0,)
    assert sorted(ApiToken.objects.values_list("user__username", "digest", "prefix")) == [
        ("ines", key_digest(bound), bound[:8]),
        ("omar", key_digest(plain), plain[:8]),
    ]
    assert status_with(bound) == 200
    assert status_with(plain) == 200
    refused = APIClient(HTTP_AUTHORIZATION=f"Token {stale}").get("/api/v1/levels/")
    assert detail(refused, 401, "authentication_failed") == "Invalid token."

    # Still bound to the password it was issued under; the plain key to none.
    for user in User.objects.filter(username__in=["ines", "omar"]):
        user.set_password("changed")
        user.save()
    assert status_with(bound) == 401
    assert status_with(plain) == 200
