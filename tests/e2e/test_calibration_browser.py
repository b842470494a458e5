"""A calibration lead reads the dashboard in Chromium and recalculates.

The panel is imported with the real command; the import asks for a
recalculation after commit and Celery is eager in tests (also behind the live
server, which runs in this process), so the snapshot exists when the page opens.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.permissions import LEAD
from kit.models import Role
from scoring.calibration import services
from scoring.models import CalibrationJob, CalibrationSnapshot
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.scoring.calibration.helpers import ROLE, import_scorecards, lenient_panel_rows, write_csv

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def role(tmp_path: Path) -> Role:
    """Ten candidates, seven interviewers; rater-x rates two points above the others."""
    make_user("leo", LEAD, first_name="Leo")
    path = write_csv(tmp_path / "panel.csv", lenient_panel_rows())
    import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L5")
    role = Role.objects.get(name=ROLE)
    assert CalibrationJob.objects.get().status == "done"
    assert CalibrationSnapshot.objects.filter(role=role, level=None).exists()
    return role


def chart_drawn(page, canvas: str) -> bool:  # type: ignore[no-untyped-def]
    return page.evaluate(f"Chart.getChart(document.getElementById('{canvas}')) !== undefined")


def test_a_lead_reads_the_dashboard_and_recalculates(live_server, page, role: Role) -> None:  # type: ignore[no-untyped-def]
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")

    page.goto(f"{live_server.url}/calibration/?role={role.pk}")

    expect(page.locator("h1")).to_have_text("Calibration")
    expect(page.locator(".runbar .hint")).to_contain_text("from 140 ratings.")
    row = page.locator("table tr", has=page.locator("td", has_text=re.compile(r"^rater-x$")))
    expect(row.locator("span.flag")).to_have_text("lenient")
    assert page.locator("span.flag-lenient").count() == 1
    assert chart_drawn(page, "severity-chart")
    assert chart_drawn(page, "candidates-chart")
    screenshot(page, "calibration-dashboard")

    page.click("button:has-text('Recalculate now')")

    # Eager Celery: the run finished before the redirect; the page shows it done.
    page.wait_for_url(re.compile(r"/calibration/\?role=\d+&level=&job=\d+$"))
    expect(page.locator("#run")).to_have_attribute("data-status", "done")
    expect(page.locator("#run-bar")).to_have_attribute("value", "100")
    expect(page.locator("#run-text")).to_have_text("Done")
    expect(page.locator(".runbar .hint")).to_contain_text("Last computed")
    screenshot(page, "calibration-recalculated")


def test_the_page_follows_a_queued_run_until_it_is_done(
    live_server, page, role: Role, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    # No broker delivery: the job waits, as it would for a worker, until this test runs it.
    monkeypatch.setattr(services, "_publish", lambda job_id: None)
    more = write_csv(tmp_path / "more.csv", [("Candidate 011", "rater-1", "Question 1", 3)])
    import_scorecards(more, "--role", ROLE, "--scale-max", "7", "--level", "L5")
    waiting = CalibrationJob.objects.get(status="queued")
    polls: list[str] = []

    def run_on_first_poll(route) -> None:  # type: ignore[no-untyped-def]
        # The page asks the API for the job: run it first (on this thread, while no
        # other request is in flight), then let the request through.
        if not polls:
            services.calibration_job_run(job_id=waiting.pk)
        polls.append(route.request.url)
        route.continue_()

    page.route(re.compile(r"/api/v1/calibration/runs/\d+/$"), run_on_first_poll)
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/calibration/?role={role.pk}")
    expect(page.locator(".runbar .hint")).to_contain_text("from 140 ratings.")

    page.click("button:has-text('Recalculate now')")
    # The request joined the job already waiting; the page shows it queued, then polls.
    page.wait_for_url(re.compile(rf"&job={waiting.pk}$"))
    expect(page.locator("#run-text")).to_have_text("Queued")
    screenshot(page, "calibration-run-queued")

    page.wait_for_url(re.compile(rf"/calibration/\?role={role.pk}&level=$"))
    assert polls and polls[0].endswith(f"/api/v1/calibration/runs/{waiting.pk}/")
    expect(page.locator("#run")).to_have_count(0)
    expect(page.locator(".runbar .hint")).to_contain_text("from 141 ratings.")
    assert chart_drawn(page, "trend-chart")
    screenshot(page, "calibration-run-done")
