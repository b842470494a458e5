"""A calibration lead reads the dashboard in Chromium and recalculates.

The panel is imported with the real command; the import asks for a
recalculation after commit and Celery is eager in tests (also behind the live
server, which runs in this process), so the snapshot exists when the page opens.
"""

import re
from pathlib import Path
from typing import Any, cast

import pytest
from django.template.defaultfilters import floatformat
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from core.permissions import LEAD
from kit.models import Role
from scoring.calibration import selectors, services
from scoring.models import CalibrationJob, CalibrationSnapshot
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.scoring.calibration.helpers import ROLE, import_scorecards, lenient_panel_rows, write_csv
from tests.support.marks import slow_except

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


def chart_drawn(page: Page, canvas: str) -> bool:
    return page.evaluate(f"Chart.getChart(document.getElementById('{canvas}')) !== undefined")


def test_a_lead_reads_the_dashboard_and_recalculates(
    live_server: LiveServer, page: Page, role: Role
) -> None:
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
    live_server: LiveServer,
    page: Page,
    role: Role,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
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


# --- issue 16: shrunk severity, its interval and reliability, at two widths -----------------

DESKTOP, PHONE = 1280, 390
# Interviewers added to lenient_panel_rows: rater-new has 8 ratings on the shared
# questions (thin, separable); rater-solo alone asks Questions 8 and 9, so their
# severity cannot be told apart from those questions' difficulty, though 20 ratings
# is not thin.
THIN, SOLO = "rater-new", "rater-solo"


def outlier_rows() -> list[list[object]]:
    thin = [[f"Candidate {c:03}", THIN, f"Question {q}", 2 + c % 3 + (c + q) % 2]
            for c in range(1, 5) for q in (1, 2)]  # fmt: skip
    solo = [[f"Candidate {c:03}", SOLO, f"Question {q}", 2 + c % 3 + (c + q) % 3]
            for c in range(1, 11) for q in (8, 9)]  # fmt: skip
    return thin + solo


@pytest.fixture
def mixed_role(tmp_path: Path) -> Role:
    """The panel of `role` plus a thin interviewer and one who is not separable."""
    make_user("leo", LEAD, first_name="Leo")
    path = write_csv(tmp_path / "panel.csv", lenient_panel_rows() + outlier_rows())
    import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L5")
    job = CalibrationJob.objects.get()
    assert job.status == "done", job.error
    return Role.objects.get(name=ROLE)


def snapshot_result(role: Role) -> dict[str, Any]:
    """Return the result the dashboard reads: the newest all-levels snapshot's."""
    snapshot = selectors.latest_snapshot(role=role, level=None)
    assert snapshot is not None
    return cast(dict[str, Any], snapshot.result)


def two(value: float | None) -> str:
    """Format as the template does (`floatformat:2`, "—" for none)."""
    return "—" if value is None else str(floatformat(value, 2))


def open_dashboard(page: Page, live_server: LiveServer, role: Role, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/calibration/?role={role.pk}")
    expect(page.locator("h1")).to_have_text("Calibration")


# The Interviewers section's table, read with textContent: the headers are uppercased
# by CSS, which innerText would report; the " · few ratings" of a thin row is a
# pseudo-element, so it is read from the computed style.
READ_TABLE = """() => {
  const section = [...document.querySelectorAll("section.card")]
    .find((s) => s.querySelector("h2")?.textContent.trim() === "Interviewers");
  const text = (e) => e.textContent.replace(/\\s+/g, " ").trim();
  const table = section.querySelector("div.scroll > table");
  return {
    // A header's note ("relative to this scope's interviewers") is not its name.
    headers: [...table.querySelectorAll("thead th")].map((th) => {
      const name = th.cloneNode(true);
      name.querySelectorAll(".th-note").forEach((note) => note.remove());
      return text(name);
    }),
    rows: [...table.querySelectorAll("tbody tr")].map((tr) => ({
      cells: [...tr.cells].map(text),
      thin: tr.classList.contains("thin"),
      after: getComputedStyle(tr.cells[0], "::after").content,
      color: getComputedStyle(tr.cells[0]).color,
      flag: tr.querySelector("span.flag")?.textContent.trim() ?? null,
    })),
  };
}"""


def interviewer_table(page: Page) -> dict[str, dict[str, Any]]:
    """Return the Interviewers table's rows by interviewer, each cell under its header."""
    table = page.evaluate(READ_TABLE)
    rows = {}
    for row in table["rows"]:
        cells = dict(zip(table["headers"], row.pop("cells"), strict=True))
        rows[cells["Interviewer"]] = {**row, "cells": cells}
    return rows


CHART_READY = """(id) => typeof Chart !== "undefined"
  && Chart.getChart(document.getElementById(id)) !== undefined"""
READ_CHART = """(id) => {
  const chart = Chart.getChart(document.getElementById(id));
  return {
    labels: chart.data.labels,
    datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })),
    bars: chart.getDatasetMeta(0).data.length,
    width: chart.chartArea.right - chart.chartArea.left,
  };
}"""


@pytest.mark.parametrize(
    "width",
    slow_except(
        [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")], keep="phone"
    ),
)
def test_a_lead_reads_shrunk_severities_with_intervals_and_reliability(
    live_server: LiveServer, page: Page, mixed_role: Role, width: int
) -> None:
    result = snapshot_result(mixed_role)
    by_name = {row["interviewer"]: row for row in result["interviewers"]}
    assert not by_name[SOLO]["separable"] and by_name[SOLO]["ratings"] == 20
    assert by_name[THIN]["separable"] and by_name[THIN]["ratings"] == 8
    open_dashboard(page, live_server, mixed_role, width)
    expect(page.locator("#interviewers div.scroll > table tbody tr")).to_have_count(len(by_name))

    table = interviewer_table(page)
    assert set(table) == set(by_name)
    for name, row in by_name.items():
        cells = table[name]["cells"]
        if not row["separable"]:
            continue
        assert cells["Severity"] == two(row["severity_shrunk"]), name
        low, high = row["severity_shrunk_ci"]
        assert cells["95% interval"] == f"{two(low)} to {two(high)}", name
        assert cells["Reliability"] == two(row["severity_reliability"]), name
        assert cells["Raw"] == two(row["severity"]), name
        assert cells["Gap to co-panelists"] == two(row["copanelist_gap"]), name

    # One sign convention: positive = harsher, so a flag follows the shrunk severity.
    flagged = {name: row for name, row in by_name.items() if row["flag"]}
    assert "rater-x" in flagged and by_name["rater-x"]["severity_shrunk"] < 0
    for name, row in by_name.items():
        expected = None
        if row["flag"]:
            expected = "harsh" if row["severity_shrunk"] > 0 else "lenient"
        assert table[name]["flag"] == expected, name
    assert table["rater-x"]["flag"] == "lenient"

    # Fewer than 20 ratings: greyed out, with " · few ratings" after the name.
    assert (
        {name for name, row in table.items() if row["thin"]}
        == {name for name, row in by_name.items() if row["ratings"] < 20}
        == {THIN}
    )
    assert table[THIN]["after"] == '" · few ratings"'
    assert table[THIN]["color"] != table["rater-1"]["color"]
    assert {row["after"] for name, row in table.items() if name != THIN} == {"none"}

    # Not separable: the reason's first clause (the whole on hover), and no numbers.
    solo = table[SOLO]["cells"]
    assert solo["Flag"] == "not separable from their questions"
    assert by_name[SOLO]["reason"].startswith(solo["Flag"] + ": ")
    reason = page.locator("section.card tr", has_text=SOLO).locator("span[title]")
    assert reason.get_attribute("title") == by_name[SOLO]["reason"]
    # The severity column says why there is no number.
    assert solo["Severity"] in ("not separable", "compared within group")
    for column in ("95% interval", "Reliability", "Raw", "Gap to co-panelists"):
        assert solo[column] == "—", column

    page.wait_for_function(CHART_READY, arg="severity-chart")
    chart = page.evaluate(READ_CHART, "severity-chart")
    reported = [row for row in result["interviewers"] if row["severity_shrunk"] is not None]
    assert SOLO not in {row["interviewer"] for row in reported}
    assert chart["labels"] == [row["interviewer"] for row in reported]
    intervals, points = chart["datasets"][0], chart["datasets"][1]
    assert intervals["label"] == "Severity (shrunk), 95% interval"
    assert intervals["data"] == [row["severity_shrunk_ci"] for row in reported]
    assert points["label"] == "Severity (shrunk)"
    assert points["data"] == [{"x": r["severity_shrunk"], "y": r["interviewer"]} for r in reported]
    assert chart["bars"] == len(reported) and chart["width"] > 0

    reliability = result["reliability"]
    g_card = page.locator(".stat.card").filter(
        has=page.locator(".label", has_text="Reliability of raw panel means G(q,k)")
    )
    expect(g_card.locator(".big")).to_have_text(two(reliability["g_qk"]))
    low, high = reliability["g_qk_ci95"]
    expect(g_card.locator(".muted.small")).to_contain_text(f"95% CI {two(low)} to {two(high)}")
    expect(page.locator(".stat.card .label").nth(3)).to_have_text(
        "ICC(2,1): one interviewer's absolute agreement"
    )
    screenshot(page, f"calibration-severity-{width}px")


SCROLL_TABLE = """() => {
  const section = [...document.querySelectorAll("section.card")]
    .find((s) => s.querySelector("h2")?.textContent.trim() === "Interviewers");
  const box = section.querySelector("div.scroll");
  const table = box.querySelector("table");
  // div.scroll (a keyboard-reachable region) scrolls; a bare table on a phone would.
  const scroller = [table, box].find((e) => e.scrollWidth > e.clientWidth + 1);
  const before = scroller ? scroller.scrollLeft : null;
  if (scroller) scroller.scrollLeft = scroller.scrollWidth;
  window.scrollTo(10000, window.scrollY);
  return {
    overflowX: getComputedStyle(box).overflowX,
    scroller: scroller ? scroller.tagName : null,
    before,
    after: scroller ? scroller.scrollLeft : null,
    boxRight: box.getBoundingClientRect().right,
    pageWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    pageScrollX: window.scrollX,
  };
}"""


def test_on_a_phone_the_interviewers_table_scrolls_inside_its_box(
    live_server: LiveServer, page: Page, mixed_role: Role
) -> None:
    open_dashboard(page, live_server, mixed_role, PHONE)
    expect(page.locator("#interviewers div.scroll > table tbody tr")).to_have_count(9)
    page.wait_for_function(CHART_READY, arg="severity-chart")

    scroll = page.evaluate(SCROLL_TABLE)
    assert scroll["overflowX"] == "auto"
    assert scroll["scroller"] is not None, scroll  # the table is wider than its box
    assert scroll["before"] == 0 and scroll["after"] > 0, scroll
    assert scroll["boxRight"] <= scroll["innerWidth"] + 1, scroll
    assert scroll["pageWidth"] <= scroll["innerWidth"] + 1, scroll
    assert scroll["pageScrollX"] == 0, scroll
    screenshot(page, f"calibration-severity-{PHONE}px-scrolled")
