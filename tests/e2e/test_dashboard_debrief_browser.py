"""The calibration dashboard and a debrief in Chromium at a desk's width (1280 px) and a
phone's (390 px): axe finds nothing serious or critical, numbers stay on one line,
every scrollable table is reachable by keyboard, and a hire against a panel that
mostly said no is asked why. Screenshots go to artifacts/screenshots/dashboard/.
"""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from interviews.models import Loop
from kit.models import Role
from scoring.models import CalibrationSnapshot
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.test_accessibility_browser import blocking_violations
from tests.scoring.calibration.helpers import ROLE, import_scorecards, lenient_panel_rows, write_csv
from tests.scoring.helpers import submitted
from tests.support.loops import Seat, build_loop
from tests.support.marks import slow_except

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

WIDTHS = [1280, 390]
WHY = "Her design review outweighs the slow start that the no votes rest on, say two of them."

# Returns the numeric cells whose text runs over more than one line (headers may wrap
# between words; a number may not).
WRAPPED_NUMBERS = """() => [...document.querySelectorAll("td.num")].filter((cell) => {
  if (!cell.textContent.trim() || cell.querySelector(".mark")) return false;
  const range = document.createRange();
  range.selectNodeContents(cell);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return tops.size > 1;
}).map((cell) => cell.textContent.trim())"""

# Returns the scrollable regions a keyboard cannot reach, and whether the page itself
# scrolls sideways (it must not: each table scrolls in its own region).
REACH = """() => ({
  unreachable: [...document.querySelectorAll(".scroll")]
    .filter((el) => el.scrollWidth > el.clientWidth && el.tabIndex < 0)
    .map((el) => el.getAttribute("aria-label") || el.className),
  pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
})"""


@pytest.fixture
def world(tmp_path: Path) -> tuple[Role, Loop]:
    """The calibrated panel (rater-x lenient), and a loop whose panel mostly said no."""
    make_user("leo", LEAD, first_name="Leo")
    recruiter = make_user("rita", RECRUITER, first_name="Rita")
    path = write_csv(tmp_path / "panel.csv", lenient_panel_rows())
    import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L5")
    role = Role.objects.get(name=ROLE)
    snapshot = CalibrationSnapshot.objects.get(role=role, level=None)
    # Enough candidates for the pager (the page reads only the snapshot's JSON).
    template = snapshot.result["candidates"][0]
    snapshot.result["candidates"] = [
        {**template, "candidate": f"Candidate with a long name {n:03}"} for n in range(1, 121)
    ]
    snapshot.save(update_fields=["result"])
    ines, pia, omar = (
        make_user(n, INTERVIEWER, first_name=n.title()) for n in ("ines", "pia", "omar")
    )
    built = build_loop(
        seats=[Seat(interviewers=[ines, pia]), Seat(interviewers=[omar])],
        role_name="Platform Engineer",
        recruiter=recruiter,
    )
    submitted(ines, built.interviews[0], rating=1, recommendation="strong_no")
    submitted(pia, built.interviews[0], rating=2, recommendation="no")
    submitted(omar, built.interviews[1], rating=3, recommendation="yes")
    built.loop.refresh_from_db()
    assert built.loop.status == Loop.Status.DEBRIEF
    return role, built.loop


def at_width(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})


def check_layout(page: Page, name: str) -> None:
    screenshot(page, f"dashboard/{name}")
    found = blocking_violations(page)
    assert found == [], "\n".join(found)
    assert page.evaluate(WRAPPED_NUMBERS) == []
    reach = page.evaluate(REACH)
    assert reach["unreachable"] == []
    assert reach["pageOverflow"] <= 0, f"the page scrolls sideways by {reach['pageOverflow']} px"


@pytest.mark.parametrize("width", slow_except(WIDTHS, keep=390))
def test_the_dashboard_reads_whole_at_a_desk_and_on_a_phone(
    live_server: LiveServer, page: Page, world: tuple[Role, Loop], width: int
) -> None:
    role, _ = world
    errors: list[str] = []  # the content security policy refuses inline styles and scripts
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    at_width(page, width)
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")

    page.goto(f"{live_server.url}/calibration/?role={role.pk}")
    for canvas in ("severity-chart", "candidates-chart", "trend-chart"):
        page.wait_for_function(f"Chart.getChart(document.getElementById('{canvas}')) !== undefined")

    expect(page.locator("#candidates")).to_contain_text("120 candidates; 1 to 50 shown.")
    check_layout(page, f"calibration-{width}")
    assert errors == []
    # Every interviewer gets a band of the severity chart: none skipped, none squeezed.
    height = page.evaluate("document.getElementById('severity-chart').clientHeight")
    assert height >= 320

    page.fill("#candidates input[name=q]", "name 11")
    page.click("#candidates button[type=submit]")
    expect(page.locator("#candidates")).to_contain_text("10 of 120 candidates match")
    expect(page.locator("#candidates tbody tr")).to_have_count(10)
    page.locator("#candidates nav.pager").wait_for(state="detached")
    screenshot(page, f"dashboard/calibration-search-{width}")


@pytest.mark.parametrize("width", slow_except(WIDTHS, keep=1280))
def test_a_hire_against_a_mostly_no_panel_is_asked_why_at_a_desk_and_on_a_phone(
    live_server: LiveServer, page: Page, world: tuple[Role, Loop], width: int
) -> None:
    _, loop = world
    at_width(page, width)
    sign_in(page, live_server, "rita")
    page.wait_for_selector("button:has-text('Sign out')")

    page.goto(f"{live_server.url}/loops/{loop.pk}/debrief/")

    notice = page.locator("#against-panel")
    expect(notice).to_contain_text("Most of the panel said no (1 strong no and 1 no of 3")
    check_layout(page, f"debrief-{width}")

    page.check("input[name=decision][value=hire]")
    page.fill("textarea[name=rationale]", "Strong.")
    page.click("button:has-text('Record decision')")
    expect(page.locator(".messages")).to_contain_text("This hire goes against the panel")
    expect(page.locator("textarea[name=rationale]")).to_have_value("Strong.")
    assert Loop.objects.get(pk=loop.pk).status == Loop.Status.DEBRIEF

    page.fill("textarea[name=rationale]", WHY)
    page.click("button:has-text('Record decision')")
    expect(page.locator("h2", has_text="Decision: Hire")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Hired against the panel: most of it said no")
    check_layout(page, f"debrief-decided-{width}")
