"""/account/: your time zone and which emails you get; the zone pages are rendered in.

A page is rendered in its viewer's zone (their profile's, else their browser's guess,
which the first page seen saves), the API answers in UTC whoever calls.
"""

import zoneinfo
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from core.accounts.models import Notice, Profile
from core.models import AuditEvent
from core.outbox.models import OutgoingEmail
from interviews import services
from interviews.models import Interview
from tests.support.api import iso
from tests.support.loops import make_world

URL = reverse("core:account")
KOLKATA = zoneinfo.ZoneInfo("Asia/Kolkata")


@pytest.fixture
def ines(client, interviewer):  # type: ignore[no-untyped-def]
    client.force_login(interviewer)
    return client


@pytest.fixture
def interview(db, recruiter) -> Interview:  # type: ignore[no-untyped-def]
    world = make_world()
    loop = services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, by=recruiter
    )
    return loop.interviews.order_by("order")[0]


def timed(interview: Interview, people) -> Interview:  # type: ignore[no-untyped-def]
    # 12:00 UTC a week ahead: 17:30 in Kolkata, 12:00 or 13:00 in London.
    start = (timezone.now() + timedelta(days=7)).replace(hour=12, minute=0, second=0, microsecond=0)
    services.interview_update(
        interview=interview,
        interviewers=people,
        scheduled_start=start,
        scheduled_end=start + timedelta(minutes=45),
    )
    interview.refresh_from_db()
    return interview


def test_it_saves_a_zone_and_the_kinds_of_email(ines, interviewer):
    response = ines.post(
        URL,
        {
            "action": "save",
            "time_zone": "Asia/Kolkata",
            "emails": [Notice.PANEL_ADDED.value, Notice.LOOP_DECIDED.value],
        },
    )
    assert response.status_code == 302 and response.url == URL
    profile = Profile.objects.get(user=interviewer)
    assert profile.time_zone == "Asia/Kolkata"
    assert sorted(profile.emails_off) == sorted(
        set(Notice.values) - {Notice.PANEL_ADDED.value, Notice.LOOP_DECIDED.value}
    )
    page = ines.get(URL).content.decode()
    assert "<strong>Asia/Kolkata</strong>" in page
    assert '<option value="Asia/Kolkata" selected>' in page
    assert f'value="{Notice.PANEL_ADDED.value}"' in page
    # The boxes show what was saved: two ticked, the rest not.
    assert page.count("checked") == 2
    # Pages are now rendered in that zone.
    assert " IST." in page


def test_an_unknown_zone_is_refused_and_nothing_is_written(ines, interviewer):
    Profile.objects.create(user=interviewer, time_zone="Europe/London", emails_off=["loop_decided"])
    response = ines.post(
        URL, {"action": "save", "time_zone": "Mars/Olympus_Mons", "emails": ["panel_added"]}
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="tz-error"' in page and "Mars/Olympus_Mons" in page
    profile = Profile.objects.get(user=interviewer)
    assert profile.time_zone == "Europe/London" and profile.emails_off == ["loop_decided"]
    assert not AuditEvent.objects.exists()


def test_an_unknown_kind_of_email_is_refused_and_nothing_is_written(ines, interviewer):
    response = ines.post(URL, {"action": "save", "time_zone": "Asia/Kolkata", "emails": ["spam"]})
    assert response.status_code == 200
    # The refusal is shown, not only kept in the form.
    assert "spam is not one of the available choices" in response.content.decode()
    assert Profile.objects.get(user=interviewer).time_zone == ""


def test_an_unknown_action_is_refused_and_nothing_is_written(ines, interviewer):
    response = ines.post(URL, {"action": "explode", "time_zone": "Asia/Kolkata"})
    assert response.status_code == 400
    profile = Profile.objects.filter(user=interviewer).first()
    assert profile is None or (profile.time_zone == "" and profile.calendar_token_hash == "")


def test_it_needs_a_sign_in(client, interviewer):
    response = client.post(URL, {"action": "save", "time_zone": "Asia/Kolkata"})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not Profile.objects.filter(time_zone="Asia/Kolkata").exists()


def test_the_browser_guess_is_saved_once_for_someone_without_a_zone(ines, interviewer):
    ines.cookies["tz"] = "Asia/Kolkata"
    page = ines.get(reverse("interviews:my-interviews"))
    assert page.status_code == 200
    assert Profile.objects.get(user=interviewer).time_zone == "Asia/Kolkata"
    # The account page shows the guess as the chosen zone.
    assert '<option value="Asia/Kolkata" selected>' in ines.get(URL).content.decode()
    # Another browser later reports another zone: the first guess stays.
    ines.cookies["tz"] = "Europe/London"
    ines.get(reverse("interviews:my-interviews"))
    assert Profile.objects.get(user=interviewer).time_zone == "Asia/Kolkata"
    assert " IST." in ines.get(URL).content.decode()


def test_the_guess_is_read_as_the_browser_script_writes_it(ines, interviewer):
    # static/js/timezone.js writes the cookie with encodeURIComponent: "/" is "%2F".
    ines.cookies["tz"] = "Asia%2FKolkata"
    assert ines.get(reverse("interviews:my-interviews")).status_code == 200
    assert Profile.objects.get(user=interviewer).time_zone == "Asia/Kolkata"


def test_a_guess_that_is_no_zone_is_ignored(ines, interviewer):
    ines.cookies["tz"] = "Not/AZone"
    assert ines.get(reverse("interviews:my-interviews")).status_code == 200
    assert not Profile.objects.filter(user=interviewer).exclude(time_zone="").exists()


def test_the_browser_guess_never_overrides_a_chosen_zone(client, interviewer):
    Profile.objects.create(user=interviewer, time_zone="Europe/London")
    client.force_login(interviewer)
    client.cookies["tz"] = "Asia/Kolkata"
    page = client.get(URL).content.decode()
    assert Profile.objects.get(user=interviewer).time_zone == "Europe/London"
    assert "<strong>Europe/London</strong>" in page
    assert " GMT." in page or " BST." in page


def test_a_zone_chosen_in_another_session_wins_over_the_guess(ines, interviewer):
    ines.post(URL, {"action": "save", "time_zone": "Europe/London"})
    ines.cookies["tz"] = "Asia/Kolkata"
    ines.get(reverse("interviews:my-interviews"))
    assert Profile.objects.get(user=interviewer).time_zone == "Europe/London"


def test_a_zone_changed_on_another_device_applies_at_the_next_page(client, interviewer, interview):
    """No sign-in in between: the laptop's session sees the zone the phone just saved."""
    from django.test import Client

    Profile.objects.create(user=interviewer, time_zone="Europe/London")
    interview = timed(interview, [interviewer])
    laptop, phone = client, Client()
    laptop.force_login(interviewer)
    phone.force_login(interviewer)
    assert "GMT" in laptop.get(reverse("interviews:my-interviews")).content.decode()

    assert phone.post(URL, {"action": "save", "time_zone": "Asia/Kolkata"}).status_code == 302

    local = interview.scheduled_start.astimezone(KOLKATA)
    page = laptop.get(reverse("interviews:my-interviews")).content.decode()
    assert f"{local:%H:%M} IST" in page


def test_the_my_interviews_page_shows_times_in_the_viewers_zone(client, interviewer, interview):
    Profile.objects.create(user=interviewer, time_zone="Asia/Kolkata")
    client.force_login(interviewer)
    interview = timed(interview, [interviewer])
    local = interview.scheduled_start.astimezone(KOLKATA)
    page = client.get(reverse("interviews:my-interviews")).content.decode()
    assert f"{local:%H:%M} IST" in page


def test_the_api_answers_in_utc_whatever_the_zone(client, recruiter, interviewer, interview):
    Profile.objects.create(user=recruiter, time_zone="Asia/Kolkata")
    interview = timed(interview, [interviewer])
    client.force_login(recruiter)
    client.cookies["tz"] = "Asia/Kolkata"
    response = client.get(f"/api/v1/interviews/{interview.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["scheduled_start"] == iso(interview.scheduled_start)
    assert body["scheduled_start"].endswith("Z")
    assert body["scheduled_end"].endswith("Z")


def test_a_kind_of_email_switched_off_on_the_page_is_not_sent(
    ines, interviewer, other_interviewer, interview, django_capture_on_commit_callbacks
):
    on = [kind for kind in Notice.values if kind != Notice.PANEL_ADDED.value]
    assert ines.post(URL, {"action": "save", "time_zone": "UTC", "emails": on}).status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        timed(interview, [interviewer, other_interviewer])
    assert [m.to for m in mail.outbox] == [[other_interviewer.email]]
    assert list(OutgoingEmail.objects.values_list("user_id", flat=True)) == [other_interviewer.pk]


def test_the_page_costs_a_fixed_number_of_queries(ines, django_assert_max_num_queries):
    ines.get(URL)  # the first visit makes the profile
    # 1 session, 2 user, 3 profile, 4 profile again (refreshed after a POST, and on GET
    # too), 5 the user's groups for the navigation.
    with django_assert_max_num_queries(5):
        assert ines.get(URL).status_code == 200
