"""Chromium through Playwright, Debian's build at /usr/bin/chromium (never a downloaded browser)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import chromium_path, need

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Module scope: while Playwright's event loop runs, Django sees an async context
# and other tests would get connections of their own; stop it after each module.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = chromium_path()
    need("Chromium (/usr/bin/chromium)", path is not None)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's own ORM
    # calls (fixtures) are still synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# On a loaded machine (CI beside other jobs, the CPU hog of docs/development.md's
# section) a page can take seconds to answer: tests wait for what the page shows or
# emits, for up to this long, and never for a fixed time.
WAIT_MS = 30_000


def new_context(browser, **options):  # type: ignore[no-untyped-def]
    """Return a browser context (its own cookies) whose waits allow a loaded machine."""
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    context.set_default_timeout(WAIT_MS)
    context.set_default_navigation_timeout(WAIT_MS)
    return context


# The page asks for the database first so that its context closes before the database
# is emptied: a request the browser still had open would otherwise hold a table lock
# (SQLite) while the flush runs.
@pytest.fixture
def page(transactional_db, live_server, browser):  # type: ignore[no-untyped-def]
    context = new_context(browser)
    page = context.new_page()
    yield page
    context.close()


def screenshot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def sign_in(page, live_server, username: str, password: str = "pw") -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
