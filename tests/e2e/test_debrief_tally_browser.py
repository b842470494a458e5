"""The debrief's tally of recommendations fits the window: a table on a desktop, a card
per interview on a phone, with nothing to scroll sideways to (Chromium, 1280 and 390 px).
Screenshots go to artifacts/screenshots/debrief/."""

import pytest
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from core.permissions import INTERVIEWER, RECRUITER
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.scoring.helpers import submitted
from tests.support.loops import Seat, build_loop
from tests.support.marks import slow_except

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

# Each cell of the tally: where its right edge is, and what it says under which label.
CELLS = """() => [...document.querySelectorAll('section.tally td')].map(td => [
    Math.round(td.getBoundingClientRect().right), td.dataset.label, td.innerText.trim()])"""


@pytest.mark.parametrize("width", slow_except([1280, 390], keep=390))
def test_the_tally_fits_the_window_with_every_count_under_its_label(
    live_server: LiveServer, page: Page, width: int
) -> None:
    rita = make_user("rita", RECRUITER, first_name="Rita")
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    pia = make_user("pia", INTERVIEWER, first_name="Pia")
    built = build_loop(
        seats=[Seat(interviewers=[ines, pia]), Seat(interviewers=[pia])], recruiter=rita
    )
    first, second = built.interviews
    submitted(ines, first, recommendation="yes")
    submitted(pia, first, recommendation="strong_no")
    submitted(pia, second, recommendation="strong_yes")
    page.set_viewport_size({"width": width, "height": 900})

    sign_in(page, live_server, "rita")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/loops/{built.loop.pk}/debrief/")
    page.wait_for_selector("section.tally table")
    screenshot(page, f"debrief/tally-{width}")

    table = page.locator("section.tally table")
    assert table.evaluate("t => t.scrollWidth <= t.clientWidth"), "the tally scrolls sideways"
    cells = page.evaluate(CELLS)
    assert max(right for right, _, _ in cells) <= width
    counts = {(label, text) for _, label, text in cells}
    assert {("Strong no", "1"), ("Yes", "1"), ("Strong yes", "1"), ("No", "0")} <= counts
    total = page.locator("section.tally tr.total")
    assert total.locator("td").first.inner_text() == "All interviews"
    # On a phone the column heads are clipped away and each count carries its own label.
    head = page.locator("section.tally thead").bounding_box()
    assert head is not None and (head["height"] > 1) == (width > 760)
