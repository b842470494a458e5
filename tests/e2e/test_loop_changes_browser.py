"""Changing a loop in Chromium, at desktop and phone widths, with screenshots.

* A recruiter adds an interview to an open loop and takes it out again, cancels the
  loop from its debrief (the panelist's Upcoming empties) and reopens it.
* A panelist shapes their own interview from the kit until it starts: moves a
  question down and swaps one in with a reason, which the recruiter's loop page shows.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.permissions import INTERVIEWER, RECRUITER
from interviews import services
from interviews.models import Interview, Loop, Panelist
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.support.loops import make_world
from tests.support.marks import slow_except

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def scheduled_loop() -> Loop:
    """The small L5 loop (Serving, Training), Ines on both, the day after tomorrow."""
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    world = make_world()
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    start = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    for n, interview in enumerate(loop.interviews.order_by("order")):
        begins = start + timedelta(hours=n)
        services.interview_update(
            interview=interview,
            interviewers=[ines],
            scheduled_start=begins,
            scheduled_end=begins + timedelta(minutes=45),
        )
    return loop


def page_for(browser, size: str):  # type: ignore[no-untyped-def]
    width, height = WIDTHS[size]
    context = new_context(browser)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.on("dialog", lambda dialog: dialog.accept())  # data-confirm's question
    return context, page


@pytest.mark.parametrize("size", slow_except(WIDTHS, keep="desktop"))
def test_a_recruiter_adds_and_removes_an_interview_cancels_and_reopens(  # type: ignore[no-untyped-def]
    live_server, browser, size
) -> None:
    from playwright.sync_api import expect

    make_user("rita", RECRUITER, first_name="Rita")
    loop = scheduled_loop()
    context, page = page_for(browser, size)
    width = WIDTHS[size][0]
    try:
        sign_in(page, live_server, "rita")
        page.wait_for_selector("button:has-text('Sign out')")
        page.goto(f"{live_server.url}/loops/{loop.pk}/")

        add = page.locator("#add-interview")
        add.locator("summary").click()
        add.get_by_label("Title").fill("System design")
        add.get_by_label("Questions").fill("1")
        add.get_by_role("button", name="Add interview").click()
        expect(page.locator(".messages")).to_contain_text(
            "Added System design with 1 question; "
            "give it a panel and a time under Panels and times."
        )
        added = Interview.objects.get(loop=loop, title="System design")
        card = page.locator(f"#interview-{added.pk}")
        expect(card.get_by_role("heading")).to_have_text("3. System design")
        screenshot(page, f"loop-interview-added-{size}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width

        card.get_by_role("button", name="Remove this interview").click()
        expect(page.locator(".messages")).to_contain_text(
            "System design is out of the loop; its panel is told."
        )
        expect(page.locator(f"#interview-{added.pk}")).to_have_count(0)
        assert not Interview.objects.filter(pk=added.pk).exists()

        page.goto(f"{live_server.url}/loops/{loop.pk}/debrief/")
        close = page.locator("#close-loop")
        close.locator("summary").click()
        close.get_by_label("Reason").fill("The candidate withdrew.")
        close.get_by_role("button", name="Cancel loop").click()
        expect(page.locator(".messages")).to_contain_text(
            "Loop cancelled; its open seats are cancelled."
        )
        expect(page.get_by_role("heading", name="Loop cancelled")).to_be_visible()
        screenshot(page, f"loop-cancelled-{size}")
        assert Loop.objects.get(pk=loop.pk).status == Loop.Status.CANCELLED
        assert not Panelist.objects.filter(interview__loop=loop, cancelled_at=None).exists()

        close = page.locator("#close-loop")
        close.locator("summary").click()
        close.get_by_label("Reason").fill("She is back in the process.")
        close.get_by_role("button", name="Reopen loop").click()
        expect(page.locator(".messages")).to_contain_text("Loop reopened.")
        screenshot(page, f"loop-reopened-{size}")
        assert Loop.objects.get(pk=loop.pk).status == Loop.Status.SCHEDULED
        assert Panelist.objects.filter(interview__loop=loop, cancelled_at=None).count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


@pytest.mark.parametrize("size", slow_except(WIDTHS, keep="desktop"))
def test_a_panelist_moves_and_swaps_their_own_interviews_questions(  # type: ignore[no-untyped-def]
    live_server, browser, size
) -> None:
    from playwright.sync_api import expect

    loop = scheduled_loop()
    serving = loop.interviews.get(order=1)
    before = list(serving.questions.order_by("order").values_list("question__title", flat=True))
    context, page = page_for(browser, size)
    try:
        sign_in(page, live_server, "ines")
        page.wait_for_selector("button:has-text('Sign out')")
        page.goto(f"{live_server.url}/interviews/{serving.pk}/kit/")
        first = page.locator("section.kitq").first
        expect(first.locator("h2")).to_have_text(f"1. {before[0]}")
        first.get_by_role("button", name="↓").click()
        expect(page.locator("section.kitq").first.locator("h2")).to_have_text(f"1. {before[1]}")

        page.locator("section.kitq").first.get_by_role("link", name="Swap").click()
        # (A full-page screenshot resizes the page: take it before typing and clicking.)
        screenshot(page, f"panelist-swap-{size}")
        page.get_by_label("Why (optional)").fill("She blogged about batching")
        option = page.locator("table tbody tr").first
        title = option.locator("td").first.inner_text()
        option.get_by_role("button", name="Use this").click()
        expect(page.locator(".messages")).to_contain_text(f"Swapped in “{title}”.")
        expect(page.locator("section.kitq").first.locator("h2")).to_have_text(f"1. {title}")
        expect(page.locator("section.kitq").first).to_contain_text("She blogged about batching")
        screenshot(page, f"panelist-kit-changed-{size}")
        assert list(
            serving.questions.order_by("order").values_list("question__title", flat=True)
        ) == [title, before[0]]
    finally:
        context.close()
