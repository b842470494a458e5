"""Who sits on a panel (issue 34), in Chromium at 1280 px (`make test`) and 390 px (slow).

1. The calibration lead (Leo) makes a pool for the starter role's L5 loops, adds two
   qualified interviewers (Ada, Ben) and a trainee (Tia), and sets the training path:
   two shadow seats, then one reverse shadow.
2. The recruiter (Rita) builds a loop: she lands on its proposed panels (Ada with Tia
   shadowing, Ben; the rest short, said why) and accepts them.
3. Ada, Tia's trainer on that interview, finds the sign-off on My interviews and signs
   Tia's shadow seat ready. Twice more (a second shadow, then a reverse shadow), and
   Tia graduates.
4. The next loop proposes Tia as an interviewer.

axe finds nothing serious or critical on the pools page, the pool's page, the path,
Staff this loop and the sign-off. Each page is saved to
artifacts/screenshots/pools/<width>/.
"""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from interviews.models import Candidate
from interviews.pools.models import PoolMembership
from kit.models import Role
from tests.conftest import make_user
from tests.e2e.conftest import new_context, screenshot, sign_in
from tests.e2e.test_accessibility_browser import blocking_violations
from tests.support.loops import load_starter
from tests.support.marks import slow_except

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POOL = "L5 interviewers"
CANDIDATES = ["Noor Haddad", "Jon Berg", "Mei Tan", "Sam Okafor"]


@pytest.fixture
def people() -> Role:
    """The starter bank, a recruiter, a lead, two interviewers and a trainee-to-be, and
    four candidates (every step under test is a page)."""
    make_user("rita", RECRUITER, first_name="Rita", last_name="Moreno")
    make_user("leo", LEAD, first_name="Leo", last_name="Park")
    for username, first, last in [("ada", "Ada", "Lovel"), ("ben", "Ben", "Ito"),
                                  ("tia", "Tia", "Romero")]:  # fmt: skip
        make_user(username, INTERVIEWER, first_name=first, last_name=last)
    for name in CANDIDATES:
        Candidate.objects.create(name=name)
    return load_starter()


# `make test` walks the journey at a laptop's width; `make test-slow` on a phone too.
@pytest.fixture(
    params=slow_except(
        [pytest.param(1280, id="1280px"), pytest.param(390, id="390px")], keep="1280px"
    )
)
def sessions(request, transactional_db, browser, live_server) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """Open a signed-in page per person at the width asked, each with its own cookies."""
    width = request.param
    contexts = []

    def open_as(username: str) -> Page:
        context = new_context(browser)
        contexts.append(context)
        page = context.new_page()
        page.set_viewport_size({"width": width, "height": 900})
        sign_in(page, live_server, username)
        expect(page.locator(".topbar")).to_contain_text("Sign out")
        return page

    open_as.width = width  # type: ignore[attr-defined]
    yield open_as
    for context in contexts:
        context.close()


def test_a_trainee_shadows_is_signed_off_graduates_and_is_proposed(
    people: Role, sessions, live_server
):  # type: ignore[no-untyped-def]
    width = sessions.width
    base = live_server.url
    seen: list[str] = []
    shots = iter(range(1, 100))

    def look(page: Page, name: str, axe: bool = False) -> None:
        screenshot(page, f"pools/{width}/{next(shots):02d}-{name}")
        if axe:
            seen.extend(f"{name}: {line}" for line in blocking_violations(page))

    # 1. The lead makes the pool, its people and its path.
    leo = sessions("leo")
    leo.get_by_role("navigation", name="Main").get_by_role("link", name="Pools").click()
    expect(leo.locator("h1")).to_have_text("Interviewer pools")
    leo.get_by_role("link", name="New pool").click()
    leo.get_by_label("Name").fill(POOL)
    leo.get_by_label("Role").select_option(label=people.name)
    leo.get_by_label("From level").select_option(label="L5")
    leo.get_by_label("To level").select_option(label="L5")
    look(leo, "lead-new-pool")
    leo.get_by_role("button", name="Make the pool").click()
    expect(leo.locator(".messages")).to_contain_text(f"Pool {POOL} made.")
    for name, status in [("Ada Lovel", "qualified"), ("Ben Ito", "qualified"),
                         ("Tia Romero", "training")]:  # fmt: skip
        leo.locator("#add-member select[name=user]").select_option(label=name)
        leo.locator("#add-member select[name=status]").select_option(status)
        leo.get_by_role("button", name="Add", exact=True).click()
        expect(leo.locator(".messages")).to_contain_text(f"{name} joined {POOL} ({status}).")
    members = leo.locator("table.pool-members tbody tr")
    expect(members).to_have_count(3)
    expect(members.filter(has_text="Tia Romero")).to_contain_text("shadows 0 of 2")
    look(leo, "lead-pool", axe=True)
    leo.get_by_role("link", name="Edit the path").click()
    leo.locator("input[name=shadows]").fill("2")
    leo.locator("input[name=reverse_shadows]").fill("1")
    look(leo, "lead-path", axe=True)
    leo.get_by_role("button", name="Save the path").click()
    expect(leo.locator(".messages")).to_contain_text(f"Saved the training path of {POOL}.")
    leo.goto(f"{base}/pools/")
    expect(leo.locator("section.card h2")).to_have_text([POOL])
    look(leo, "lead-pools", axe=True)

    rita = sessions("rita")
    ada = sessions("ada")

    def build_loop(candidate: str) -> None:
        rita.goto(f"{base}/loops/new/")
        rita.select_option("select[name=candidate]", label=candidate)
        rita.select_option("select[name=role]", label=people.name)
        rita.select_option("select[name=level]", label="L5")
        rita.get_by_role("button", name="Preview").click()
        rita.get_by_role("button", name="Save this loop").click()
        expect(rita.locator(".messages")).to_contain_text("Its panels are proposed")
        expect(rita.locator("h1")).to_have_text("Staff this loop")

    def accept() -> None:
        rita.get_by_role("button", name="Accept these panels").click()
        expect(rita.locator(".messages")).to_contain_text("Seated the proposed panels")

    def sign_off(kind: str, message: str) -> None:
        ada.goto(f"{base}/interviews/")
        owed = ada.locator("#sign-offs li")
        expect(owed).to_have_count(1)
        owed.get_by_role("link", name=f"Sign off Tia Romero's {kind} seat").click()
        expect(ada.locator("h1")).to_have_text("Sign off Tia Romero")
        ada.get_by_label("Ready", exact=True).check()
        ada.locator("textarea[name=note]").fill("Clear notes, good follow-ups.")
        look(ada, f"trainer-sign-off-{kind.replace(' ', '-')}", axe=True)
        ada.get_by_role("button", name="Sign off").click()
        expect(ada.locator(".messages")).to_contain_text(message)
        expect(ada.locator("#signed-off")).to_contain_text("Signed ready by Ada Lovel")

    # 2. A loop is built and lands on its proposed panels; Tia shadows Ada.
    build_loop(CANDIDATES[0])
    first = rita.locator("section.slot").first
    expect(first).to_contain_text("Ada Lovel (interviewer): qualified for L5 interviewers")
    expect(first).to_contain_text(
        "Tia Romero (shadow): training for L5 interviewers: shadow 1 of 2"
    )
    # Two qualified people cannot fill five seats: the rest is short, and says why.
    expect(rita.locator("section.slot .field-error").first).to_contain_text(
        "of 2 qualified in L5 interviewers, 2 already on this loop"
    )
    look(rita, "recruiter-staff-loop-1", axe=True)
    accept()
    look(rita, "recruiter-loop-1-seated")

    # 3. Her trainer signs the seat off; a second shadow; then a reverse shadow.
    sign_off("shadow", "Signed off Tia Romero's shadow seat.")
    build_loop(CANDIDATES[1])
    expect(rita.locator("section.slot").first).to_contain_text(
        "Tia Romero (shadow): training for L5 interviewers: shadow 2 of 2"
    )
    accept()
    sign_off("shadow", "Signed off Tia Romero's shadow seat.")
    build_loop(CANDIDATES[2])
    expect(rita.locator("section.slot").first).to_contain_text(
        "Tia Romero (reverse shadow): training for L5 interviewers: reverse shadow 1 of 1"
    )
    look(rita, "recruiter-staff-loop-3")
    accept()
    sign_off("reverse shadow", f"Signed off: Tia Romero graduated into {POOL}.")
    assert PoolMembership.objects.get(user__username="tia").status == "qualified"

    # 4. The next loop proposes her as an interviewer.
    build_loop(CANDIDATES[3])
    expect(rita.locator("section.slot").nth(2)).to_contain_text(
        "Tia Romero (interviewer): qualified for L5 interviewers"
    )
    look(rita, "recruiter-staff-loop-4", axe=True)
    leo.goto(f"{base}/pools/")
    expect(leo.locator("section.card tr", has_text="Tia Romero")).to_contain_text("qualified")
    look(leo, "lead-pools-after")

    assert not seen, "axe found serious or critical violations:\n" + "\n".join(seen)
