"""A recruiter sets an interview's time in Chromium: the end follows the start."""

import pytest

from core.permissions import RECRUITER
from interviews import services
from tests.conftest import make_user
from tests.e2e.conftest import sign_in
from tests.support.loops import make_world

pytestmark = pytest.mark.browser


def test_the_end_time_follows_the_start_until_set_by_hand(  # type: ignore[no-untyped-def]
    live_server, page, transactional_db
) -> None:
    make_user("rita", RECRUITER, first_name="Rita")
    world = make_world()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    first = loop.interviews.order_by("order").first()
    sign_in(page, live_server, "rita")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/loops/{loop.pk}/")

    serving = page.locator(f"fieldset[data-minutes='{first.minutes}']").first
    serving.get_by_label("Starts").fill("2031-03-04T09:30")
    assert first.minutes == 45
    assert serving.get_by_label("Ends").input_value() == "2031-03-04T10:15"

    # An end set by hand stays put when the start moves.
    serving.get_by_label("Ends").fill("2031-03-04T11:00")
    serving.get_by_label("Starts").fill("2031-03-04T10:00")
    assert serving.get_by_label("Ends").input_value() == "2031-03-04T11:00"
