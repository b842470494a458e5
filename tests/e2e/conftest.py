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


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
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
