"""/api/v1/candidates/: recruiters manage candidates and their contact details."""

import pytest

from interviews.models import Candidate
from tests.conftest import client_for
from tests.interviews.helpers import snapshot
from tests.problems import detail, field_errors, problem
from tests.support.api import iso
from tests.support.loops import EMAIL, PHONE


def candidate_json(candidate: Candidate) -> dict:
    return {
        "id": candidate.pk,
        "name": candidate.name,
        "email": candidate.email,
        "phone": candidate.phone,
        "notes": candidate.notes,
        "created_at": iso(candidate.created_at),
    }


def test_a_recruiter_adds_a_candidate(recruiter):
    response = client_for(recruiter).post(
        "/api/v1/candidates/",
        {"name": "  Jordan Lee ", "email": " jordan@example.com", "phone": "+44 20 7946 0000 "},
        format="json",
    )
    assert response.status_code == 201
    candidate = Candidate.objects.get()
    assert (candidate.name, candidate.email, candidate.phone) == (
        "Jordan Lee",
        "jordan@example.com",
        "+44 20 7946 0000",
    )
    assert response.json() == candidate_json(candidate)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "Jordan", "email": "not-an-email"}, "email"),
        ({"email": "jordan@example.com"}, "name"),
        ({"name": ""}, "name"),
    ],
)
def test_it_rejects_a_bad_candidate_and_writes_nothing(recruiter, payload, field):
    response = client_for(recruiter).post("/api/v1/candidates/", payload, format="json")
    assert list(field_errors(response)) == [field]
    assert not Candidate.objects.exists()


def test_a_recruiter_lists_and_reads_candidates(recruiter, world):
    other = Candidate.objects.create(name="Avery")
    api = client_for(recruiter)
    listed = api.get("/api/v1/candidates/")
    assert listed.status_code == 200
    assert listed.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [candidate_json(other), candidate_json(world.candidate)],
    }
    one = api.get(f"/api/v1/candidates/{world.candidate.pk}/")
    assert one.status_code == 200
    assert one.json() == candidate_json(world.candidate)
    assert (one.json()["email"], one.json()["phone"]) == (EMAIL, PHONE)


def test_a_recruiter_edits_a_candidate(recruiter, world):
    response = client_for(recruiter).patch(
        f"/api/v1/candidates/{world.candidate.pk}/",
        {"phone": " +1 555 0100 ", "notes": "Prefers mornings."},
        format="json",
    )
    assert response.status_code == 200
    world.candidate.refresh_from_db()
    assert (world.candidate.phone, world.candidate.notes, world.candidate.email) == (
        "+1 555 0100",
        "Prefers mornings.",
        EMAIL,
    )
    assert response.json() == candidate_json(world.candidate)


def test_an_edit_with_a_bad_email_changes_nothing(recruiter, world):
    before = snapshot()
    response = client_for(recruiter).patch(
        f"/api/v1/candidates/{world.candidate.pk}/", {"email": "nope"}, format="json"
    )
    assert list(field_errors(response)) == ["email"]
    assert snapshot() == before


def test_candidates_cannot_be_deleted_or_replaced(recruiter, world):
    api = client_for(recruiter)
    before = snapshot()
    url = f"/api/v1/candidates/{world.candidate.pk}/"
    problem(api.delete(url), 405, "method_not_allowed")
    problem(api.put(url, {"name": "X"}, format="json"), 405, "method_not_allowed")
    assert snapshot() == before


def test_an_interviewer_may_not_list_candidates(interviewer, world):
    response = client_for(interviewer).get("/api/v1/candidates/")
    assert detail(response, 403, "permission_denied") == "Only recruiters see candidates."


def test_an_interviewer_gets_404_for_a_candidate(interviewer, panels, world):
    response = client_for(interviewer).get(f"/api/v1/candidates/{world.candidate.pk}/")
    problem(response, 404, "not_found")
    assert EMAIL not in response.content.decode()


def test_an_interviewer_may_not_add_a_candidate(interviewer, lead):
    before = list(Candidate.objects.values())
    for user in (interviewer, lead):
        response = client_for(user).post("/api/v1/candidates/", {"name": "X"}, format="json")
        problem(response, 403, "permission_denied")
    assert list(Candidate.objects.values()) == before
