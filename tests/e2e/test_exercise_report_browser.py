"""The exercise report in Chromium at a phone's width (390 px) and a laptop's (1280 px):
no serious or critical axe finding, each wide table a labelled region reached by the
keyboard and scrolled in place (the page itself never scrolls sideways), and no number
or column label broken over two lines. The screenshots land in
artifacts/screenshots/a11y/exercise-report-<width>.png."""

import pytest
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from core.permissions import INTERVIEWER, LEAD
from scoring.exercises import services
from scoring.models import CalibrationExercise
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.test_accessibility_browser import blocking_violations
from tests.support.factories import make_question
from tests.support.marks import slow_except

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Ratings of the five answers by each interviewer (1-4); Ulrike scores three only.
SCORES = {
    "ines": [4, 3, 2, 1, 3],
    "omar": [3, 3, 1, 1, 4],
    "pia": [4, 2, 2, 2, 3],
    "maximilian-schoenberger": [2, 4, 1, 2, 4],
    "ulrike": [4, 3, 2],
}


def closed_exercise() -> CalibrationExercise:
    lead = make_user("leo", LEAD, first_name="Leo")
    people = {
        name: make_user(name, INTERVIEWER, first_name=name.split("-")[0].title(), last_name="")
        for name in SCORES
    }
    people["maximilian-schoenberger"].last_name = "Schönberger-Wittgenstein"
    people["maximilian-schoenberger"].save()
    question = make_question(title="KV cache sizing", prompt="How big is the KV cache?")
    assert question.current is not None
    rubric = list(question.current.rubric.order_by("order"))
    exercise = services.exercise_create(
        title="November calibration: KV cache sizing for long-context serving",
        question=question,
        answers=[
            services.AnswerInput(
                transcript=f"Answer {n}: layers times heads times head size, per token.",
                key_rating=key,
                key_checked=tuple(item.pk for item in rubric[: 1 + n % 3]),
            )
            for n, key in enumerate([4, 3, 2, 1, 3], start=1)
        ],
        participants=list(people.values()),
        by=lead,
    )
    answers = list(exercise.answers.order_by("order"))
    for name, ratings in SCORES.items():
        services.exercise_score(
            exercise=exercise,
            by=people[name],
            scores=[(a.pk, r, [rubric[0].pk]) for a, r in zip(answers, ratings, strict=False)],
        )
    services.exercise_close(exercise=exercise, by=lead)
    return exercise


# Per region: whether its content is wider than it (it scrolls), and per number cell
# and column label, how many lines its text takes.
LAYOUT = """() => {
  const lines = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  };
  return {
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    regions: [...document.querySelectorAll('.table-scroll')].map(r => ({
      label: r.getAttribute('aria-label'), role: r.getAttribute('role'),
      tabindex: r.getAttribute('tabindex'), scrolls: r.scrollWidth > r.clientWidth,
    })),
    broken: [...document.querySelectorAll('.table-scroll th, .table-scroll td.num')]
      .filter(c => c.textContent.trim() && lines(c) > 1).map(c => c.textContent.trim()),
  };
}"""


def report_at(page: Page, live_server: LiveServer, exercise: CalibrationExercise, width: int):  # type: ignore[no-untyped-def]
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/calibration/exercises/{exercise.pk}/")
    page.wait_for_selector("h2:has-text('Agreement')")
    screenshot(page, f"a11y/exercise-report-{width}")
    return blocking_violations(page), page.evaluate(LAYOUT)


def tab_to_region(page: Page) -> str:
    """Press Tab until a table region has the focus; return its label."""
    for _ in range(40):
        page.keyboard.press("Tab")
        label = page.evaluate(
            "() => document.activeElement.matches('.table-scroll')"
            " ? document.activeElement.getAttribute('aria-label') : null"
        )
        if label:
            return str(label)
    raise AssertionError("no table region took the focus from the keyboard")


@pytest.mark.parametrize("width", slow_except([390, 1280], keep=390))
def test_the_exercise_report_reads_at_a_phones_and_a_laptops_width(
    live_server: LiveServer, page: Page, width: int
) -> None:
    exercise = closed_exercise()
    page.set_viewport_size({"width": width, "height": 900})

    found, layout = report_at(page, live_server, exercise, width)

    assert found == [], "\n".join(found)
    assert layout["pageOverflow"] <= 0
    assert [(r["label"], r["role"], r["tabindex"]) for r in layout["regions"]] == [
        (REGION, "region", "0")
    ]
    assert layout["regions"][0]["scrolls"] is (width == 390)
    assert layout["broken"] == []
    assert tab_to_region(page) == REGION
    if width == 390:
        # Once it has the focus, the region scrolls from the keyboard.
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.activeElement.scrollLeft > 0")
        # Its far side, for the screenshot.
        page.evaluate("() => { const r = document.activeElement; r.scrollLeft = r.scrollWidth; }")
        screenshot(page, f"a11y/exercise-report-{width}-scrolled")


REGION = "Each interviewer against the panel median and the key"
