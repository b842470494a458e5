"""ETag and If-Match on objects that can be PUT or PATCH (core/api/etags.py)."""

import pytest
from django.contrib.auth.models import User

from interviews.models import Candidate
from kit.models import Role
from tests.conftest import client_for
from tests.problems import detail
from tests.support.factories import make_question

STALE = (
    "This object changed since you read it (If-Match no longer matches its ETag); GET it"
    " again and reapply your change."
)


@pytest.mark.django_db
def test_a_patch_with_the_current_etag_goes_ahead_and_one_with_a_stale_etag_is_412(
    lead: User,
) -> None:
    role = Role.objects.create(name="Platform Engineer", description="first")
    client = client_for(lead)
    url = f"/api/v1/roles/{role.pk}/"
    etag = client.get(url)["ETag"]
    assert client.get(url)["ETag"] == etag  # stable while nothing changes

    changed = client.patch(url, {"description": "second"}, HTTP_IF_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert client.get(url)["ETag"] == changed["ETag"]

    stale = client.patch(url, {"description": "third"}, HTTP_IF_MATCH=etag)

    assert detail(stale, 412, "precondition_failed") == STALE
    role.refresh_from_db()
    assert role.description == "second"


@pytest.mark.django_db
def test_if_match_may_list_tags_or_be_a_star_or_be_left_out(recruiter: User) -> None:
    candidate = Candidate.objects.create(name="Grace Hopper")
    client = client_for(recruiter)
    url = f"/api/v1/candidates/{candidate.pk}/"
    etag = client.get(url)["ETag"]

    listed = client.patch(url, {"notes": "a"}, HTTP_IF_MATCH=f'"other", W/{etag}')
    star = client.patch(url, {"notes": "b"}, HTTP_IF_MATCH="*")
    none = client.patch(url, {"notes": "c"})

    assert [r.status_code for r in (listed, star, none)] == [200, 200, 200]
    candidate.refresh_from_db()
    assert candidate.notes == "c"


@pytest.mark.django_db
def test_a_question_put_is_guarded_by_the_detail_representation(lead: User) -> None:
    question = make_question(title="Sharding a model")
    client = client_for(lead)
    url = f"/api/v1/questions/{question.pk}/"
    read = client.get(url)
    assert read["ETag"]
    body = {
        "role": question.role_id,
        "title": "Sharding a model, edited",
        "prompt": read.json()["current"]["prompt"],
        "outline": read.json()["current"]["outline"],
    }

    stale = client.put(url, body, HTTP_IF_MATCH='"not-the-current-tag"')

    assert detail(stale, 412, "precondition_failed") == STALE
    question.refresh_from_db()
    assert question.title == "Sharding a model"


@pytest.mark.django_db
def test_an_interviewer_gets_404_before_any_precondition(interviewer: User) -> None:
    candidate = Candidate.objects.create(name="Grace Hopper")

    response = client_for(interviewer).patch(
        f"/api/v1/candidates/{candidate.pk}/", {"notes": "x"}, HTTP_IF_MATCH='"stale"'
    )

    assert detail(response, 404, "not_found")  # ids leak nothing
    candidate.refresh_from_db()
    assert candidate.notes == ""
