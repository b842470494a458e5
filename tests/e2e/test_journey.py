"""The whole journey in Chromium, through the real pages, on the starter bank.

1. A recruiter adds a candidate, builds an L5 loop from the level template, puts
   a panel on every interview and schedules it.
2. Interviewer 1 (Ines) opens her kit, scores each question against the rubric
   and submits.
3. Interviewer 2 (Omar), on the same interview, finds no trace of Ines's ratings
   or notes on any page he can reach until he has submitted his own card; then
   the debrief shows both.
4. The recruiter reads the debrief and records the decision.
5. The calibration lead recalculates from the dashboard and reads the result.

Fixtures create only the people and the bank; every step under test is a page.
Celery runs eagerly (no broker in tests), also behind the live server, which
runs in this process. Each page visited is saved to artifacts/screenshots/journey/.
"""

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from interviews.models import Interview, Loop
from kit.models import Role
from scoring.models import CalibrationJob, CalibrationSnapshot, Scorecard
from tests.conftest import make_user
from tests.e2e.conftest import SCREENSHOTS, new_context, screenshot, sign_in
from tests.support.loops import load_starter

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

CANDIDATE = "Casey Lindqvist"
EMAIL = "casey.lindqvist@private-mail.example"
PHONE = "+46 70 555 01 42"
SHARED = "Incident and system design"  # the L5 slot that seats two interviewers
# Free text unusual enough that finding it anywhere means it leaked.
INES_NOTE = "Ines-note-rollback-plan-was-thorough"
INES_SUMMARY = "Ines-summary-calm-incident-lead"
OMAR_SUMMARY = "Omar-summary-clear-design-tradeoffs"
PANELS = {
    "Training at scale": ["Pia Jensen"],
    "GPU performance and networking": ["Tao Lin"],
    "Inference and cost": ["Uma Patel"],
    SHARED: ["Ines Alvarez", "Omar Haddad"],
}


@pytest.fixture
def people() -> Role:
    """The starter bank and loop templates, a recruiter, a lead and five interviewers."""
    make_user("rita", RECRUITER, first_name="Rita", last_name="Moreno")
    make_user("leo", LEAD, first_name="Leo", last_name="Park")
    for username, full in [
        ("ines", "Ines Alvarez"),
        ("omar", "Omar Haddad"),
        ("pia", "Pia Jensen"),
        ("tao", "Tao Lin"),
        ("uma", "Uma Patel"),
    ]:
        first, last = full.split()
        make_user(username, INTERVIEWER, first_name=first, last_name=last)
    return load_starter()


@pytest.fixture
def sessions(transactional_db, browser, live_server) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """Open a signed-in page per person, each in its own browser context (own cookies)."""
    contexts = []

    def open_as(username: str):  # type: ignore[no-untyped-def]
        context = new_context(browser)
        contexts.append(context)
        page = context.new_page()
        sign_in(page, live_server, username)
        page.wait_for_selector("button:has-text('Sign out')")
        return page

    yield open_as
    for context in contexts:
        context.close()


class Shots:
    """Number the screenshots in the order the pages were visited."""

    def __init__(self) -> None:
        self.n = 0
        (SCREENSHOTS / "journey").mkdir(parents=True, exist_ok=True)
        for old in (SCREENSHOTS / "journey").glob("*.png"):
            old.unlink()

    def __call__(self, page, name: str) -> None:  # type: ignore[no-untyped-def]
        self.n += 1
        screenshot(page, f"journey/{self.n:02d}-{name}")


def wait_saved(page) -> None:  # type: ignore[no-untyped-def]
    expect(page.locator("#autosave")).to_have_text(
        re.compile(r"^Draft saved at \d\d:\d\d:\d\d \S+$")
    )
    expect(page.locator("#scorecard")).to_have_attribute("data-saved", "1")


def score(page, ratings: list[int], notes: list[str], recommendation: str, summary: str) -> None:  # type: ignore[no-untyped-def]
    """Fill the scorecard the way an interviewer does, question by question."""
    questions = page.locator("section.sq")
    assert questions.count() == len(ratings)
    for n, (rating, note) in enumerate(zip(ratings, notes, strict=True)):
        q = questions.nth(n)
        # Every core point covered; the first "strong answer adds" point too on a 4.
        core = q.locator("h3.kind-core + ul input[type=checkbox]")
        assert core.count() >= 1
        for i in range(core.count()):
            core.nth(i).check()
        if rating == 4:
            q.locator("h3.kind-strong + ul input[type=checkbox]").first.check()
        follow_ups = q.locator("input[name$='-follow_ups']")
        if follow_ups.count():
            follow_ups.first.check()
        q.locator(f"label.anchor:has(input[name$='-rating'][value='{rating}'])").click()
        q.locator("textarea[name$='-notes']").fill(note)
    page.locator(
        f"label.anchor:has(input[name='recommendation'][value='{recommendation}'])"
    ).click()
    page.fill("textarea[name=summary]", summary)
    wait_saved(page)


# A long multi-persona journey: slow; tests/e2e/test_scorecard_browser.py keeps a short one.
@pytest.mark.slow
def test_the_whole_journey_from_candidate_to_calibration(
    live_server, sessions, people: Role
) -> None:  # type: ignore[no-untyped-def]
    shot = Shots()
    url = live_server.url

    # --- 1. The recruiter builds the loop ----------------------------------------------
    rita = sessions("rita")
    expect(rita.locator("h1")).to_have_text("Interview loops")
    shot(rita, "recruiter-loops-empty")
    rita.click("nav.mainnav >> text=Candidates")
    expect(rita.locator("h1")).to_have_text("Candidates")
    shot(rita, "recruiter-candidates")
    rita.click("a:has-text('Add candidate')")
    expect(rita.locator("h1")).to_have_text("Add candidate")
    rita.get_by_label("Name").fill(CANDIDATE)
    rita.get_by_label("Email").fill(EMAIL)
    rita.get_by_label("Phone").fill(PHONE)
    rita.get_by_label("Notes").fill("Referred by the platform team; prefers mornings.")
    shot(rita, "recruiter-candidate-new")
    rita.click("button:has-text('Save')")

    expect(rita.locator(".messages")).to_contain_text(f"Added {CANDIDATE}.")
    expect(rita.locator("h1")).to_have_text(CANDIDATE)
    shot(rita, "recruiter-candidate")
    rita.click(".actions a:has-text('Build a loop')")

    expect(rita.locator("h1")).to_have_text("Build a loop")
    expect(rita.locator("select[name=candidate] option:checked")).to_have_text(CANDIDATE)
    # Arriving with the candidate alone is a fresh start, not a form with errors.
    expect(rita.locator(".error")).to_have_count(0)
    shot(rita, "recruiter-loop-new")
    rita.select_option("select[name=role]", label=people.name)
    rita.select_option("select[name=level]", label="L5")
    rita.click("button:has-text('Preview')")
    expect(rita.locator("section.slot h2")).to_have_text(
        [f"{n}. {title}" for n, title in enumerate(PANELS, start=1)]
    )
    assert rita.locator("ol.picks li").count() == 10  # 3 + 3 + 2 + 2 questions
    shot(rita, "recruiter-loop-preview")
    rita.click("button:has-text('Save this loop')")

    expect(rita.locator(".messages")).to_contain_text("Loop saved.")
    expect(rita.locator(".pagehead .status")).to_have_text(re.compile("^draft$", re.I))
    shot(rita, "recruiter-loop-saved")
    loop_url = rita.url
    day = (timezone.localtime() + timedelta(days=1)).date()
    # One form for every interview's panel and time, one Save.
    for n, (title, panel) in enumerate(PANELS.items()):
        slot = rita.locator("form#schedule fieldset.slot").nth(n)
        expect(slot.locator("legend").first).to_contain_text(f"{n + 1}. {title}")
        for name in panel:
            slot.locator("ul.people label", has_text=name).locator("input").check()
        slot.get_by_label("Starts").fill(f"{day}T{9 + n * 2:02d}:00")
        slot.get_by_label("Ends").fill(f"{day}T{10 + n * 2:02d}:00")
    rita.get_by_role("button", name="Save panels and times").click()
    expect(rita.locator(".messages")).to_contain_text("Saved the panels and times of")
    rita.goto(loop_url)
    expect(rita.locator(".pagehead .status")).to_have_text(re.compile("^scheduled$", re.I))
    for title, panel in PANELS.items():
        section = rita.locator("section.card[id^=interview-]", has_text=title)
        expect(section.locator(".tag")).to_have_text(panel)
        expect(section).not_to_contain_text("not scheduled")
    shot(rita, "recruiter-loop-scheduled")

    loop = Loop.objects.get(candidate__name=CANDIDATE)
    shared = loop.interviews.get(title=SHARED)
    assert loop.status == Loop.Status.SCHEDULED
    assert sorted(p.user.username for p in shared.panel.all()) == ["ines", "omar"]
    # The shared interview takes place: a card is submitted only once its interview has
    # started, and the schedule form takes no time in the past, so the clock moves here.
    held = timezone.now() - timedelta(hours=2)
    Interview.objects.filter(pk=shared.pk).update(
        scheduled_start=held, scheduled_end=held + timedelta(hours=1)
    )

    # --- 2. Interviewer 1 reads the kit and submits -----------------------------------
    ines = sessions("ines")
    expect(ines.locator("h1")).to_have_text("My interviews")
    row = ines.locator("table.table tr", has_text=SHARED)
    expect(row).to_contain_text(CANDIDATE)
    shot(ines, "ines-my-interviews")
    row.locator("a:has-text('Kit')").click()

    expect(ines.locator("h1")).to_contain_text(f"{SHARED} · {CANDIDATE}")
    assert ines.locator("section.kitq").count() == 2
    expect(ines.locator("section.kitq h3.kind-core").first).to_be_visible()
    expect(ines.locator("ol.followups li").first).to_be_visible()
    # Interviewers see no candidate contact details.
    for secret in (EMAIL, PHONE):
        assert secret not in ines.content()
    shot(ines, "ines-kit")
    ines.click("a:has-text('Write scorecard')")

    expect(ines.locator("h1")).to_contain_text(f"Scorecard: {SHARED}")
    expect(ines.locator("nav.mainnav a[aria-current=page]")).to_have_text("My interviews")
    # "Why not asked" appears once "Not asked" is ticked, and goes again.
    first = ines.locator("section.sq").first
    expect(first.get_by_label("Why not asked")).to_be_hidden()
    first.get_by_label("Not asked", exact=True).check()
    expect(first.get_by_label("Why not asked")).to_be_visible()
    first.get_by_label("Not asked", exact=True).uncheck()
    expect(first.get_by_label("Why not asked")).to_be_hidden()
    score(
        ines,
        ratings=[4, 3],
        notes=[INES_NOTE, "Sized the blast radius before acting."],
        recommendation="strong_yes",
        summary=INES_SUMMARY,
    )
    shot(ines, "ines-scorecard-filled")
    ines.click("button:has-text('Submit scorecard')")

    ines.wait_for_url(f"{url}/loops/{loop.pk}/debrief/")
    expect(ines.locator(".messages")).to_contain_text("Scorecard submitted.")
    expect(ines.get_by_text(INES_SUMMARY)).to_be_visible()
    expect(ines.locator("p.muted", has_text="Waiting for")).to_contain_text("Omar Haddad")
    shot(ines, "ines-debrief-after-submit")

    # --- 3. Interviewer 2 is blind until he submits -----------------------------------
    omar = sessions("omar")
    leaks = (INES_NOTE, INES_SUMMARY, "Sized the blast radius")

    def assert_blind(page) -> None:  # type: ignore[no-untyped-def]
        html = page.content()
        for text in leaks:
            assert text not in html, f"{text!r} leaked on {page.url}"

    my_interviews = omar.url
    row = omar.locator("table.table tr", has_text=SHARED)
    assert_blind(omar)
    shot(omar, "omar-my-interviews")
    row.locator("a:has-text('Kit')").click()
    expect(omar.locator("h1")).to_contain_text(SHARED)
    assert_blind(omar)
    shot(omar, "omar-kit")

    omar.goto(my_interviews)
    row.locator("a:has-text('Debrief')").click()
    expect(omar.locator(".notice")).to_contain_text("Feedback stays blind until you submit.")
    assert omar.locator("table.grid").count() == 0
    assert omar.locator(".rec, .score").count() == 0
    assert_blind(omar)
    shot(omar, "omar-debrief-blind")
    # The notice leads to the card he owes, though he has not opened it yet.
    omar.click(f".notice a:has-text('Finish my scorecard for {SHARED}')")

    expect(omar.locator("h1")).to_contain_text(f"Scorecard: {SHARED}")
    assert omar.locator("input:checked").count() == 0
    for area in omar.locator("textarea").all():
        expect(area).to_have_value("")
    assert_blind(omar)
    shot(omar, "omar-scorecard-blank")

    # The API under the same session refuses the same: his list holds only his draft.
    response = omar.request.get(f"{url}/api/v1/scorecards/")
    assert response.ok
    assert INES_NOTE not in response.text() and INES_SUMMARY not in response.text()
    ines_card = Scorecard.objects.get(interviewer__username="ines")
    assert (ines_card.status, ines_card.recommendation) == ("submitted", "strong_yes")
    assert [r.rating for r in ines_card.ratings.order_by("item__order")] == [4, 3]
    assert all(r.checked.exists() for r in ines_card.ratings.all())
    assert omar.request.get(f"{url}/api/v1/scorecards/{ines_card.pk}/").status == 404

    score(
        omar,
        ratings=[3, 2],
        notes=["Good rollback instinct.", "Missed capacity headroom."],
        recommendation="yes",
        summary=OMAR_SUMMARY,
    )
    assert_blind(omar)  # still nothing after his own autosaves
    shot(omar, "omar-scorecard-filled")
    omar.click("button:has-text('Submit scorecard')")

    omar.wait_for_url(f"{url}/loops/{loop.pk}/debrief/")
    expect(omar.locator(".notice")).to_have_count(0)
    # One grid for the interview, with its own two questions: every cell filled.
    expect(omar.locator("h2.grid-title")).to_have_text([f"4. {SHARED}"])
    expect(omar.locator("table.grid thead th")).to_have_count(4)
    grid = omar.locator("table.grid tbody tr")
    expect(grid).to_have_count(2)
    ines_row = grid.filter(has_text="Ines Alvarez")
    expect(ines_row.locator(".rec")).to_have_text(re.compile("^strong yes$", re.I))
    expect(ines_row.locator(".score")).to_have_text(["4", "3"])
    expect(grid.filter(has_text="Omar Haddad").locator(".score")).to_have_text(["3", "2"])
    expect(omar.get_by_text(INES_SUMMARY)).to_be_visible()
    expect(omar.get_by_text(INES_NOTE)).to_be_visible()
    expect(omar.get_by_text(OMAR_SUMMARY)).to_be_visible()
    shot(omar, "omar-debrief-open")

    # --- 4. The recruiter reads the debrief and decides ------------------------------
    rita.click("nav.mainnav >> text=Loops")
    row = rita.locator("table.table tr", has_text=CANDIDATE)
    expect(row.locator(".status")).to_have_text(re.compile("in progress", re.I))
    shot(rita, "recruiter-loops")
    row.locator("a:has-text('Debrief')").click()

    expect(rita.locator("h1")).to_have_text(f"Debrief: {CANDIDATE}")
    expect(rita.locator("table.grid tbody tr")).to_have_count(2)
    expect(rita.get_by_text(INES_SUMMARY)).to_be_visible()
    expect(rita.get_by_text(OMAR_SUMMARY)).to_be_visible()
    # Three panels have not reported (their interviews, all but the shared one, are still
    # ahead): a hire waits for them, a no-hire may close the loop.
    notice = rita.locator("p.notice")
    expect(notice).to_contain_text("3 scorecards still outstanding; 3 interviews are still ahead")
    expect(notice).to_contain_text("A hire waits until every interview has happened")
    expect(rita.locator("input[name=decision][value=hire]")).to_be_disabled()
    shot(rita, "recruiter-debrief")
    rita.locator("label.anchor:has(input[name=decision][value=no_hire])").click()
    rita.get_by_label("Rationale").fill("Withdrew after the shared interview (accepted elsewhere).")
    rita.click("button:has-text('Record decision')")

    expect(rita.locator(".messages")).to_contain_text("Decision recorded.")
    expect(rita.locator(".pagehead")).to_contain_text("Decision: No hire by Rita Moreno")
    expect(rita.locator("button:has-text('Record decision')")).to_have_count(0)
    shot(rita, "recruiter-decided")
    loop.refresh_from_db()
    assert (loop.status, loop.decision, loop.decided_by.username) == ("decided", "no_hire", "rita")

    # --- 5. The calibration lead recalculates -----------------------------------------
    leo = sessions("leo")
    expect(leo.locator("h1")).to_have_text("Question bank")
    shot(leo, "lead-question-bank")
    leo.click("nav.mainnav >> text=Calibration")
    expect(leo.locator("h1")).to_have_text("Calibration")
    expect(leo.locator("select[name=role] option:checked")).to_have_text(people.name)
    shot(leo, "lead-calibration")
    runs_before = CalibrationJob.objects.count()
    leo.click("button:has-text('Recalculate now')")

    # Eager Celery: the run finished before the redirect; the page shows it done.
    leo.wait_for_url(re.compile(rf"/calibration/\?role={people.pk}&level=&job=\d+$"))
    expect(leo.locator("#run")).to_have_attribute("data-status", "done")
    expect(leo.locator("#run-bar")).to_have_attribute("value", "100")
    expect(leo.locator(".runbar .hint")).to_contain_text("from 4 ratings.")
    interviewers = leo.locator("section.card", has=leo.locator("h2", has_text="Interviewers"))
    expect(interviewers.locator("tbody td:first-child")).to_have_text(
        ["Ines Alvarez ines", "Omar Haddad omar"]
    )
    candidates = leo.locator("section.card", has=leo.locator("h2", has_text="Candidates"))
    expect(candidates.locator("tbody td:first-child")).to_have_text([CANDIDATE])
    shot(leo, "lead-calibration-recalculated")

    assert CalibrationJob.objects.count() >= runs_before
    snapshot = CalibrationSnapshot.objects.filter(role=people, level=None).latest("computed_at")
    assert snapshot.result["inputs"]["ratings"] == 4
    assert snapshot.result["inputs"]["interviewers"] == 2
