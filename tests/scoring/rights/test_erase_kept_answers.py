"""The kept answers to keyed POSTs about the candidate (core/api/idempotency.py): their export
shows them, their erasure deletes them."""

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from core.api.idempotency import IdempotentRequest
from tests.conftest import client_for

CANDIDATES = "/api/v1/candidates/"


def keyed(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user).key}")
    return client


@pytest.mark.django_db
def test_it_deletes_the_kept_create_even_after_a_rename(recruiter: User) -> None:
    client = keyed(recruiter)
    body = {"name": "Grace Hopper", "email": "grace@example.com"}
    created = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace")
    other = client.post(CANDIDATES, {"name": "Alan Turing"}, HTTP_IDEMPOTENCY_KEY="create-alan")
    pk = created.json()["id"]
    # What the kept answer says no longer matches the candidate's row: found by id.
    client_for(recruiter).patch(
        f"{CANDIDATES}{pk}/", {"name": "Grace B. Hopper", "email": "gbh@example.com"}
    )

    response = client_for(recruiter).post(f"{CANDIDATES}{pk}/erase/")

    assert response.status_code == 200
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["create-alan"]
    assert bytes(IdempotentRequest.objects.get().body) == other.content


@pytest.mark.django_db
def test_a_retry_after_the_erasure_runs_again_and_does_not_replay_them(recruiter: User) -> None:
    client = keyed(recruiter)
    body = {"name": "Grace Hopper", "email": "grace@example.com"}
    pk = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace").json()["id"]
    client_for(recruiter).post(f"{CANDIDATES}{pk}/erase/")

    again = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace")

    assert again.status_code == 201 and "Idempotent-Replayed" not in again
    assert again.json()["id"] != pk


@pytest.mark.django_db
def test_the_export_shows_every_kept_answer_about_them_and_only_theirs(
    recruiter: User,
) -> None:
    client = keyed(recruiter)
    body = {"name": "Grace Hopper", "email": "grace@example.com", "phone": "+1 555 0100"}
    created = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace")
    client.post(CANDIDATES, {"name": "Alan Turing"}, HTTP_IDEMPOTENCY_KEY="create-alan")
    pk = created.json()["id"]
    # Renamed since: the kept answer is found by the id it shows, not by the name.
    client_for(recruiter).patch(f"{CANDIDATES}{pk}/", {"name": "Grace B. Hopper"})
    kept = IdempotentRequest.objects.get(key="create-grace")

    export = client_for(recruiter).get(f"{CANDIDATES}{pk}/export/").json()

    assert export["kept_answers"] == [
        {
            "id": kept.pk,
            "key": "create-grace",
            "created_at": kept.created_at.isoformat(),
            "status": 201,
            "content_type": "application/json",
            "location": f"{CANDIDATES}{pk}/",
            "body": created.content.decode(),
        }
    ]
    shown = json.loads(export["kept_answers"][0]["body"])
    assert (shown["name"], shown["email"], shown["phone"]) == (
        "Grace Hopper", "grace@example.com", "+1 555 0100",
    )  # fmt: skip

    client_for(recruiter).post(f"{CANDIDATES}{pk}/erase/")

    assert client_for(recruiter).get(f"{CANDIDATES}{pk}/export/").json()["kept_answers"] == []
