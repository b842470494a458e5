"""The pools' page forms: a pool, its people and limits, its path, and a sign-off.

Each refusal shows a clear message and writes nothing; outsiders get 404."""

import pytest
from django.test import Client

from core.models import AuditEvent
from core.permissions import HIRING_MANAGER
from interviews.models import Loop
from interviews.pools import services
from interviews.pools.models import (
    InterviewerLimits,
    Pool,
    PoolMembership,
    TrainingPath,
    TrainingSeat,
)
from kit.models import Level
from tests.conftest import make_user
from tests.interviews.pools.conftest import interviewer_in
from tests.interviews.test_schedule_form import as_it_is


def page_client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def test_a_lead_makes_a_pool_for_a_slot_from_the_page(world, lead, loop: Loop):
    slot = loop.interviews.get(order=1).slot
    assert slot is not None
    done = page_client(lead).post(
        "/pools/new/", {"name": "Serving panel", "slot": slot.pk}, follow=True
    )
    pool = Pool.objects.get()
    assert done.redirect_chain[-1][0] == f"/pools/{pool.pk}/"
    assert (pool.name, pool.slot, pool.role) == ("Serving panel", slot, world.role)
    assert "Pool Serving panel made." in done.content.decode()
    assert AuditEvent.objects.filter(action="pool.created").count() == 1


def test_a_pool_for_nothing_is_refused_beside_its_field_and_nothing_is_written(lead, world):
    page = page_client(lead).post("/pools/new/", {"name": "Nowhere"})
    assert page.status_code == 400
    assert "Name what the pool is for: a template slot, a competency or a role." in (
        page.content.decode()
    )
    assert not Pool.objects.exists()
    assert not AuditEvent.objects.filter(action="pool.created").exists()


def test_a_reversed_level_range_is_refused_and_nothing_is_written(lead, world):
    low, high = Level.objects.order_by("rank")[:2]
    body = {"name": "Range", "role": world.role.pk, "level_min": high.pk, "level_max": low.pk}
    page = page_client(lead).post("/pools/new/", body)
    assert page.status_code == 400
    assert f"{low} is below {high}: the range is reversed." in page.content.decode()
    assert not Pool.objects.exists()


def test_the_pool_pages_are_404_for_interviewers_and_for_managers_of_other_roles(pool, recruiter):
    member = interviewer_in("ida")
    services.membership_add(pool=pool, user=member, by=recruiter)
    manager = make_user("hana", HIRING_MANAGER)
    for user in (member, manager):
        client = page_client(user)
        for url in (f"/pools/{pool.pk}/", f"/pools/{pool.pk}/path/"):
            assert client.get(url).status_code == 404
        assert client.post(f"/pools/{pool.pk}/", {"name": "Mine"}).status_code == 404
        assert client.post(f"/pools/{pool.pk}/path/", {"shadows": 5}).status_code == 404
    assert page_client(member).get("/pools/new/").status_code == 404
    pool.refresh_from_db()
    assert pool.name == "Serving"
    assert pool.path.shadows == 2


def test_adding_members_and_a_second_add_says_already_in_without_writing(pool, recruiter):
    ida = interviewer_in("ida")
    client = page_client(recruiter)
    done = client.post(
        f"/pools/{pool.pk}/members/", {"user": ida.pk, "status": "training"}, follow=True
    )
    assert "Ida joined Serving (training)." in done.content.decode()
    again = client.post(f"/pools/{pool.pk}/members/", {"user": ida.pk, "status": "qualified"})
    assert again.status_code == 400
    assert "Ida is already in Serving." in again.content.decode()
    assert list(PoolMembership.objects.values_list("user__username", "status")) == [
        ("ida", "training")
    ]


def test_someone_who_may_not_interview_is_not_offered_nor_added(pool, recruiter):
    rita = page_client(recruiter)
    page = rita.post(f"/pools/{pool.pk}/members/", {"user": recruiter.pk, "status": "qualified"})
    assert page.status_code == 400
    assert "Select a valid choice." in page.content.decode()
    assert not PoolMembership.objects.exists()


def test_removing_a_member_keeps_their_record(pool, recruiter):
    ida = interviewer_in("ida")
    membership = services.membership_add(pool=pool, user=ida, by=recruiter)
    done = page_client(recruiter).post(
        f"/pools/{pool.pk}/members/{membership.pk}/remove/", follow=True
    )
    assert "Ida left Serving" in done.content.decode()
    membership.refresh_from_db()
    assert membership.removed_at is not None
    # A second removal finds no current membership: 404, nothing changes.
    again = page_client(recruiter).post(f"/pools/{pool.pk}/members/{membership.pk}/remove/")
    assert again.status_code == 404


def test_graduating_by_hand_says_what_is_missing_and_changes_nothing(pool, recruiter):
    ida = interviewer_in("ida")
    membership = services.membership_add(pool=pool, user=ida, status="training", by=recruiter)
    done = page_client(recruiter).post(
        f"/pools/{pool.pk}/members/{membership.pk}/graduate/", follow=True
    )
    assert "Ida has not completed the path yet: 2 more shadow seat(s) signed ready" in (
        done.content.decode()
    )
    membership.refresh_from_db()
    assert membership.status == "training"


def test_the_path_form_saves_the_steps(pool, lead):
    body = {"shadows": 3, "reverse_shadows": 2, "calibration_max_gap": "0.75",
            "flag_min_ratings": 20}  # fmt: skip
    done = page_client(lead).post(f"/pools/{pool.pk}/path/", body, follow=True)
    assert "Saved the training path of Serving." in done.content.decode()
    path = TrainingPath.objects.get(pool=pool)
    assert (path.shadows, path.reverse_shadows, str(path.calibration_max_gap)) == (3, 2, "0.75")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"shadows": 0, "reverse_shadows": 0, "flag_min_ratings": 20},
         "A path needs at least one shadow or reverse-shadow seat."),
        ({"shadows": 11, "reverse_shadows": 1, "flag_min_ratings": 20},
         "Ensure this value is less than or equal to 10."),
        ({"shadows": 2, "reverse_shadows": 1, "calibration_max_gap": "-1",
          "flag_min_ratings": 20}, "Ensure this value is greater than or equal to 0."),
    ],
)  # fmt: skip
def test_a_bad_path_is_refused_beside_its_field_and_nothing_is_written(pool, lead, body, message):
    page = page_client(lead).post(f"/pools/{pool.pk}/path/", body)
    assert page.status_code == 400
    assert message in page.content.decode()
    path = TrainingPath.objects.get(pool=pool)
    assert (path.shadows, path.reverse_shadows, path.calibration_max_gap) == (2, 1, None)
    assert not AuditEvent.objects.filter(action="pool.path_set").exists()


def test_limits_are_set_by_a_keeper_and_by_the_person_themselves(pool, recruiter):
    ida = interviewer_in("ida")
    body = {"per_day": 1, "per_week": 3, "day_start": "10:00", "day_end": "16:00"}
    done = page_client(recruiter).post(f"/pools/limits/{ida.pk}/?pool={pool.pk}", body)
    assert done.status_code == 302 and done["Location"] == f"/pools/{pool.pk}/"
    limits = InterviewerLimits.objects.get(user=ida)
    assert (limits.per_day, limits.per_week, str(limits.day_start)) == (1, 3, "10:00:00")
    mine = page_client(ida).post(f"/pools/limits/{ida.pk}/", {**body, "per_week": 5})
    assert mine["Location"] == "/interviews/"
    assert InterviewerLimits.objects.get(user=ida).per_week == 5


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"per_day": 3, "per_week": 2, "day_start": "09:00", "day_end": "17:00"},
         "The weekly limit cannot be below the daily one."),
        ({"per_day": 2, "per_week": 4, "day_start": "17:00", "day_end": "09:00"},
         "The working day must end after it starts."),
        ({"per_day": 0, "per_week": 4, "day_start": "09:00", "day_end": "17:00"},
         "Ensure this value is greater than or equal to 1."),
    ],
)  # fmt: skip
def test_bad_limits_are_refused_beside_their_field_and_nothing_is_written(body, message, db):
    ida = interviewer_in("ida")
    page = page_client(ida).post(f"/pools/limits/{ida.pk}/", body)
    assert page.status_code == 400
    assert message in page.content.decode()
    assert not InterviewerLimits.objects.exists()
    assert not AuditEvent.objects.filter(action="interviewer.limits_set").exists()


def test_someone_elses_limits_are_404_for_an_interviewer(db):
    ida, omar = interviewer_in("ida"), interviewer_in("omar")
    client = page_client(ida)
    assert client.get(f"/pools/limits/{omar.pk}/").status_code == 404
    body = {"per_day": 1, "per_week": 1, "day_start": "09:00", "day_end": "10:00"}
    assert client.post(f"/pools/limits/{omar.pk}/", body).status_code == 404
    assert not InterviewerLimits.objects.exists()


@pytest.fixture
def shadow_seat(pool, recruiter, scheduled) -> TrainingSeat:  # type: ignore[no-untyped-def]
    cal, dev = interviewer_in("cal"), interviewer_in("dev")
    services.membership_add(pool=pool, user=cal, by=recruiter)
    services.membership_add(pool=pool, user=dev, status="training", by=recruiter)
    services.panel_accept(
        interview=scheduled[0], interviewers=[cal], shadow=dev, shadow_kind="shadow", by=recruiter
    )
    return TrainingSeat.objects.get()


def test_the_trainer_finds_the_seat_on_my_interviews_and_signs_it_off(shadow_seat):
    cal = shadow_seat.interview.panel.get(is_shadow=False).user
    client = page_client(cal)
    mine = client.get("/interviews/").content.decode()
    assert f'href="/pools/seats/{shadow_seat.pk}/">Sign off Dev\'s shadow seat</a>' in mine
    done = client.post(
        f"/pools/seats/{shadow_seat.pk}/", {"outcome": "ready", "note": "Good"}, follow=True
    )
    assert "Signed off Dev&#x27;s shadow seat." in done.content.decode()
    assert "Signed <strong>ready</strong> by Cal" in done.content.decode()
    shadow_seat.refresh_from_db()
    assert (shadow_seat.outcome, shadow_seat.note, shadow_seat.signed_off_by) == (
        "ready", "Good", cal,
    )  # fmt: skip


def test_not_yet_without_a_note_is_refused_and_nothing_is_written(shadow_seat):
    cal = shadow_seat.interview.panel.get(is_shadow=False).user
    page = page_client(cal).post(f"/pools/seats/{shadow_seat.pk}/", {"outcome": "not_yet"})
    assert page.status_code == 400
    assert "Say what is not there yet: the trainee reads it before the retake." in (
        page.content.decode()
    )
    shadow_seat.refresh_from_db()
    assert shadow_seat.outcome == "pending"
    assert not AuditEvent.objects.filter(action="training.signed_off").exists()


def test_no_choice_is_refused_and_nothing_is_written(shadow_seat):
    cal = shadow_seat.interview.panel.get(is_shadow=False).user
    page = page_client(cal).post(f"/pools/seats/{shadow_seat.pk}/", {"note": "hm"})
    assert page.status_code == 400
    assert "This field is required." in page.content.decode()
    shadow_seat.refresh_from_db()
    assert shadow_seat.outcome == "pending"


def test_the_sign_off_is_404_for_the_trainee_and_for_anyone_off_the_panel(shadow_seat):
    dev = shadow_seat.membership.user
    stranger = interviewer_in("stranger")
    for user in (dev, stranger):
        client = page_client(user)
        assert client.get(f"/pools/seats/{shadow_seat.pk}/").status_code == 404
        body = {"outcome": "ready"}
        assert client.post(f"/pools/seats/{shadow_seat.pk}/", body).status_code == 404
    shadow_seat.refresh_from_db()
    assert shadow_seat.outcome == "pending"


def test_building_a_loop_lands_on_its_proposed_panels(pool, recruiter, world):
    cal = interviewer_in("cal")
    services.membership_add(pool=pool, user=cal, by=recruiter)
    body = {"candidate": world.candidate.pk, "role": world.role.pk, "level": world.level.pk,
            "allow_duplicate": "on"}  # fmt: skip
    done = page_client(recruiter).post("/loops/new/", body, follow=True)
    new = Loop.objects.latest("pk")
    assert done.redirect_chain[-1][0] == f"/loops/{new.pk}/staff/"
    text = done.content.decode()
    assert "Loop saved. Its panels are proposed from the pools below." in text
    assert "<strong>Cal</strong> (interviewer): qualified for Serving" in text


def test_building_a_loop_without_pools_lands_on_the_loop(recruiter, world):
    body = {"candidate": world.candidate.pk, "role": world.role.pk, "level": world.level.pk}
    done = page_client(recruiter).post("/loops/new/", body)
    assert done["Location"] == f"/loops/{Loop.objects.get().pk}/"


def test_the_nav_links_the_pools_for_keepers_only(recruiter, lead, db):
    ida = interviewer_in("ida")
    manager = make_user("hana", HIRING_MANAGER)
    for user in (recruiter, lead, manager):
        assert '<a href="/pools/"' in page_client(user).get("/interviews/").content.decode()
    assert '<a href="/pools/"' not in page_client(ida).get("/interviews/").content.decode()


def test_choosing_someone_at_their_limit_by_hand_is_allowed_said_and_audited(
    pool, recruiter, scheduled
):
    # Cal works 09:00-11:00 Berlin; the Serving interview is 13:00-13:45 there.
    cal = interviewer_in("cal", per_day=1, per_week=1)
    InterviewerLimits.objects.filter(user=cal).update(day_start="09:00", day_end="11:00")
    services.membership_add(pool=pool, user=cal, by=recruiter)
    interview = scheduled[0]
    loop = interview.loop
    body: dict[str, object] = {}
    for each in scheduled:  # as the page shows them: times kept, no panel yet
        body.update(as_it_is(each))
    body[f"i{interview.pk}-interviewers"] = [cal.pk]
    done = page_client(recruiter).post(f"/loops/{loop.pk}/", body, follow=True)
    text = done.content.decode()
    assert "Saved the panels and times of" in text
    assert interview.panel.filter(user=cal).exists()
    event = AuditEvent.objects.get(action="panel.warned")
    assert event.data["interview"] == interview.pk
    assert event.data["warnings"], event.data
    for warning in event.data["warnings"]:
        assert warning.replace("'", "&#x27;") in text


def test_a_malformed_pool_to_return_to_is_a_400(db):
    ida = interviewer_in("ida")
    page = page_client(ida).get(f"/pools/limits/{ida.pk}/?pool=x")
    assert page.status_code == 400
