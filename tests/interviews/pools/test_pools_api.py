"""/api/v1/pools/, pool-memberships/, interviewer-limits/, training-paths/, training-seats/
and POST /api/v1/loops/{id}/staff/ (and accept/)."""

import pytest
from rest_framework.test import APIClient

from core.accounts.tokens import token_issue
from core.models import AuditEvent
from core.permissions import HIRING_MANAGER
from interviews.models import Panelist
from interviews.pools import services
from interviews.pools.models import InterviewerLimits, Pool, PoolMembership, TrainingSeat
from tests.conftest import client_for, make_user
from tests.interviews.pools.conftest import interviewer_in
from tests.problems import detail, field_errors


def test_a_recruiter_makes_a_pool_once_per_idempotency_key(world, recruiter):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=recruiter).key}")
    body = {"name": "All L5", "role": world.role.name, "level_min": "L4", "level_max": "L6"}
    first = client.post("/api/v1/pools/", body, format="json", HTTP_IDEMPOTENCY_KEY="pool-1")
    again = client.post("/api/v1/pools/", body, format="json", HTTP_IDEMPOTENCY_KEY="pool-1")
    assert first.status_code == 201, first.content
    pool = Pool.objects.get()
    assert first["Location"] == f"/api/v1/pools/{pool.pk}/"
    assert first.json() == {
        "id": pool.pk, "name": "All L5", "slot": None, "slot_title": None, "competency": None,
        "role": world.role.name, "role_id": world.role.pk, "level_min": "L4",
        "level_max": "L6", "created_at": first.json()["created_at"],
    }  # fmt: skip
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"


def test_someone_who_keeps_no_pool_of_the_role_is_refused_and_nothing_is_written(
    world, interviewer
):
    manager = make_user("hana", HIRING_MANAGER)
    for user in (interviewer, manager):
        response = client_for(user).post(
            "/api/v1/pools/", {"name": "Mine", "role": world.role.name}, format="json"
        )
        assert detail(response, 403, "pool_not_kept") == (
            "Pools are kept by recruiters, calibration leads and the role's hiring managers."
        )
    assert not Pool.objects.exists() and not AuditEvent.objects.exists()


def test_bad_pool_input_is_a_400_naming_the_field(world, recruiter):
    client = client_for(recruiter)
    response = client.post("/api/v1/pools/", {"name": "Nothing"}, format="json")
    assert field_errors(response) == {
        "role": ["Name what the pool is for: a template slot, a competency or a role."]
    }
    response = client.post("/api/v1/pools/", {"name": "X", "role": "No such"}, format="json")
    assert field_errors(response) == {"role": ["Object with name=No such does not exist."]}
    assert not Pool.objects.exists()


def test_the_pool_list_is_paginated_and_a_bounded_number_of_queries(
    world, recruiter, django_assert_max_num_queries
):
    Pool.objects.bulk_create([Pool(name=f"P{n}", role=world.role) for n in range(60)])
    client = client_for(recruiter)
    # 1 the caller's groups, 2 the count, 3 the page with slot, competency, role, levels.
    with django_assert_max_num_queries(3):
        response = client.get("/api/v1/pools/?page_size=50")
    assert response.status_code == 200
    assert response.json()["count"] == 60 and len(response.json()["results"]) == 50


def test_memberships_are_added_refused_twice_and_removed_keeping_the_row(
    pool, recruiter, interviewer
):
    client = client_for(recruiter)
    body = {"pool": pool.pk, "user": "ines", "status": "training"}
    added = client.post("/api/v1/pool-memberships/", body, format="json")
    assert added.status_code == 201, added.content
    assert added.json()["status"] == "training" and added.json()["username"] == "ines"
    twice = client.post("/api/v1/pool-memberships/", body, format="json")
    assert detail(twice, 409, "already_in_pool") == "Ines is already in Serving."
    assert PoolMembership.objects.count() == 1
    removed = client.delete(f"/api/v1/pool-memberships/{added.json()['id']}/")
    assert removed.status_code == 204
    assert PoolMembership.objects.get().removed_at is not None
    listed = client.get(f"/api/v1/pool-memberships/?pool={pool.pk}&current=true").json()
    assert listed["count"] == 0
    removed_at = PoolMembership.objects.get().removed_at
    again = client.delete(f"/api/v1/pool-memberships/{added.json()['id']}/")
    assert detail(again, 409, "already_removed") == "Ines was already removed from Serving."
    assert PoolMembership.objects.get().removed_at == removed_at


def test_an_interviewer_adds_no_one_and_a_manager_not_to_a_pool_they_do_not_see(pool, interviewer):
    response = client_for(interviewer).post(
        "/api/v1/pool-memberships/", {"pool": pool.pk, "user": "ines"}, format="json"
    )
    assert detail(response, 403, "pool_not_kept")
    manager = make_user("hana", HIRING_MANAGER)
    response = client_for(manager).post(
        "/api/v1/pool-memberships/", {"pool": pool.pk, "user": "ines"}, format="json"
    )
    assert response.status_code == 404
    assert not PoolMembership.objects.exists()


def test_limits_are_set_by_their_owner_and_bad_hours_write_nothing(interviewer, other_interviewer):
    client = client_for(interviewer)
    made = client.post("/api/v1/interviewer-limits/", {"per_week": 5}, format="json")
    assert made.status_code == 201, made.content
    assert made.json() == {
        "id": made.json()["id"], "user": interviewer.pk, "username": "ines",
        "per_day": 2, "per_week": 5, "day_start": "09:00:00", "day_end": "17:00:00",
    }  # fmt: skip
    bad = client.post(
        "/api/v1/interviewer-limits/", {"day_start": "18:00", "day_end": "08:00"}, format="json"
    )
    assert field_errors(bad) == {"day_end": ["The working day must end after it starts."]}
    assert InterviewerLimits.objects.get().day_start.hour == 9
    other = client.post(
        "/api/v1/interviewer-limits/", {"user": "omar", "per_week": 1}, format="json"
    )
    assert detail(other, 403, "limits_not_yours") == (
        "You set only your own limits; recruiters, leads and hiring managers set anyone's."
    )
    assert InterviewerLimits.objects.count() == 1


def test_a_path_is_replaced_with_if_match_and_a_stale_tag_is_412(pool, recruiter):
    client = client_for(recruiter)
    url = f"/api/v1/training-paths/{pool.path.pk}/"
    etag = client.get(url)["ETag"]
    body = {"shadows": 1, "reverse_shadows": 1, "calibration_max_gap": "0.50"}
    changed = client.put(url, body, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["calibration_max_gap"] == "0.50"
    stale = client.put(url, {**body, "shadows": 3}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    empty = client.put(url, {"shadows": 0, "reverse_shadows": 0}, format="json")
    assert detail(empty, 400, "validation_error")
    pool.path.refresh_from_db()
    assert (pool.path.shadows, pool.path.reverse_shadows) == (1, 1)


@pytest.fixture
def staffed(pool, recruiter, scheduled):  # type: ignore[no-untyped-def]
    cal, dev = interviewer_in("cal"), interviewer_in("dev")
    services.membership_add(pool=pool, user=cal, by=recruiter)
    services.membership_add(pool=pool, user=dev, status="training", by=recruiter)
    return scheduled[0].loop, cal, dev


def test_staff_proposes_and_accept_seats_with_warnings_and_a_training_seat(
    staffed, recruiter, scheduled
):
    loop, cal, dev = staffed
    client = client_for(recruiter)
    proposed = client.post(f"/api/v1/loops/{loop.pk}/staff/", {}, format="json")
    assert proposed.status_code == 200, proposed.content
    serving, training = proposed.json()
    assert [(p["name"], p["kind"]) for p in serving["picks"]] == [
        ("Cal", "interviewer"), ("Dev", "shadow"),
    ]  # fmt: skip
    assert training["shortfall"] == "Training has no interviewer pool: choose its panel by hand."
    accepted = client.post(
        f"/api/v1/loops/{loop.pk}/staff/accept/",
        {"panels": [{"interview": scheduled[0].pk, "interviewers": ["cal"], "shadow": "dev",
                     "shadow_kind": "shadow"}]},
        format="json",
    )  # fmt: skip
    assert accepted.status_code == 200, accepted.content
    assert accepted.json() == [{"interview": scheduled[0].pk, "warnings": []}]
    seat = TrainingSeat.objects.get()
    assert (seat.membership.user, seat.kind, seat.outcome) == (dev, "shadow", "pending")
    # The trainer signs it off through the API.
    signed = client_for(cal).post(
        f"/api/v1/training-seats/{seat.pk}/sign-off/", {"ready": True}, format="json"
    )
    assert signed.status_code == 200 and signed.json()["outcome"] == "ready"


def test_accept_is_all_or_nothing_and_refuses_a_trainee_in_a_counted_seat(
    staffed, recruiter, scheduled
):
    loop, _, _ = staffed
    response = client_for(recruiter).post(
        f"/api/v1/loops/{loop.pk}/staff/accept/",
        {"panels": [
            {"interview": scheduled[1].pk, "interviewers": ["cal"]},
            {"interview": scheduled[0].pk, "interviewers": ["dev"]},
        ]},
        format="json",
    )  # fmt: skip
    assert detail(response, 400, "trainee_not_counted") == (
        "Dev is still training for Serving: a trainee sits only as a shadow until they graduate."
    )
    assert not Panelist.objects.exists()
    assert not AuditEvent.objects.filter(action="panel.accepted").exists()


def test_staffing_a_loop_one_may_not_staff_is_404(staffed, interviewer):
    loop, _, _ = staffed
    manager = make_user("hana", HIRING_MANAGER)
    for user in (interviewer, manager):
        client = client_for(user)
        assert client.post(f"/api/v1/loops/{loop.pk}/staff/", {}, format="json").status_code == 404
        response = client.post(
            f"/api/v1/loops/{loop.pk}/staff/accept/",
            {"panels": [{"interview": loop.interviews.first().pk, "interviewers": ["cal"]}]},
            format="json",
        )
        assert response.status_code == 404
    assert not Panelist.objects.exists()


def test_a_sign_off_by_someone_not_on_that_interview_is_403(staffed, recruiter, scheduled):
    _, cal, dev = staffed
    services.panel_accept(
        interview=scheduled[0], interviewers=[cal], shadow=dev, shadow_kind="shadow", by=recruiter
    )
    seat = TrainingSeat.objects.get()
    stranger = interviewer_in("sam")
    response = client_for(stranger).post(
        f"/api/v1/training-seats/{seat.pk}/sign-off/", {"ready": True}, format="json"
    )
    assert response.status_code == 404  # a stranger does not even see the seat
    response = client_for(dev).post(
        f"/api/v1/training-seats/{seat.pk}/sign-off/", {"ready": True}, format="json"
    )
    assert detail(response, 403, "own_sign_off") == "A trainee cannot sign off their own seat."
    seat.refresh_from_db()
    assert seat.outcome == "pending"


def test_graduating_by_hand_says_what_is_missing_and_changes_nothing(staffed, recruiter):
    _, _, dev = staffed
    membership = PoolMembership.objects.get(user=dev)
    response = client_for(recruiter).post(f"/api/v1/pool-memberships/{membership.pk}/graduate/")
    assert detail(response, 409, "path_incomplete") == (
        "Dev has not completed the path yet: 2 more shadow seat(s) signed ready; "
        "1 more reverse-shadow seat(s) signed ready."
    )
    membership.refresh_from_db()
    assert membership.status == "training" and not hasattr(membership, "graduation")


def test_an_unknown_or_huge_id_is_a_400_or_404_and_writes_nothing(staffed, recruiter, world):
    loop, _, _ = staffed
    client = client_for(recruiter)
    for slot in (999999, 2**63 - 1):
        response = client.post("/api/v1/pools/", {"name": "X", "slot": slot}, format="json")
        assert field_errors(response) == {"slot": [f"No loop template slot with id {slot}."]}
    huge = client.post("/api/v1/pools/", {"name": "X", "slot": 2**70}, format="json")
    assert "slot" in field_errors(huge)
    membership = client.post(
        "/api/v1/pool-memberships/", {"pool": 2**63 - 1, "user": "cal"}, format="json"
    )
    assert membership.status_code == 404
    other = client.post(
        f"/api/v1/loops/{loop.pk}/staff/accept/",
        {"panels": [{"interview": 2**63 - 1, "interviewers": ["cal"]}]},
        format="json",
    )
    assert other.status_code == 404
    assert Pool.objects.count() == 1 and not Panelist.objects.exists()
