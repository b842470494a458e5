"""A recruiter schedules a whole loop in Chromium, at desktop and phone widths: the
people picker filters as they type, ticks stand in for Ctrl-click, who is busy gives
way to a note when a start moves to another day, one Save saves every interview, and
a refused start is shown beside its field, which takes the focus."""

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from core.accounts.services import profile_update
from core.permissions import INTERVIEWER, RECRUITER
from interviews import services
from interviews.models import Loop
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.support.loops import make_world
from tests.support.marks import slow_except

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
ZONE = "Europe/Paris"


@pytest.mark.parametrize("size", slow_except(WIDTHS, keep="desktop"))
def test_a_recruiter_schedules_the_loop_in_one_form(live_server, browser, size) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    rita = make_user("rita", RECRUITER, first_name="Rita")
    # Her profile's zone, which the browser's matches (the end follows the start there).
    profile_update(user=rita, time_zone=ZONE, emails_on=[])
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    omar = make_user("omar", INTERVIEWER, first_name="Omar")
    make_user("priya", INTERVIEWER, first_name="Priya")
    make_user("sam", INTERVIEWER, first_name="Sam")
    world = make_world()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    zone = zoneinfo.ZoneInfo(ZONE)
    day = (timezone.now().astimezone(zone) + timedelta(days=1)).date()
    # Omar already sits on another candidate's interview that afternoon.
    other = services.loop_create(
        candidate=services.candidate_create(name="Robin Other"), role=world.role, level=world.level
    )
    busy = datetime.fromisoformat(f"{day}T14:00").replace(tzinfo=zone)
    services.interview_update(
        interview=other.interviews.order_by("order")[0],
        interviewers=[omar],
        scheduled_start=busy,
        scheduled_end=busy + timedelta(minutes=45),
    )
    services.interview_update(
        interview=loop.interviews.order_by("order")[1],
        interviewers=[ines],
        scheduled_start=busy + timedelta(hours=2),
        scheduled_end=busy + timedelta(hours=2, minutes=45),
    )
    serving, training = loop.interviews.order_by("order")

    width, height = WIDTHS[size]
    context = new_context(browser, timezone_id=ZONE)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    try:
        sign_in(page, live_server, "rita")
        page.wait_for_selector("button:has-text('Sign out')")
        page.goto(f"{live_server.url}/loops/{loop.pk}/")
        form = page.locator("form#schedule")
        expect(form.locator("#schedule-zone")).to_have_text(f"Times in {ZONE}")

        # Serving: type to find Priya, tick her; the end follows the start.
        first = form.locator(f"#schedule-{serving.pk}")
        first.get_by_label("Filter interviewers for 1. Serving").fill("pri")
        expect(first.locator("ul.people li:visible")).to_have_count(1)
        first.get_by_label("Priya").check()
        first.get_by_label("Starts").fill(f"{day}T09:30")
        expect(first.get_by_label("Ends")).to_have_value(f"{day}T10:15")

        # Training: Ines stays ticked whatever the filter; add Omar, who is busy at 14:00.
        second = form.locator(f"#schedule-{training.pk}")
        people = second.locator("ul.people li")
        omar_row = people.filter(has_text="Omar")
        expect(omar_row.locator(".busy")).to_have_text(
            f"also 14:00–14:45 {busy.tzname()} Serving (Robin Other)"
        )
        # Moved to another day, that list no longer applies: a note says so until saved.
        starts = second.get_by_label("Starts")
        saved = starts.input_value()
        starts.fill(f"{day + timedelta(days=1)}T16:00")
        expect(omar_row.locator(".busy")).to_be_hidden()
        expect(second.locator(".busy-note")).to_contain_text("Save to check the new day")
        starts.fill(saved)
        expect(omar_row.locator(".busy")).to_be_visible()
        expect(second.locator(".busy-note")).to_be_hidden()
        second.get_by_label("Filter interviewers for 2. Training").fill("OM")
        expect(second.locator("ul.people li:visible")).to_have_count(2)  # Omar, ticked Ines
        second.get_by_label("Omar").check()
        screenshot(page, f"schedule-filled-{size}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width

        form.get_by_role("button", name="Save panels and times").click()
        expect(page.locator(".messages")).to_contain_text(
            "Saved the panels and times of Serving, Training."
        )
        screenshot(page, f"schedule-saved-{size}")
        serving.refresh_from_db()
        assert serving.scheduled_start == datetime.fromisoformat(f"{day}T09:30").replace(
            tzinfo=zone
        )
        assert sorted(serving.panel.values_list("user__username", flat=True)) == ["priya"]
        assert sorted(training.panel.values_list("user__username", flat=True)) == ["ines", "omar"]
        assert Loop.objects.get(pk=loop.pk).status == Loop.Status.SCHEDULED

        # A start moved into the past: refused beside Starts, which takes the focus.
        yesterday = day - timedelta(days=2)
        first = page.locator(f"#schedule-{serving.pk}")
        first.get_by_label("Starts").fill(f"{yesterday}T09:30")
        first.get_by_label("Ends").fill(f"{yesterday}T10:15")
        page.get_by_role("button", name="Save panels and times").click()
        error = page.locator(f"#id_i{serving.pk}-scheduled_start-error")
        expect(error).to_contain_text("is in the past: pick a start from now on.")
        expect(page.locator(f"#id_i{serving.pk}-scheduled_start")).to_be_focused()
        expect(page.locator("#schedule-errors")).to_contain_text("Nothing was saved.")
        screenshot(page, f"schedule-refused-{size}")
        serving.refresh_from_db()
        assert serving.scheduled_start == datetime.fromisoformat(f"{day}T09:30").replace(
            tzinfo=zone
        )
    finally:
        context.close()
