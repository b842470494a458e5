"""The list pages at desktop and phone widths: no sideways scrolling, and on a phone each
row is a card whose status and buttons are in view (static/css/app.css, `.table.cards`)."""

import pytest

from core.models import AuditEvent
from core.permissions import INTERVIEWER, LEAD, RECRUITER
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.interviews.lists import make_loops
from tests.support.marks import slow_except

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
# (who, page, what must be in view on a phone: the status and the row's buttons)
PAGES = [
    ("rita", "/loops/", ["td[data-label=Status] .status", "td[data-label=Actions] .button"]),
    ("rita", "/candidates/", ["td[data-label=Actions] .button"]),
    ("ines", "/interviews/", ["td[data-label='Your scorecard'] span",
                              "td[data-label=Actions] .button"]),
    ("leo", "/audit/", ["td[data-label=Action] code", "a.button:has-text('Download CSV')"]),
]  # fmt: skip


@pytest.fixture
def lists(transactional_db):  # type: ignore[no-untyped-def]
    rita = make_user("rita", RECRUITER, first_name="Rita")
    make_user("leo", LEAD, first_name="Leo")
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    omar = make_user("omar", INTERVIEWER, first_name="Omar")
    make_loops(60, panel=ines, also=omar)  # 3 pages; 36 past: 2
    AuditEvent.objects.bulk_create(
        AuditEvent(actor=rita, action="loop.decided", target=f"Candidate {n:03d} · L5",
                   data={"decision": "hire", "rationale": "Strong on every competency " * 3})
        for n in range(120)
    )  # fmt: skip


def overflow(page) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


def in_view(page, selector: str, width: int) -> bool:  # type: ignore[no-untyped-def]
    element = page.locator(selector).first
    box = element.bounding_box()
    return (
        element.is_visible()
        and box is not None
        and box["x"] >= 0
        and box["x"] + box["width"] <= width
    )


@pytest.mark.parametrize("size", slow_except(WIDTHS, keep="phone"))
def test_the_lists_fit_the_screen_and_keep_status_and_buttons_in_view(
    live_server, browser, lists, size
):
    width, height = WIDTHS[size]
    contexts = {}
    try:
        for who, path, wanted in PAGES:
            if who not in contexts:
                contexts[who] = new_context(browser)
                page = contexts[who].new_page()
                page.set_viewport_size({"width": width, "height": height})
                sign_in(page, live_server, who)
                page.wait_for_selector("h1")
            page = contexts[who].pages[0]
            page.goto(f"{live_server.url}{path}")
            page.wait_for_selector("table.cards tbody tr td[data-label]")
            scroll_width, viewport = overflow(page)
            assert scroll_width <= viewport, f"{path} at {width} px is {scroll_width} px wide"
            for selector in wanted:
                assert in_view(page, selector, width), f"{selector} on {path} at {width} px"
            assert page.locator("nav.pager").is_visible()
            if size == "phone":
                # Each cell says which column it is: the header row is hidden.
                label = page.evaluate(
                    "getComputedStyle(document.querySelector('td[data-label]'), '::before').content"
                )
                first = page.locator("td[data-label]").first.get_attribute("data-label")
                assert label == f'"{first}"'
                head = page.locator("table.cards thead").first.bounding_box()
                assert head is not None and head["height"] <= 1
            screenshot(page, f"lists-{path.strip('/')}-{width}")
    finally:
        for context in contexts.values():
            context.close()


@pytest.mark.parametrize("size", list(WIDTHS))
def test_the_other_tables_stack_into_cards_on_a_phone(live_server, browser, lists, size):
    """The bank, a candidate's loops and the role owners: no sideways scrolling, and on
    a phone each row is a card whose cells say their column."""
    from interviews.models import Candidate
    from tests.support.factories import make_question

    make_question(title="Batching at scale", prompt="A question with a long prompt " * 8)
    candidate = Candidate.objects.order_by("pk").first()
    assert candidate is not None
    width, height = WIDTHS[size]
    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_viewport_size({"width": width, "height": height})
        sign_in(page, live_server, "rita")
        page.wait_for_selector("h1")
        for path in ("/bank/", f"/candidates/{candidate.pk}/", "/bank/roles/owners/"):
            page.goto(f"{live_server.url}{path}")
            page.wait_for_selector("table.cards tbody tr td[data-label]")
            scroll_width, viewport = overflow(page)
            assert scroll_width <= viewport, f"{path} at {width} px is {scroll_width} px wide"
            if size == "phone":
                head = page.locator("table.cards thead").first.bounding_box()
                assert head is not None and head["height"] <= 1, path
            screenshot(page, f"tables-{path.strip('/').replace('/', '-')}-{width}")
    finally:
        context.close()
