"""Long unbroken words wrap instead of widening the page, on a desktop and on a phone.

A 10,000-character string and a long URL go where people type free text: the
candidate's notes, a scorecard's summary and rating notes, a question's prompt
(blockquote.prompt); a 200-character unbroken candidate name and a 120-character
question title land in headings, table cells and cards. Each page must be no wider
than the window (document.documentElement.scrollWidth). Screenshots go to
artifacts/screenshots/layout/.
"""

import pytest
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from core.permissions import INTERVIEWER, RECRUITER
from interviews.models import Candidate
from kit.models import TITLE_MAX_LENGTH, Question, QuestionVersion
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.scoring.helpers import submitted
from tests.support.loops import Built, Seat, build_loop
from tests.support.marks import slow_except

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

LONG = "Unbroken" + "x" * 9_992  # 10,000 characters, no space or hyphen to break at
URL = "https://wiki.example.com/" + "/".join(f"incident-review-{n:03d}" for n in range(40))
NAME = "Q" * 200  # Candidate.name's limit
TITLE = "T" * TITLE_MAX_LENGTH
WIDTHS = [1280, 390]
# The elements that stick out past the window's right edge, for the failure message.
OVERFLOWING = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
    .slice(0, 5)
    .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')
         + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')"""


@pytest.fixture
def loop(transactional_db: None) -> Built:  # type: ignore[no-untyped-def]
    """A loop whose candidate, question and both scorecards carry unbroken text."""
    rita = make_user("rita", RECRUITER, first_name="Rita")
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    pia = make_user("pia", INTERVIEWER, first_name="Pia")
    built = build_loop(seats=[Seat(interviewers=[ines, pia])], candidate_name=NAME, recruiter=rita)
    Candidate.objects.filter(pk=built.loop.candidate_id).update(notes=f"{LONG}\n{URL}")
    first = built.questions(built.interviews[0])[0]
    # Written before any rating exists, as an edit to the unused version would be.
    Question.objects.filter(pk=first.question_id).update(title=TITLE)
    QuestionVersion.objects.filter(pk=first.version_id).update(prompt=f"{LONG} {URL}")
    submitted(ines, built.interviews[0], notes=URL, summary=LONG)
    submitted(pia, built.interviews[0], notes=LONG, summary=URL)
    return built


def too_wide(page: Page, base: str, pages: list[tuple[str, str, str]], width: int) -> list[str]:
    """Visit each page (name, path, a long text it shows) at the width; return those
    wider than the window, and why."""
    found = []
    for name, path, text in pages:
        response = page.goto(f"{base}{path}")
        assert response is not None and response.status == 200, (name, path)
        assert text in page.locator("main").inner_text(), (name, "does not show the text")
        screenshot(page, f"layout/{name}-{width}")
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        if scroll_width > width:
            found.append(f"{name} ({path}): {scroll_width}px; {page.evaluate(OVERFLOWING)}")
    return found


@pytest.mark.parametrize("width", slow_except(WIDTHS, keep=390))
def test_long_words_wrap_on_every_page_that_shows_them(
    live_server: LiveServer, page: Page, loop: Built, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    interview = loop.interviews[0]
    candidate = loop.loop.candidate_id
    recruiter_pages = [
        ("candidate", f"/candidates/{candidate}/", LONG),
        ("candidates", "/candidates/", NAME),
        ("loops", "/loops/", NAME),
        ("loop", f"/loops/{loop.loop.pk}/", NAME),
        ("debrief", f"/loops/{loop.loop.pk}/debrief/", LONG),
    ]
    interviewer_pages = [
        ("kit", f"/interviews/{interview.pk}/kit/", LONG),
        ("scorecard", f"/interviews/{interview.pk}/scorecard/", TITLE),
        ("my-interviews", "/interviews/", NAME),
    ]

    sign_in(page, live_server, "rita")
    page.wait_for_selector("button:has-text('Sign out')")
    found = too_wide(page, live_server.url, recruiter_pages, width)
    page.context.clear_cookies()
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    found += too_wide(page, live_server.url, interviewer_pages, width)

    assert found == [], "\n".join(found)
