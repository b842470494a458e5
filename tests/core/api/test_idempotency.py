"""Idempotency-Key on creating POSTs and Location on what they create (core/api/idempotency.py)."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from core.api.idempotency import IdempotentRequest
from interviews import api as interviews_api
from interviews.models import Candidate
from kit.models import Competency, Role
from tests.conftest import make_user
from tests.problems import NOT_ALLOWED, NOT_FOUND, NOT_SIGNED_IN, detail, field_errors

CANDIDATES = "/api/v1/candidates/"


def signed_in(user: User) -> APIClient:
    """A client with real credentials: the key is remembered per caller."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user).key}")
    return client


@pytest.mark.django_db
def test_a_retry_with_the_same_key_answers_the_first_answer_and_creates_nothing(
    recruiter: User,
) -> None:
    client = signed_in(recruiter)
    body = {"name": "Grace Hopper", "email": "grace@example.com"}

    first = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace-1")
    again = client.post(CANDIDATES, body, HTTP_IDEMPOTENCY_KEY="create-grace-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Location"] == first["Location"] == f"{CANDIDATES}{first.json()['id']}/"
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert Candidate.objects.count() == 1
    assert client.get(first["Location"]).json()["name"] == "Grace Hopper"


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_422_and_writes_nothing(recruiter: User) -> None:
    client = signed_in(recruiter)
    client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="k-1")

    response = client.post(CANDIDATES, {"name": "Alan Turing"}, HTTP_IDEMPOTENCY_KEY="k-1")

    assert detail(response, 422, "idempotency_key_reused") == (
        "This Idempotency-Key was used for another request; use a new key."
    )
    assert list(Candidate.objects.values_list("name", flat=True)) == ["Grace Hopper"]


@pytest.mark.django_db
def test_the_same_key_on_another_path_is_422(recruiter: User, lead: User) -> None:
    client = signed_in(lead)
    client.post("/api/v1/roles/", {"name": "Data Engineer"}, HTTP_IDEMPOTENCY_KEY="shared")

    response = client.post(
        "/api/v1/competencies/", {"slug": "sql", "name": "SQL"}, HTTP_IDEMPOTENCY_KEY="shared"
    )

    assert detail(response, 422, "idempotency_key_reused")
    assert not Competency.objects.filter(slug="sql").exists()


@pytest.mark.django_db
def test_keys_belong_to_their_caller(recruiter: User) -> None:
    colleague = signed_in(recruiter)
    second = make_user("ravi")
    second.groups.set(recruiter.groups.all())

    colleague.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="same")
    response = signed_in(second).post(
        CANDIDATES, {"name": "Alan Turing"}, HTTP_IDEMPOTENCY_KEY="same"
    )

    assert response.status_code == 201
    assert sorted(Candidate.objects.values_list("name", flat=True)) == [
        "Alan Turing",
        "Grace Hopper",
    ]


@pytest.mark.django_db
def test_a_refusal_is_kept_too_so_a_retry_gets_the_same_refusal(recruiter: User) -> None:
    client = signed_in(recruiter)

    first = client.post(CANDIDATES, {"name": "x" * 500}, HTTP_IDEMPOTENCY_KEY="bad-1")
    again = client.post(CANDIDATES, {"name": "x" * 500}, HTTP_IDEMPOTENCY_KEY="bad-1")

    assert field_errors(first) == field_errors(again)
    assert again["Idempotent-Replayed"] == "true"
    assert Candidate.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "credentials",
    [
        {"HTTP_AUTHORIZATION": "Bearer not-a-real-token"},
        {"HTTP_AUTHORIZATION": "Token not-a-real-token"},
    ],
)
def test_a_request_that_fails_authentication_writes_nothing_to_the_store(
    credentials: dict[str, str],
) -> None:
    client = APIClient()
    client.credentials(**credentials)

    first = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="anon-1")
    again = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="anon-1")

    for response in (first, again):
        assert detail(response, 401, "authentication_failed") == "Invalid token."
        assert "WWW-Authenticate" in response and "Idempotent-Replayed" not in response
    assert IdempotentRequest.objects.count() == 0
    assert Candidate.objects.count() == 0


@pytest.mark.django_db
def test_a_request_without_credentials_writes_nothing_to_the_store() -> None:
    response = APIClient().post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="anon-0")

    assert detail(response, 401, "not_authenticated") == NOT_SIGNED_IN
    assert IdempotentRequest.objects.count() == 0
    assert Candidate.objects.count() == 0


@pytest.mark.django_db
def test_an_unknown_session_cookie_writes_nothing_to_the_store() -> None:
    client = APIClient()
    client.cookies["sessionid"] = "no-such-session"

    response = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="anon-2")

    assert detail(response, 401, "not_authenticated") == NOT_SIGNED_IN
    assert IdempotentRequest.objects.count() == 0
    assert Candidate.objects.count() == 0


@pytest.mark.django_db
def test_a_refusal_of_access_is_not_kept_so_a_retry_once_allowed_runs(
    recruiter: User, interviewer: User
) -> None:
    # 403: an interviewer may not create candidates; 404: nor see a loop to decide.
    client = signed_in(interviewer)
    created = signed_in(recruiter).post(CANDIDATES, {"name": "Ada"}, HTTP_IDEMPOTENCY_KEY="mine")
    kept = list(IdempotentRequest.objects.values_list("pk", flat=True))

    forbidden = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="k-403")
    missing = client.post(
        f"{CANDIDATES}{created.json()['id']}/erase/", {}, HTTP_IDEMPOTENCY_KEY="k-404"
    )

    assert detail(forbidden, 403, "permission_denied") == NOT_ALLOWED
    assert detail(missing, 404, "not_found") == NOT_FOUND
    assert list(IdempotentRequest.objects.values_list("pk", flat=True)) == kept
    assert Candidate.objects.count() == 1
    # Once allowed, the same key and request runs instead of replaying the refusal.
    interviewer.groups.set(recruiter.groups.all())
    allowed = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="k-403")
    assert allowed.status_code == 201 and "Idempotent-Replayed" not in allowed


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "   ", "k" * 256])
def test_a_key_that_is_empty_or_too_long_is_400(recruiter: User, key: str) -> None:
    response = signed_in(recruiter).post(
        CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY=key
    )

    assert detail(response, 400, "idempotency_key_invalid") == (
        "Idempotency-Key must be 1 to 255 characters."
    )
    assert Candidate.objects.count() == 0
    assert IdempotentRequest.objects.count() == 0


@pytest.mark.django_db
def test_without_a_key_each_post_creates(recruiter: User) -> None:
    client = signed_in(recruiter)
    client.post(CANDIDATES, {"name": "Grace Hopper"})
    client.post(CANDIDATES, {"name": "Grace Hopper"})

    assert Candidate.objects.count() == 2
    assert IdempotentRequest.objects.count() == 0


@pytest.mark.django_db
def test_a_server_error_is_not_kept_so_the_retry_runs_again(
    recruiter: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = interviews_api.CandidateViewSet.create
    calls = {"n": 0}

    def flaky(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("database hiccup")
        return real(self, request, *args, **kwargs)

    monkeypatch.setattr(interviews_api.CandidateViewSet, "create", flaky)
    client = signed_in(recruiter)
    client.raise_request_exception = False

    failed = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="retry-1")
    retried = client.post(CANDIDATES, {"name": "Grace Hopper"}, HTTP_IDEMPOTENCY_KEY="retry-1")

    assert (failed.status_code, retried.status_code) == (500, 201)
    assert "Idempotent-Replayed" not in retried
    assert Candidate.objects.count() == 1


@pytest.mark.django_db
def test_a_started_calibration_run_is_located(lead: User) -> None:
    Role.objects.create(name="Platform Engineer")

    response = signed_in(lead).post("/api/v1/calibration/runs/", {"role": "Platform Engineer"})

    assert response.status_code == 202
    assert response["Location"] == f"/api/v1/calibration/runs/{response.json()['id']}/"
