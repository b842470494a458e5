"""Times in Chromium in three zones, at desktop and phone widths: a recruiter in New York
whose zone is guessed from her browser schedules 09:00, stored as 09:00 New York in UTC;
panelists in London and Kolkata read it in their own zones; a zone saved on the account
page changes what pages show."""

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from core.accounts.models import Profile
from core.permissions import INTERVIEWER, RECRUITER
from interviews import services
from interviews.models import Interview
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.support.loops import make_world
from tests.support.marks import slow_except

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
NEW_YORK, LONDON, KOLKATA = "America/New_York", "Europe/London", "Asia/Kolkata"
TOKYO = "Asia/Tokyo"


def when(moment: datetime, zone: str) -> str:
    """What a page shows for `moment` in `zone` ("Thu 3 Dec, 14:00 GMT")."""
    local = moment.astimezone(zoneinfo.ZoneInfo(zone))
    return f"{local:%a} {local.day} {local:%b}, {local:%H:%M} {local.tzname()}"


def opened(browser, live_server, username: str, zone: str, size: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    width, height = WIDTHS[size]
    context = new_context(browser, timezone_id=zone)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    sign_in(page, live_server, username)
    expect(page.locator("button:has-text('Sign out')")).to_be_visible()
    return context, page


@pytest.mark.parametrize("size", slow_except(WIDTHS, keep="desktop"))
def test_each_person_reads_and_enters_times_in_their_own_zone(live_server, browser, size) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    make_user("rita", RECRUITER, first_name="Rita")
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    priya = make_user("priya", INTERVIEWER, first_name="Priya")
    world = make_world()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    serving = loop.interviews.order_by("order")[0]
    ny = zoneinfo.ZoneInfo(NEW_YORK)
    day = (timezone.now().astimezone(ny) + timedelta(days=1)).date()
    start = datetime.fromisoformat(f"{day}T09:00").replace(tzinfo=ny)
    end = start + timedelta(minutes=45)
    width = WIDTHS[size][0]

    contexts = []
    try:
        # (a) Rita has no zone yet: her browser's (New York) is guessed and saved.
        context, rita = opened(browser, live_server, "rita", NEW_YORK, size)
        contexts.append(context)
        rita.goto(f"{live_server.url}/loops/{loop.pk}/")
        form = rita.locator("form#schedule")
        expect(form.locator("#schedule-zone")).to_have_text(f"Times in {NEW_YORK}")
        assert Profile.objects.get(user__username="rita").time_zone == NEW_YORK
        slot = form.locator(f"#schedule-{serving.pk}")
        slot.get_by_label("Ines").check()
        slot.get_by_label("Priya").check()
        slot.get_by_label("Starts").fill(f"{day}T09:00")
        slot.get_by_label("Ends").fill(f"{day}T09:45")
        form.get_by_role("button", name="Save panels and times").click()
        expect(rita.locator(".messages")).to_contain_text("Saved the panels and times of Serving")
        serving = Interview.objects.get(pk=serving.pk)
        # 09:00 in New York, stored in UTC: 14:00 in winter, 13:00 in summer.
        assert serving.scheduled_start == start
        assert serving.scheduled_start.astimezone(zoneinfo.ZoneInfo("UTC")).hour == (
            14 if start.utcoffset() == timedelta(hours=-5) else 13
        )
        assert serving.scheduled_end == end
        card = rita.locator(f"#interview-{serving.pk}")
        abbreviation = start.tzname()
        assert abbreviation in {"EST", "EDT"}
        expect(card).to_contain_text(f"09:00–09:45 {abbreviation}")
        expect(card).to_contain_text(when(start, NEW_YORK).removesuffix(f" {abbreviation}"))
        expect(slot.get_by_label("Starts")).to_have_value(f"{day}T09:00")
        screenshot(rita, f"time-zones-new-york-{size}")
        assert rita.evaluate("document.documentElement.scrollWidth") <= width

        # (b) The same interview on My interviews in London and in Kolkata.
        for person, zone, names in ((ines, LONDON, {"GMT", "BST"}), (priya, KOLKATA, {"IST"})):
            context, page = opened(browser, live_server, person.username, zone, size)
            contexts.append(context)
            page.goto(f"{live_server.url}/interviews/")
            upcoming = page.locator("h2:has-text('Upcoming') + table")
            row = upcoming.locator("tbody tr").filter(has_text=world.candidate.name)
            shown = when(start, zone)
            assert shown.rsplit(" ", 1)[1] in names
            expect(row.locator("td[data-label=When]")).to_have_text(shown)
            # Chromium may report a zone by its older name (Asia/Calcutta): the same zone.
            guessed = Profile.objects.get(user=person).time_zone
            assert (
                zoneinfo.ZoneInfo(guessed).utcoffset(start)
                == start.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset()
            )
            screenshot(page, f"time-zones-{zone.split('/')[1].lower()}-{size}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width

        # (c) Rita's account page shows the guessed zone; she saves Tokyo instead.
        rita.goto(f"{live_server.url}/account/")
        select = rita.get_by_label("Time zone")
        expect(select).to_have_value(NEW_YORK)
        screenshot(rita, f"time-zones-account-{size}")
        select.select_option(TOKYO)
        rita.get_by_role("button", name="Save", exact=True).click()
        expect(rita.locator(".messages")).to_contain_text("Saved.")
        expect(select).to_have_value(TOKYO)
        assert Profile.objects.get(user__username="rita").time_zone == TOKYO
        rita.goto(f"{live_server.url}/loops/{loop.pk}/")
        expect(rita.locator("#schedule-zone")).to_have_text(f"Times in {TOKYO}")
        tokyo = start.astimezone(zoneinfo.ZoneInfo(TOKYO))
        finish = end.astimezone(zoneinfo.ZoneInfo(TOKYO))
        expect(rita.locator(f"#interview-{serving.pk}")).to_contain_text(
            f"{tokyo:%H:%M}–{finish:%H:%M} JST"
        )
        expect(rita.locator(f"#schedule-{serving.pk}").get_by_label("Starts")).to_have_value(
            f"{tokyo:%Y-%m-%dT%H:%M}"
        )
        screenshot(rita, f"time-zones-tokyo-{size}")
        # The stored time did not move.
        assert Interview.objects.get(pk=serving.pk).scheduled_start == start
    finally:
        for context in contexts:
            context.close()
