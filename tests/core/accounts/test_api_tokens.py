"""API tokens: obtained with a password, rotated and revoked by their owner; they expire
after API_TOKEN_TTL_DAYS and stop working when their user's password changes; the
database holds only a hash of each key."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from core.accounts.tokens import MAX_TOKENS_PER_USER, key_digest, token_issue
from core.models import ApiToken
from tests.conftest import at_once, need
from tests.problems import detail, field_errors, not_signed_in


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def held() -> list[str]:
    """The digests stored, oldest first."""
    return list(ApiToken.objects.order_by("created", "id").values_list("digest", flat=True))


def hashed(*keys: str) -> list[str]:
    return [key_digest(key) for key in keys]


def obtain(username: str, password: str = "pw") -> str:
    response = APIClient().post("/api/v1/auth/token/", {"username": username, "password": password})
    assert response.status_code == 200, response.json()
    return response.json()["token"]


INVALID_TOKEN = "Invalid token."
BAD_CREDENTIALS = "Unable to log in with provided credentials."
CHALLENGE = 'Bearer realm="api", Token realm="api"'


def bad_credentials(response: Any) -> None:
    """Assert the 401 for a username and password that match no active user."""
    assert detail(response, 401, "authentication_failed") == BAD_CREDENTIALS
    assert response["WWW-Authenticate"] == CHALLENGE


def unknown_token(response: Any) -> None:
    """Assert the 401 for a token that matches no row, with the API's challenge."""
    assert detail(response, 401, "authentication_failed") == INVALID_TOKEN
    assert response["WWW-Authenticate"] == 'Bearer realm="api", Token realm="api"'


def test_rotating_gives_a_new_token_and_the_old_one_stops_working(interviewer):
    old = obtain("ines")

    response = token_client(old).post("/api/v1/auth/token/rotate/")

    assert response.status_code == 201
    new = response.json()["token"]
    assert new != old
    assert token_client(new).get("/api/v1/levels/").status_code == 200
    unknown_token(token_client(old).get("/api/v1/levels/"))
    assert held() == hashed(new)


def test_revoking_deletes_the_token(interviewer):
    key = obtain("ines")

    response = token_client(key).delete("/api/v1/auth/token/")

    assert response.status_code == 204
    assert not ApiToken.objects.exists()
    unknown_token(token_client(key).get("/api/v1/levels/"))


def test_rotating_or_revoking_touches_only_the_token_sent(interviewer):
    # Two clients of one account: each rotates and revokes its own.
    mine, theirs = obtain("ines"), obtain("ines")

    rotated = token_client(mine).post("/api/v1/auth/token/rotate/").json()["token"]

    assert held() == hashed(theirs, rotated)
    assert token_client(theirs).get("/api/v1/levels/").status_code == 200

    assert token_client(rotated).delete("/api/v1/auth/token/").status_code == 204

    assert held() == hashed(theirs)
    unknown_token(token_client(rotated).get("/api/v1/levels/"))
    assert token_client(theirs).get("/api/v1/levels/").status_code == 200


def test_revoking_from_a_session_ends_every_token_of_the_account(client, interviewer):
    keys = [obtain("ines"), obtain("ines")]
    client.force_login(interviewer)

    response = client.delete("/api/v1/auth/token/")

    assert response.status_code == 204
    assert not ApiToken.objects.exists()
    for key in keys:
        unknown_token(token_client(key).get("/api/v1/levels/"))


def test_anonymous_callers_can_neither_rotate_nor_revoke(interviewer):
    key = obtain("ines")

    not_signed_in(APIClient().post("/api/v1/auth/token/rotate/"))
    not_signed_in(APIClient().delete("/api/v1/auth/token/"))
    assert held() == hashed(key)


def test_a_wrong_password_gets_no_token(interviewer):
    response = APIClient().post("/api/v1/auth/token/", {"username": "ines", "password": "no"})

    bad_credentials(response)
    assert not ApiToken.objects.exists()


def test_a_stale_token_does_not_stop_signing_in(interviewer):
    # Signing in takes a password; credentials sent along are not looked at.
    old = obtain("ines")
    token_client(old).delete("/api/v1/auth/token/")

    response = token_client(old).post(
        "/api/v1/auth/token/", {"username": "ines", "password": "pw"}, format="json"
    )

    assert response.status_code == 200
    new = response.json()["token"]
    assert new != old
    assert held() == hashed(new)


# --- expiry (API_TOKEN_TTL_DAYS) --------------------------------------------------------

EXPIRED = (
    "token_expired",
    "This API token has expired; POST your username and password to "
    "/api/v1/auth/token/ for a new one.",
)
REVOKED = (
    "token_revoked",
    "This API token was revoked because the password changed; POST your username "
    "and password to /api/v1/auth/token/ for a new one.",
)
NEW_PASSWORD = "a-much-longer-passphrase-42"


def issued_ago(key: str, age: timedelta) -> None:
    ApiToken.objects.filter(digest=key_digest(key)).update(created=timezone.now() - age)


def assert_refused(response: Any, refusal: tuple[str, str], reason: str) -> None:
    code, message = refusal
    assert detail(response, 401, code) == message
    assert response.headers["WWW-Authenticate"] == (
        f'Token error="invalid_token", error_description="{reason}"'
    )


def test_a_token_past_its_30_days_answers_401_with_a_challenge_and_is_deleted(interviewer):
    key = obtain("ines")
    issued_ago(key, timedelta(days=30, seconds=1))

    response = token_client(key).get("/api/v1/levels/")

    assert_refused(response, EXPIRED, "This API token has expired")
    assert not ApiToken.objects.exists()
    # Deleted, so from now on it is an unknown token like any other.
    unknown_token(token_client(key).get("/api/v1/levels/"))


def test_a_token_inside_its_30_days_still_signs_in(interviewer):
    key = obtain("ines")
    issued_ago(key, timedelta(days=29, hours=23))

    assert token_client(key).get("/api/v1/levels/").status_code == 200


def test_the_lifetime_is_the_configured_number_of_days(interviewer, settings):
    settings.API_TOKEN_TTL_DAYS = 2
    key = obtain("ines")
    issued_ago(key, timedelta(days=1, hours=23))
    assert token_client(key).get("/api/v1/levels/").status_code == 200

    issued_ago(key, timedelta(days=2))

    assert_refused(token_client(key).get("/api/v1/levels/"), EXPIRED, "This API token has expired")


def test_an_expired_token_can_neither_rotate_nor_revoke(interviewer):
    key = obtain("ines")
    issued_ago(key, timedelta(days=31))

    rotated = token_client(key).post("/api/v1/auth/token/rotate/")

    assert_refused(rotated, EXPIRED, "This API token has expired")
    assert not ApiToken.objects.exists()  # refused, and no new token made in its place


def test_signing_in_over_an_expired_token_issues_a_new_one(interviewer):
    old = obtain("ines")
    issued_ago(old, timedelta(days=31))

    new = obtain("ines")

    assert new != old
    assert held() == hashed(new)
    assert token_client(new).get("/api/v1/levels/").status_code == 200


# --- revocation on password change ------------------------------------------------------


def change_by_service(user: User) -> None:
    user.set_password(NEW_PASSWORD)
    user.save()


def change_to_unusable(user: User) -> None:
    user.set_unusable_password()
    user.save()


def change_by_bulk_update(user: User) -> None:
    # No save(), no signal: only the stored hash changes.
    User.objects.filter(pk=user.pk).update(password=make_password(NEW_PASSWORD))


def change_in_the_admins_user_form(user: User) -> None:
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    response = admin.post(
        f"/admin/auth/user/{user.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302, response.content


def change_on_the_password_change_page(user: User) -> None:
    # The site's own password change page is the admin's, for staff.
    User.objects.filter(pk=user.pk).update(is_staff=True)
    page = Client()
    page.force_login(user)
    response = page.post(
        "/admin/password_change/",
        {"old_password": "pw", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302, response.content


@pytest.mark.parametrize(
    "change",
    [
        change_by_service,
        change_to_unusable,
        change_by_bulk_update,
        change_in_the_admins_user_form,
        change_on_the_password_change_page,
    ],
    ids=["set_password", "unusable", "bulk-update", "admin-user-form", "password-change-page"],
)
def test_a_password_change_revokes_the_token_however_it_is_made(
    interviewer: User, change: Callable[[User], None]
) -> None:
    key = obtain("ines")
    assert token_client(key).get("/api/v1/levels/").status_code == 200

    change(User.objects.get(pk=interviewer.pk))
    response = token_client(key).get("/api/v1/levels/")

    assert_refused(response, REVOKED, "This API token was revoked because the password changed")
    assert not ApiToken.objects.filter(digest=key_digest(key)).exists()


def test_after_a_password_change_signing_in_with_the_new_password_gives_a_working_token(
    interviewer,
):
    old = obtain("ines")
    change_by_service(interviewer)

    refused = APIClient().post("/api/v1/auth/token/", {"username": "ines", "password": "pw"})
    bad_credentials(refused)
    new = obtain("ines", NEW_PASSWORD)

    assert new != old
    assert held() == hashed(new)
    assert token_client(new).get("/api/v1/levels/").status_code == 200


def test_saving_a_user_without_changing_the_password_keeps_the_token(interviewer):
    key = obtain("ines")
    interviewer.first_name = "Inès"
    interviewer.last_login = timezone.now()
    interviewer.save()

    assert token_client(key).get("/api/v1/levels/").status_code == 200


def test_one_users_password_change_leaves_other_users_tokens_alone(interviewer, other_interviewer):
    mine, theirs = obtain("ines"), obtain("omar")

    change_by_service(other_interviewer)

    assert token_client(mine).get("/api/v1/levels/").status_code == 200
    assert_refused(
        token_client(theirs).get("/api/v1/levels/"),
        REVOKED,
        "This API token was revoked because the password changed",
    )


def test_tokens_survive_a_secret_key_rotation_while_the_old_key_is_a_fallback(
    interviewer, settings
):
    key = obtain("ines")
    old_secret = settings.SECRET_KEY
    settings.SECRET_KEY = "a-new-secret-key-" + "x" * 40

    settings.SECRET_KEY_FALLBACKS = [old_secret]
    assert token_client(key).get("/api/v1/levels/").status_code == 200

    settings.SECRET_KEY_FALLBACKS = []
    assert_refused(
        token_client(key).get("/api/v1/levels/"),
        REVOKED,
        "This API token was revoked because the password changed",
    )


def test_a_token_bound_to_no_password_expires_but_survives_a_password_change(interviewer):
    # As DRF's own keys (40 hex digits, no MAC) are after migration core 0005.
    key = "0123456789abcdef0123456789abcdef01234567"
    ApiToken.objects.create(user=interviewer, digest=key_digest(key), prefix=key[:8])
    change_by_service(interviewer)
    assert token_client(key).get("/api/v1/levels/").status_code == 200

    issued_ago(key, timedelta(days=31))

    assert_refused(token_client(key).get("/api/v1/levels/"), EXPIRED, "This API token has expired")


# --- a fresh token per sign-in, on request ----------------------------------------------


def sign_in(body: dict[str, Any], format: str = "json") -> Any:
    return APIClient().post("/api/v1/auth/token/", body, format=format)


MULTIPART_REFUSED = (
    'Unsupported media type "multipart/form-data; boundary=BoUnDaRyStRiNg; charset=utf-8" '
    "in request."
)


def test_signing_in_again_issues_another_token_and_the_first_keeps_working(interviewer):
    # A stored key is only a hash, so it cannot be handed out again: each client that
    # signs in gets its own token, and the others keep theirs.
    first = sign_in({"username": "ines", "password": "pw"}).json()["token"]
    second = sign_in({"username": "ines", "password": "pw", "fresh": False}).json()["token"]

    assert first != second
    assert held() == hashed(first, second)
    assert token_client(first).get("/api/v1/levels/").status_code == 200
    assert token_client(second).get("/api/v1/levels/").status_code == 200


def test_a_sign_in_past_the_limit_ends_the_oldest_token(interviewer):
    keys = [obtain("ines") for _ in range(MAX_TOKENS_PER_USER + 1)]

    assert held() == hashed(*keys[1:])
    unknown_token(token_client(keys[0]).get("/api/v1/levels/"))
    assert token_client(keys[1]).get("/api/v1/levels/").status_code == 200


def test_the_database_holds_no_key_in_clear(interviewer):
    keys = [obtain("ines"), obtain("ines")]
    rotated = token_client(keys[1]).post("/api/v1/auth/token/rotate/").json()["token"]
    keys.append(rotated)

    with connection.cursor() as cursor:
        rows = []
        for table in connection.introspection.table_names(cursor):
            # Every table the schema has: wherever a key could have been written.
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            rows.extend(str(value) for row in cursor.fetchall() for value in row)
    dump = "\n".join(rows)

    assert token_client(rotated).get("/api/v1/levels/").status_code == 200
    for key in keys:
        assert key not in dump
        assert key[8:] not in dump  # not even the part after the shown prefix
    assert held() == hashed(keys[0], rotated)


@pytest.mark.parametrize("fresh", [True, "true"])
def test_asking_for_a_fresh_token_replaces_the_current_one(interviewer, fresh):
    old = obtain("ines")

    response = sign_in({"username": "ines", "password": "pw", "fresh": fresh})

    assert response.status_code == 200
    new = response.json()["token"]
    assert response.json() == {"token": new}
    assert new != old
    assert held() == hashed(new)
    assert token_client(new).get("/api/v1/levels/").status_code == 200
    unknown_token(token_client(old).get("/api/v1/levels/"))


def test_a_sign_in_sent_as_a_form_is_refused_and_keeps_the_current_token(interviewer):
    # JSON bodies only: a multipart sign-in gets 415, not a token.
    key = obtain("ines")

    response = sign_in({"username": "ines", "password": "pw", "fresh": "true"}, "multipart")

    assert detail(response, 415, "unsupported_media_type") == MULTIPART_REFUSED
    assert held() == hashed(key)


def test_a_fresh_request_with_a_wrong_password_keeps_the_current_token(interviewer):
    key = obtain("ines")

    response = sign_in({"username": "ines", "password": "no", "fresh": True})

    bad_credentials(response)
    assert held() == hashed(key)


def test_a_fresh_that_is_not_a_boolean_is_refused_and_keeps_the_current_token(interviewer):
    key = obtain("ines")

    response = sign_in({"username": "ines", "password": "pw", "fresh": "maybe"})

    assert field_errors(response) == {"fresh": ["Must be a valid boolean."]}
    assert held() == hashed(key)


def test_signing_out_of_the_site_leaves_api_tokens_working(client, interviewer):
    # Tokens belong to API clients, which revoke theirs with DELETE.
    key = obtain("ines")
    client.force_login(interviewer)

    assert client.post("/logout/").status_code == 302
    assert token_client(key).get("/api/v1/levels/").status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twelve_concurrent_sign_ins_keep_to_the_limit(interviewer):
    need("PostgreSQL", connection.vendor == "postgresql")

    keys = at_once([lambda: token_issue(user=User(pk=interviewer.pk)).key] * 12)

    # Each sign-in took its turn under the user's row lock: the newest ten are held.
    assert len(set(keys)) == 12
    assert ApiToken.objects.filter(user=interviewer).count() == MAX_TOKENS_PER_USER
    working = [k for k in keys if token_client(k).get("/api/v1/levels/").status_code == 200]
    assert len(working) == MAX_TOKENS_PER_USER


def test_the_admin_shows_whose_tokens_exist_but_never_a_key_and_adds_none(
    client: Client, interviewer: User
) -> None:
    issued = token_issue(user=interviewer)
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))

    listing = client.get("/admin/core/apitoken/")
    add = client.post("/admin/core/apitoken/add/", {"user": interviewer.pk})
    page = f"/admin/core/apitoken/{issued.token.pk}/"
    view = client.get(f"{page}change/")
    change = client.post(f"{page}change/", {"user": 1})
    delete = client.post(f"{page}delete/", {"post": "yes"})

    assert (listing.status_code, view.status_code) == (200, 200)
    for html in (listing.content.decode(), view.content.decode()):
        assert interviewer.username in html and issued.key[:8] in html
        assert issued.key not in html and issued.token.digest not in html
    assert (add.status_code, change.status_code, delete.status_code) == (403, 403, 403)
    assert held() == hashed(issued.key)
    # DRF's own token admin is gone: its table stays empty.
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404
