"""The time-zones journey in Chromium, as the issue accepts it:

1. A recruiter in New York sets her zone and schedules a loop for panelists in London
   and Bangalore (Asia/Kolkata) through the browser.
2. Each panelist gets an email whose invite (parsed with icalendar) is METHOD:REQUEST,
   with their own UID, the start in their zone (TZID) and both attendees.
3. She moves one interview (a new invite: higher SEQUENCE, same UID) and takes a
   panelist off another (METHOD:CANCEL).
4. She cancels the loop on the debrief: every remaining seat gets a CANCEL and leaves
   Upcoming on My interviews.
"""

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone
from icalendar import Calendar

from core.accounts.models import Notice, Profile
from core.accounts.services import profile_update
from core.permissions import INTERVIEWER, RECRUITER
from interviews import services
from interviews.invites import seat_uid
from interviews.models import Interview, Loop
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.support.loops import make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_YORK, LONDON, KOLKATA = "America/New_York", "Europe/London", "Asia/Kolkata"


def invites_to(user) -> list[tuple[Calendar, object]]:  # type: ignore[no-untyped-def]
    """The invites emailed to `user` so far, oldest first, each (calendar, its VEVENT)."""
    found = []
    for message in mail.outbox:
        if message.to != [user.email]:
            continue
        for name, content, mime in message.attachments:
            assert name == "invite.ics" and mime == "application/ics"
            calendar = Calendar.from_ical(content)
            (event,) = calendar.walk("VEVENT")
            # The same calendar is the message's iMIP part, with its METHOD.
            inline = dict((m, c) for c, m in message.alternatives)
            method = f"text/calendar; method={calendar['METHOD']}; charset=utf-8"
            assert inline[method] == content.decode()
            found.append((calendar, event))
    return found


def attendees(event) -> list[str]:  # type: ignore[no-untyped-def]
    found = event.get("ATTENDEE")
    return sorted(str(a) for a in (found if isinstance(found, list) else [found]))


def for_seat(found, interview: Interview, user):  # type: ignore[no-untyped-def]
    uid = seat_uid(interview_id=interview.pk, user_id=user.pk)
    return [(c, e) for c, e in found if str(e["UID"]) == uid]


@pytest.mark.slow  # a long multi-persona journey
@pytest.mark.parametrize("close", ["cancel", "no_hire"])
def test_a_loop_across_three_zones_from_scheduling_to_its_close(
    live_server, browser, close
) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    make_user("rita", RECRUITER, first_name="Rita")
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    priya = make_user("priya", INTERVIEWER, first_name="Priya")
    every_email = list(Notice.values)
    profile_update(user=ines, time_zone=LONDON, emails_on=every_email)
    profile_update(user=priya, time_zone=KOLKATA, emails_on=every_email)
    world = make_world()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    serving, training = loop.interviews.order_by("order")
    ny = zoneinfo.ZoneInfo(NEW_YORK)
    day = (timezone.now().astimezone(ny) + timedelta(days=2)).date()
    at = {
        hour: datetime.fromisoformat(f"{day}T{hour}").replace(tzinfo=ny)
        for hour in ("09:00", "09:45", "11:00", "11:45", "13:00", "13:45")
    }

    contexts = []
    try:
        context = new_context(browser, timezone_id=NEW_YORK)
        contexts.append(context)
        rita = context.new_page()
        sign_in(rita, live_server, "rita")
        expect(rita.locator("button:has-text('Sign out')")).to_be_visible()

        # --- 1. Rita picks her zone and schedules both interviews -------------------
        rita.goto(f"{live_server.url}/account/")
        rita.get_by_label("Time zone").select_option(NEW_YORK)
        rita.get_by_role("button", name="Save", exact=True).click()
        expect(rita.locator(".messages")).to_contain_text("Saved.")
        rita.goto(f"{live_server.url}/loops/{loop.pk}/")
        form = rita.locator("form#schedule")
        expect(form.locator("#schedule-zone")).to_have_text(f"Times in {NEW_YORK}")
        for interview, start, end in ((serving, "09:00", "09:45"), (training, "11:00", "11:45")):
            slot = form.locator(f"#schedule-{interview.pk}")
            slot.get_by_label("Ines").check()
            slot.get_by_label("Priya").check()
            slot.get_by_label("Starts").fill(f"{day}T{start}")
            slot.get_by_label("Ends").fill(f"{day}T{end}")
        form.get_by_role("button", name="Save panels and times").click()
        expect(rita.locator(".messages")).to_contain_text(
            "Saved the panels and times of Serving, Training."
        )
        screenshot(rita, "journey-time-zones-scheduled")
        serving.refresh_from_db()
        training.refresh_from_db()
        assert (serving.scheduled_start, training.scheduled_start) == (at["09:00"], at["11:00"])

        # --- 2. One invite per seat, in each panelist's zone ------------------------
        emails = {p.username: [m for m in mail.outbox if m.to == [p.email]] for p in (ines, priya)}
        assert {name: len(got) for name, got in emails.items()} == {"ines": 2, "priya": 2}
        for person, zone in ((ines, LONDON), (priya, KOLKATA)):
            found = invites_to(person)
            for interview in (serving, training):
                ((calendar, event),) = for_seat(found, interview, person)
                assert calendar["METHOD"] == "REQUEST"
                assert event.decoded("DTSTART") == interview.scheduled_start
                assert event.decoded("DTSTART").tzinfo.key == zone
                assert event["DTSTART"].params["TZID"] == zone
                assert event.decoded("DTEND") == interview.scheduled_end
                assert attendees(event) == sorted(f"mailto:{p.email}" for p in (ines, priya))
                assert f"TZID:{zone}" in calendar.to_ical().decode()  # its VTIMEZONE
        ((_, first),) = for_seat(invites_to(ines), serving, ines)
        local = serving.scheduled_start.astimezone(zoneinfo.ZoneInfo(LONDON))
        assert any(f"{local:%H:%M}" in m.body for m in emails["ines"])

        # --- 3. Serving moves to 13:00; Priya leaves Training ----------------------
        mail.outbox.clear()
        slot = form.locator(f"#schedule-{serving.pk}")
        slot.get_by_label("Starts").fill(f"{day}T13:00")
        slot.get_by_label("Ends").fill(f"{day}T13:45")
        form.locator(f"#schedule-{training.pk}").get_by_label("Priya").uncheck()
        form.get_by_role("button", name="Save panels and times").click()
        expect(rita.locator(".messages")).to_contain_text("Saved the panels and times of")
        serving.refresh_from_db()
        assert serving.scheduled_start == at["13:00"]
        for person, zone in ((ines, LONDON), (priya, KOLKATA)):
            ((calendar, event),) = for_seat(invites_to(person), serving, person)
            assert calendar["METHOD"] == "REQUEST"
            assert event["SEQUENCE"] > first["SEQUENCE"]
            assert event.decoded("DTSTART") == at["13:00"]
            assert event.decoded("DTSTART").tzinfo.key == zone
        ((calendar, event),) = for_seat(invites_to(priya), training, priya)
        assert calendar["METHOD"] == "CANCEL" and event["STATUS"] == "CANCELLED"
        # Ines stays on Training: told of the panel change, still a REQUEST.
        ((calendar, event),) = for_seat(invites_to(ines), training, ines)
        assert calendar["METHOD"] == "REQUEST"
        assert attendees(event) == [f"mailto:{ines.email}"]
        screenshot(rita, "journey-time-zones-moved")

        # Both panelists see the interviews coming up, in their own zones.
        pages = {}
        for person, zone in ((ines, LONDON), (priya, KOLKATA)):
            context = new_context(browser, timezone_id=zone)
            contexts.append(context)
            page = context.new_page()
            sign_in(page, live_server, person.username)
            expect(page.locator("button:has-text('Sign out')")).to_be_visible()
            page.goto(f"{live_server.url}/interviews/")
            upcoming = page.locator("h2:has-text('Upcoming') + table tbody tr")
            expect(upcoming.filter(has_text=world.candidate.name)).to_have_count(
                2 if person == ines else 1
            )
            local = at["13:00"].astimezone(zoneinfo.ZoneInfo(zone))
            expect(upcoming.filter(has_text="Serving")).to_contain_text(
                f"{local:%H:%M} {local.tzname()}"
            )
            pages[person.username] = page

        # --- 4. Rita closes the loop on the debrief: cancelled, or a no-hire -------
        sequences = {i.pk: i.invite_sequence for i in Interview.objects.filter(loop=loop)}
        mail.outbox.clear()
        rita.goto(f"{live_server.url}/loops/{loop.pk}/debrief/")
        if close == "cancel":
            rita.locator("#close-loop summary").click()
            rita.locator("#close-loop").get_by_label("Reason").fill("The candidate withdrew.")
            rita.get_by_role("button", name="Cancel loop").click()
            expect(rita.locator(".messages")).to_contain_text("Loop cancelled")
            status = Loop.Status.CANCELLED
        else:
            rita.locator("label.anchor:has(input[name=decision][value=no_hire])").click()
            rita.get_by_label("Rationale").fill("The candidate withdrew before the loop.")
            rita.get_by_role("button", name="Record decision").click()
            expect(rita.locator(".messages")).to_contain_text("Decision recorded.")
            status = Loop.Status.DECIDED
        screenshot(rita, f"journey-time-zones-{close}")
        assert Loop.objects.get(pk=loop.pk).status == status
        remaining = [(serving, ines), (serving, priya), (training, ines)]
        for interview, person in remaining:
            ((calendar, event),) = for_seat(invites_to(person), interview, person)
            assert calendar["METHOD"] == "CANCEL" and event["STATUS"] == "CANCELLED"
            assert event["SEQUENCE"] > sequences[interview.pk]
        # Nobody else is told of a seat they no longer held.
        assert for_seat(invites_to(priya), training, priya) == []
        for page in pages.values():
            page.goto(f"{page.url.split('/interviews/')[0]}/interviews/")
            upcoming = page.locator("h2:has-text('Upcoming') + table tbody tr")
            expect(upcoming).to_have_count(1)
            expect(upcoming).to_contain_text("Nothing scheduled for you.")
        screenshot(pages["priya"], f"journey-time-zones-priya-after-{close}")
        assert (
            not Profile.objects.filter(user__username="rita").exclude(time_zone=NEW_YORK).exists()
        )
    finally:
        for context in contexts:
            context.close()
