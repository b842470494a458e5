"""An interviewer writes a scorecard in Chromium: autosave, reload, submit, debrief."""

import re
import zoneinfo
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from core.permissions import INTERVIEWER
from interviews import services as interview_services
from interviews.models import Interview
from scoring.models import QuestionRating
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.scoring.helpers import rubric, submitted
from tests.support.factories import make_question
from tests.support.loops import Built, Seat, build_loop

pytestmark = pytest.mark.browser

PIA_SUMMARY = "Pia-was-convinced-by-the-paged-attention-answer"


@pytest.fixture
def loop(transactional_db: None) -> Built:  # type: ignore[no-untyped-def]
    """One interview, Ines and Pia on its panel; Pia has already submitted her card."""
    ines = make_user("ines", INTERVIEWER, first_name="Ines")
    pia = make_user("pia", INTERVIEWER, first_name="Pia")
    built = build_loop(seats=[Seat(interviewers=[ines, pia])])
    submitted(pia, built.interviews[0], rating=4, summary=PIA_SUMMARY)
    return built


def wait_saved(page) -> None:  # type: ignore[no-untyped-def]
    """Wait until every edit so far is saved (the page's data-saved, see scorecard.js)."""
    expect(page.locator("#autosave")).to_have_text(
        re.compile(r"^Draft saved at \d\d:\d\d:\d\d \S+$")
    )
    expect(page.locator("#scorecard")).to_have_attribute("data-saved", "1")


def test_it_lets_an_interviewer_autosave_reload_submit_and_read_the_debrief(
    live_server, page, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    interview = loop.interviews[0]
    items = loop.questions(interview)
    debrief_url = f"{live_server.url}/loops/{loop.loop.pk}/debrief/"
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")

    # Blind before submitting: Pia's card is not on the debrief.
    page.goto(debrief_url)
    expect(page.locator(".notice")).to_contain_text("Feedback stays blind until you submit.")
    assert PIA_SUMMARY not in page.content()
    screenshot(page, "scorecard-debrief-blind")

    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")
    expect(page.locator("h1")).to_contain_text("Scorecard: Interview 1")
    expect(page.locator("#autosave")).to_have_text("Drafts save as you type.")
    expect(page.locator("#card-status")).to_have_text("Not started")
    expect(page.get_by_text("Covered the core points", exact=True).first).to_be_visible()

    # Question 1: tick its core points, rate it 3; then the overall recommendation.
    q1 = items[0]
    core = [r.pk for r in rubric(q1, "core")]
    for pk in core:
        page.check(f"input[name='q{q1.pk}-checked'][value='{pk}']")
    page.locator(f"label.anchor:has(input[name='q{q1.pk}-rating'][value='3'])").click()
    page.locator("label.anchor:has(input[name='recommendation'][value='yes'])").click()
    page.fill(f"textarea[name='q{q1.pk}-notes']", "Explained continuous batching well.")
    wait_saved(page)
    expect(page.locator("#card-status")).to_have_text("Draft")  # the first save started it
    screenshot(page, "scorecard-draft-saved")

    # Mid-way reload: the draft is intact.
    page.reload()
    for pk in core:
        assert page.is_checked(f"input[name='q{q1.pk}-checked'][value='{pk}']")
    red = rubric(q1, "red_flag")[0]
    assert not page.is_checked(f"input[name='q{q1.pk}-checked'][value='{red.pk}']")
    assert page.is_checked(f"input[name='q{q1.pk}-rating'][value='3']")
    assert not page.is_checked(f"input[name='q{q1.pk}-rating'][value='4']")
    assert page.is_checked("input[name='recommendation'][value='yes']")
    expect(page.locator(f"textarea[name='q{q1.pk}-notes']")).to_have_value(
        "Explained continuous batching well."
    )

    # Finish the card and submit it.
    for item, value in zip(items[1:], (2, 4, 3), strict=True):
        page.locator(f"label.anchor:has(input[name='q{item.pk}-rating'][value='{value}'])").click()
    page.fill("textarea[name=summary]", "Solid serving depth; would hire.")
    wait_saved(page)
    screenshot(page, "scorecard-complete")
    page.click("button:has-text('Submit scorecard')")

    page.wait_for_url(debrief_url)
    expect(page.locator(".messages")).to_contain_text("Scorecard submitted.")
    expect(page.get_by_text(PIA_SUMMARY)).to_be_visible()
    expect(page.get_by_text("Solid serving depth; would hire.")).to_be_visible()
    assert page.locator("table.grid tbody tr").count() == 2
    screenshot(page, "scorecard-debrief-open")

    card = User.objects.get(username="ines").scorecards.get()
    assert (card.status, card.recommendation) == ("submitted", "yes")
    assert [r.rating for r in card.ratings.order_by("item__order")] == [3, 2, 4, 3]


class Wire:
    """What the scorecard page sends from now on, in order: each autosave's start and end,
    and the form's post."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.events: list[str] = []
        self.mine: set[object] = set()
        context = page.context
        context.on("request", self._sent)
        context.on("requestfinished", lambda r: self._ended(r, "answered"))
        context.on("requestfailed", lambda r: self._ended(r, "failed"))

    @staticmethod
    def _kind(request) -> str | None:  # type: ignore[no-untyped-def]
        if request.method != "POST" or not request.url.endswith("/scorecard/"):
            return None
        return "autosave" if "x-autosave" in request.headers else "post"

    def _sent(self, request) -> None:  # type: ignore[no-untyped-def]
        if kind := self._kind(request):
            self.mine.add(request)
            self.events.append(f"{kind} sent")

    def _ended(self, request, what: str) -> None:  # type: ignore[no-untyped-def]
        if request in self.mine:  # not one sent before the test started watching
            self.events.append(f"{self._kind(request)} {what}")

    def around_the_post(self) -> tuple[list[str], list[str]]:
        """Return the events before the form's post was sent, and after."""
        at = self.events.index("post sent")
        return self.events[:at], self.events[at + 1 :]


def submit_and_check_the_wire(page, live_server, loop: Built, wire: Wire) -> None:  # type: ignore[no-untyped-def]
    page.click("button:has-text('Submit scorecard')")
    page.wait_for_url(f"{live_server.url}/loops/{loop.loop.pk}/debrief/")
    # The scorecard page is gone: whatever it sent, it has sent.
    before, after = wire.around_the_post()
    assert [e for e in after if e.startswith("autosave")] == [], wire.events
    # Every autosave sent before the post had its answer before the post left.
    assert before.count("autosave sent") == before.count("autosave answered"), wire.events


def rate_everything_and_watch(page, live_server, loop: Built) -> Wire:  # type: ignore[no-untyped-def]
    """Sign Ines in, rate every question and recommend, wait until saved; watch from then on."""
    interview = loop.interviews[0]
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")
    for item, value in zip(loop.questions(interview), (3, 2, 4, 3), strict=True):
        page.locator(f"label.anchor:has(input[name='q{item.pk}-rating'][value='{value}'])").click()
    page.locator("label.anchor:has(input[name='recommendation'][value='yes'])").click()
    wait_saved(page)
    return Wire(page)


@pytest.mark.slow  # autosave timing race
def test_submitting_straight_after_typing_sends_no_late_autosave(
    live_server, page, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    wire = rate_everything_and_watch(page, live_server, loop)

    # Type and submit at once: leaving the box queues an autosave, and so does leaving
    # the page with unsaved typing. Neither may reach the card after it is submitted.
    page.fill("textarea[name=summary]", "Typed, then submitted at once.")
    submit_and_check_the_wire(page, live_server, loop, wire)
    card = User.objects.get(username="ines").scorecards.get()
    assert (card.status, card.summary) == ("submitted", "Typed, then submitted at once.")


@pytest.mark.slow  # autosave timing race
def test_submitting_while_an_autosave_is_on_the_wire_waits_for_its_answer(
    live_server, page, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    wire = rate_everything_and_watch(page, live_server, loop)
    # The network (or a busy server) holds the next autosave until the test lets it go:
    # the machine at its slowest, made certain.
    held: list = []
    page.route(
        "**/scorecard/",
        lambda route: (
            held.append(route) if "x-autosave" in route.request.headers else route.continue_()
        ),
    )

    with page.expect_request(lambda r: "x-autosave" in r.headers):
        page.fill("textarea[name=summary]", "Held on the wire, then submitted.")
        page.locator("textarea[name=summary]").blur()
    page.click("button:has-text('Submit scorecard')")
    expect(page.locator("#autosave")).to_have_text("Saving your last change first…")
    assert "post sent" not in wire.events  # the post waits for the autosave's answer
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_url(f"{live_server.url}/loops/{loop.loop.pk}/debrief/")
    before, after = wire.around_the_post()
    assert [e for e in after if e.startswith("autosave")] == [], wire.events
    assert before.count("autosave sent") == before.count("autosave answered") == 1, wire.events
    card = User.objects.get(username="ines").scorecards.get()
    assert (card.status, card.summary) == ("submitted", "Held on the wire, then submitted.")


def test_a_second_tab_is_told_when_the_first_saved_the_draft_and_stops_saving(
    live_server, page, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    interview = loop.interviews[0]
    url = f"{live_server.url}/interviews/{interview.pk}/scorecard/"
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(url)
    phone = page.context.new_page()  # the same session, another tab
    phone.goto(url)

    page.fill("textarea[name='summary']", "Written on the laptop")
    wait_saved(page)
    phone.fill("textarea[name='summary']", "Typed on the phone")

    alert = phone.locator("#changed-elsewhere")
    expect(alert).to_contain_text("This draft was changed in another tab or on another device.")
    expect(alert.get_by_role("button", name="Reload")).to_be_visible()
    screenshot(phone, "scorecard-changed-elsewhere")
    phone.fill("textarea[name='summary']", "Typed on the phone, again")
    expect(phone.locator("#autosave")).to_have_text(
        "Not saved: this draft was changed elsewhere. Reload to continue."
    )

    # Nothing the stale tab typed reached the draft; reloading shows the laptop's.
    alert.get_by_role("button", name="Reload").click()
    expect(phone.locator("textarea[name='summary']")).to_have_value("Written on the laptop")
    expect(phone.locator("#changed-elsewhere")).to_have_count(0)


def test_a_page_opened_before_a_question_was_swapped_is_told_and_rates_nothing(
    live_server, page, transactional_db
) -> None:  # type: ignore[no-untyped-def]
    # Nobody has rated yet, so the recruiter may still swap a question.
    loop = build_loop(seats=[Seat(interviewers=[make_user("ines", INTERVIEWER)])])
    interview = loop.interviews[0]
    first = loop.questions(interview)[0]
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")
    expect(page.locator(f"#item-{first.pk} h2")).to_contain_text("Slot 1 question 1")

    # The recruiter swaps the first question while Ines has the page open, unrated.
    extra = make_question(
        role=loop.loop.role, title="Slot 1 question 5", competencies=[f"{loop.loop.role_id}-slot-1"]
    )
    interview_services.interview_question_swap(item=first, question=extra)
    page.locator(f"label.anchor:has(input[name='q{first.pk}-rating'][value='3'])").click()

    swapped = "a question was swapped for another since you opened this page. Reload to continue."
    expect(page.locator("#autosave")).to_have_text(f"Not saved: {swapped}")
    alert = page.locator("#changed-elsewhere")
    expect(alert).to_contain_text(
        "A question of this interview was swapped for another since you opened this page."
    )
    screenshot(page, "scorecard-question-swapped")
    assert not QuestionRating.objects.exists()

    # Reloading shows the question the interview now holds, ready to rate.
    alert.get_by_role("button", name="Reload").click()
    expect(page.locator(f"#item-{first.pk} h2")).to_contain_text("Slot 1 question 5")
    page.locator(f"label.anchor:has(input[name='q{first.pk}-rating'][value='3'])").click()
    wait_saved(page)
    assert list(QuestionRating.objects.values_list("version__question__title", "rating")) == [
        ("Slot 1 question 5", 3)
    ]


def test_ticking_not_asked_clears_and_disables_the_questions_answers(
    live_server, page, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    interview = loop.interviews[0]
    q1 = loop.questions(interview)[0]
    core = rubric(q1, "core")[0]
    rating = f"input[name='q{q1.pk}-rating']"
    tick = f"input[name='q{q1.pk}-checked'][value='{core.pk}']"
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")
    page.check(tick)
    page.locator(f"label.anchor:has({rating}[value='3'])").click()
    wait_saved(page)

    page.check(f"input[name='q{q1.pk}-not_asked']")
    page.fill(f"input[name='q{q1.pk}-reason']", "Ran out of time")
    expect(page.locator(f"{rating}[value='3']")).to_be_disabled()
    expect(page.locator(tick)).to_be_disabled()
    assert not page.is_checked(tick) and not page.is_checked(f"{rating}[value='3']")
    wait_saved(page)  # the autosave posts no answers for the question, so it is not refused
    screenshot(page, "scorecard-not-asked")

    page.reload()
    assert page.is_checked(f"input[name='q{q1.pk}-not_asked']")
    expect(page.locator(tick)).to_be_disabled()
    assert not page.is_checked(f"{rating}[value='3']")

    page.uncheck(f"input[name='q{q1.pk}-not_asked']")
    expect(page.locator(f"{rating}[value='3']")).to_be_enabled()
    expect(page.locator(tick)).to_be_enabled()
    wait_saved(page)  # unticking saves too: let it land before the database is flushed


def test_before_its_interview_a_card_is_a_draft_and_the_page_says_when_it_opens(
    live_server, browser, loop: Built
) -> None:  # type: ignore[no-untyped-def]
    interview = loop.interviews[0]
    start = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    Interview.objects.filter(pk=interview.pk).update(
        scheduled_start=start, scheduled_end=start + timedelta(hours=1)
    )
    local = start.astimezone(zoneinfo.ZoneInfo("Europe/Berlin"))
    # Ines's zone is her browser's, as on her first visit.
    context = new_context(browser, timezone_id="Europe/Berlin")
    try:
        page = context.new_page()
        sign_in(page, live_server, "ines")
        page.wait_for_selector("button:has-text('Sign out')")
        page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")

        expect(page.locator("#not-started")).to_have_text(
            f"You can submit from {local:%a} {local.day} {local:%b %H:%M} {local.tzname()},"
            " when the interview starts; your draft is saved as you write it."
        )
        expect(page.locator("button:has-text('Submit scorecard')")).to_have_count(0)
        q1 = loop.questions(interview)[0]
        page.locator(f"label.anchor:has(input[name='q{q1.pk}-rating'][value='3'])").click()
        wait_saved(page)
        screenshot(page, "scorecard-before-the-interview")
    finally:
        context.close()
    rating = QuestionRating.objects.get(item=q1, scorecard__interviewer__username="ines")
    assert (rating.rating, rating.scorecard.status) == (3, "draft")
