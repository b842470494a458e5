"""Repeated failed sign-ins lock the account for that address (django-axes)."""

from axes.models import AccessAttempt


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
