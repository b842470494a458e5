import pytest

from core.permissions import INTERVIEWER, LEAD
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.support.loops import load_starter

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def seeded():  # type: ignore[no-untyped-def]
    """The starter bank, as seed_demo loads it, and the two demo users the tests sign in
    as (password "pw"); the rest of the demo (loops, scorecards) is not needed here."""
    load_starter()
    make_user("demo-interviewer-1", INTERVIEWER)
    make_user("demo-lead", LEAD)


def test_it_lets_an_interviewer_find_and_read_a_question(live_server, page, seeded):
    sign_in(page, live_server, "demo-interviewer-1")
    page.wait_for_selector("h1:has-text('My interviews')")
    page.click("nav.mainnav >> text=Question bank")
    page.wait_for_selector("h1:has-text('Question bank')")
    rows = page.locator("table.table tbody tr")
    assert rows.count() >= 25
    screenshot(page, "bank-list")

    page.fill("input[name=q]", "NCCL")
    page.click("button:has-text('Filter')")
    page.wait_for_url("**q=NCCL**")
    titles = page.locator("table.table tbody tr td:first-child strong").all_inner_texts()
    assert titles and len(titles) < 25

    page.locator("table.table tbody tr td:first-child a").first.click()
    page.wait_for_selector("h2:has-text('As asked')")
    assert page.locator("h3.kind-core").count() == 1
    assert page.locator("h3.kind-red_flag").count() == 1
    assert page.locator("ol.followups li").count() >= 1
    screenshot(page, "bank-question")


def test_it_refuses_a_wrong_password_without_signing_in(live_server, page, seeded):
    sign_in(page, live_server, "demo-lead", "wrong")
    alert = page.locator("[role=alert]").inner_text()
    assert alert.startswith("Please enter a correct username and password")
    assert "/login/" in page.url
