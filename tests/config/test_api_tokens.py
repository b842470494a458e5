"""API tokens: obtained with a password, rotated and revoked by their owner."""

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def obtain(username: str, password: str = "pw") -> str:
    response = APIClient().post("/api/v1/auth/token/", {"username": username, "password": password})
    assert response.status_code == 200, response.json()
    return response.json()["token"]


def test_rotating_gives_a_new_token_and_the_old_one_stops_working(interviewer):
    old = obtain("ines")

    response = token_client(old).post("/api/v1/auth/token/rotate/")

    assert response.status_code == 201
    new = response.json()["token"]
    assert new != old
    assert token_client(new).get("/api/v1/levels/").status_code == 200
    assert token_client(old).get("/api/v1/levels/").status_code == 403
    assert list(Token.objects.values_list("key", flat=True)) == [new]


def test_revoking_deletes_the_token(interviewer):
    key = obtain("ines")

    response = token_client(key).delete("/api/v1/auth/token/")

    assert response.status_code == 204
    assert not Token.objects.exists()
    assert token_client(key).get("/api/v1/levels/").json() == {"detail": "Invalid token."}


def test_anonymous_callers_can_neither_rotate_nor_revoke(interviewer):
    key = obtain("ines")

    assert APIClient().post("/api/v1/auth/token/rotate/").status_code == 403
    assert APIClient().delete("/api/v1/auth/token/").status_code == 403
    assert list(Token.objects.values_list("key", flat=True)) == [key]


def test_a_wrong_password_gets_no_token(interviewer):
    response = APIClient().post("/api/v1/auth/token/", {"username": "ines", "password": "no"})

    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["Unable to log in with provided credentials."]}
    assert not Token.objects.exists()


def test_a_stale_token_does_not_stop_signing_in(interviewer):
    # Signing in takes a password; credentials sent along are not looked at.
    old = obtain("ines")
    token_client(old).delete("/api/v1/auth/token/")

    response = token_client(old).post(
        "/api/v1/auth/token/", {"username": "ines", "password": "pw"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get().key != old
