"""Forms answered with errors, in Chromium at a laptop's and a phone's width: focus goes to
the summary at the top, each message is beside its field, and the summary's links lead there."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from core.permissions import INTERVIEWER, LEAD
from kit.models import Question
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.test_accessibility_browser import blocking_violations
from tests.support.factories import make_question
from tests.support.loops import Built, Seat, build_loop
from tests.support.marks import slow_except

pytestmark = pytest.mark.browser

WIDTHS = [pytest.param(1280, id="laptop"), pytest.param(390, id="phone")]


@pytest.fixture
def loop(transactional_db: None) -> Built:  # type: ignore[no-untyped-def]
    """One interview with four questions, Ines alone on its panel."""
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    return build_loop(seats=[Seat(interviewers=[ines])])


@pytest.fixture
def question(transactional_db: None) -> Question:  # type: ignore[no-untyped-def]
    make_user("lena", LEAD, first_name="Lena")
    return make_question(title="Sizing a KV cache", min_level="L4", max_level="L6")


def focused_id(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.evaluate("document.activeElement && document.activeElement.id"))


@pytest.mark.parametrize("width", slow_except(WIDTHS, keep="laptop"))
def test_an_incomplete_scorecard_opens_on_its_errors(
    live_server, page, loop: Built, width: int
) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    interview = loop.interviews[0]
    q1, q2, q3, q4 = loop.questions(interview)
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")

    # Rate the first and the last question; leave two unrated and no recommendation.
    for item in (q1, q4):
        page.locator(f"label.anchor:has(input[name='q{item.pk}-rating'][value='3'])").click()
    expect(page.locator("#scorecard")).to_have_attribute("data-saved", "1")
    page.click("button:has-text('Submit scorecard')")

    summary = page.locator("#error-summary")
    expect(summary).to_be_visible()
    expect(summary).to_be_focused()
    assert focused_id(page) == "error-summary"
    expect(summary).to_be_in_viewport()
    expect(summary.locator("h2")).to_have_text(
        "Your scorecard is not submitted yet: 3 things to fix"
    )
    links = summary.locator("a")
    assert [links.nth(n).get_attribute("href") for n in range(links.count())] == [
        f"#q{q2.pk}-rating",
        f"#q{q3.pk}-rating",
        "#recommendation",
    ]
    plain = "Choose a rating, or tick “Not asked” and say why."
    for item in (q2, q3):
        expect(page.locator(f"#q{item.pk}-rating-error")).to_have_text(plain)
        group = page.locator(f"#q{item.pk}-rating")
        expect(group).to_have_attribute("aria-invalid", "true")
        expect(group).to_have_attribute("aria-describedby", f"q{item.pk}-rating-error")
    for item in (q1, q4):
        expect(page.locator(f"#q{item.pk}-rating-error")).to_have_count(0)
    expect(page.locator("#recommendation-error")).to_have_text("Choose an overall recommendation.")
    expect(page.locator("#submit-status")).to_contain_text("Not submitted: 3 things to fix")
    screenshot(page, f"form-errors-scorecard-{width}")
    assert blocking_violations(page) == []  # the summary and messages are legible ARIA

    # The summary's first link leads to the first question to fix, which takes focus.
    links.first.click()
    expect(page.locator(f"#q{q2.pk}-rating")).to_be_focused()
    expect(page.locator(f"#q{q2.pk}-rating-error")).to_be_in_viewport()
    screenshot(page, f"form-errors-scorecard-{width}-first-error")

    card = User.objects.get(username="ines").scorecards.get()
    assert (card.status, card.submitted_at) == ("draft", None)
    assert [(r.item_id, r.rating) for r in card.ratings.order_by("item__order")] == [
        (q1.pk, 3),
        (q4.pk, 3),
    ]


@pytest.mark.parametrize("width", slow_except(WIDTHS, keep="laptop"))
def test_a_reversed_level_range_in_the_question_editor_is_shown_at_the_top(
    live_server, page, question: Question, width: int
) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    sign_in(page, live_server, "lena")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/bank/questions/{question.pk}/edit/")
    page.select_option("select[name=min_level]", label="L6")
    page.select_option("select[name=max_level]", label="L4")
    page.click("button:has-text('Save')")

    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    assert focused_id(page) == "error-summary"
    expect(summary).to_be_in_viewport()
    expect(summary.locator("a")).to_have_text(
        [re.compile(r"^Levels, from: The level range is reversed: L6 is above L4\.")]
    )
    message = page.locator("#id_min_level_error")
    expect(message).to_have_text(
        "The level range is reversed: L6 is above L4. Choose a “From” level at or below the"
        " “To” level."
    )
    expect(page.locator("#id_min_level")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#id_min_level")).to_have_attribute(
        "aria-describedby", re.compile(r"\bid_min_level_error\b")
    )
    screenshot(page, f"form-errors-question-editor-{width}")
    assert blocking_violations(page) == []

    summary.locator("a").first.click()
    expect(page.locator("#id_min_level")).to_be_focused()
    expect(message).to_be_in_viewport()
    screenshot(page, f"form-errors-question-editor-{width}-first-error")

    question.refresh_from_db()
    assert (question.min_level.name, question.max_level.name) == ("L4", "L6")
