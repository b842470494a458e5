"""The dashboard says no more than the method does (issue 33 item 6), and its candidates
table is paginated and searchable."""

import csv
import io
import json
import re
import zoneinfo
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import dateformat

from core.accounts.models import Profile
from scoring.calibration.views import CANDIDATES_PER_PAGE
from tests.scoring.calibration.conftest import Calibrated
from tests.scoring.calibration.helpers import tables
from tests.support.shared_db import read_again

DASHBOARD = "/calibration/"
CANDIDATES = "Candidates: raw versus adjusted"


@pytest.fixture
def calibrated(calibrated_built_once: Calibrated, db: None) -> Calibrated:
    """The calibrated panel (tests/scoring/calibration/conftest.py), built once for the
    module; each test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(calibrated_built_once)


def page(client: Client, user: User, **params: object) -> str:
    client.force_login(user)
    response = client.get(DASHBOARD, params)
    assert response.status_code == 200
    return response.content.decode()


def change(calibrated: Calibrated, edit: Any) -> None:
    """Edit the stored snapshot's result in place (the page reads only the JSON)."""
    result = calibrated.snapshot.result
    edit(result)
    calibrated.snapshot.save(update_fields=["result"])


def many_candidates(calibrated: Calibrated, count: int = 540) -> None:
    def edit(result: dict[str, Any]) -> None:
        result["candidates"] = [
            {"candidate": f"Person {n:03}", "ratings": 6, "raw_mean": 3.0, "adjusted": 5 - n / 1000,
             "adjusted_ci": [2.0, 4.0], "adjusted_se": 0.5, "estimable": True}
            for n in range(1, count + 1)
        ]  # fmt: skip

    change(calibrated, edit)


def candidate_names(html: str) -> list[str]:
    return [row[0] for row in tables(html)[CANDIDATES][1:]]


# --- the candidates table ------------------------------------------------------------------


def test_the_candidates_table_shows_one_page_and_a_pager_that_keeps_the_scope(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    many_candidates(calibrated)

    html = page(client, lead, role=calibrated.role.pk)

    assert candidate_names(html) == [f"Person {n:03}" for n in range(1, CANDIDATES_PER_PAGE + 1)]
    assert "540 candidates; 1 to 50 shown." in html
    assert "Page 1 of 11" in html
    assert f'href="?role={calibrated.role.pk}&amp;page=2#candidates">Next →</a>' in html
    # The chart keeps every candidate.
    data = json.loads(re.search(r'id="calibration-data"[^>]*>(.*?)</script>', html, re.S)[1])
    assert len(data["candidates"]) == 540


@pytest.mark.parametrize(
    ("asked", "shown", "first"), [("2", 2, 51), ("11", 11, 501), ("99", 11, 501)]
)
def test_later_pages_and_a_page_past_the_last(
    client: Client, lead: User, calibrated: Calibrated, asked: str, shown: int, first: int
) -> None:
    many_candidates(calibrated)

    html = page(client, lead, role=calibrated.role.pk, page=asked)

    names = candidate_names(html)
    assert names[0] == f"Person {first:03}"
    assert len(names) == (40 if shown == 11 else 50)
    assert f"Page {shown} of 11" in html


@pytest.mark.parametrize("asked", ["0", "-1", "two", "1.5", "9" * 30])
def test_a_page_that_is_not_a_number_from_1_is_a_400(
    client: Client, lead: User, calibrated: Calibrated, asked: str
) -> None:
    client.force_login(lead)

    response = client.get(DASHBOARD, {"role": calibrated.role.pk, "page": asked})

    assert response.status_code == 400
    assert "&#x27;page&#x27; must be a whole number from 1" in response.content.decode()


def test_search_finds_candidates_by_part_of_their_name_whatever_the_case(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    many_candidates(calibrated)

    html = page(client, lead, role=calibrated.role.pk, q="person 05")

    assert candidate_names(html) == [f"Person {n:03}" for n in range(50, 60)]
    assert "10 of 540 candidates match “person 05”." in html
    assert 'name="q" value="person 05"' in html


def test_search_pages_keep_the_query(client: Client, lead: User, calibrated: Calibrated) -> None:
    many_candidates(calibrated)

    html = page(client, lead, role=calibrated.role.pk, q="Person 1")

    # Person 100 to 199 (the names are zero-padded): two pages.
    assert "100 of 540 candidates match" in html and "Page 1 of 2" in html
    assert f"?role={calibrated.role.pk}&amp;q=Person+1&amp;page=2#candidates" in html


def test_a_search_without_a_match_says_so(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk, q="Nobody")

    assert candidate_names(html) == ["No candidate's name contains “Nobody”."]
    assert "Page 1" not in html


def test_a_search_longer_than_200_characters_is_a_400(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    client.force_login(lead)

    response = client.get(DASHBOARD, {"role": calibrated.role.pk, "q": "x" * 201})

    assert response.status_code == 400


def test_many_candidates_cost_no_extra_query_and_render_one_page(
    client: Client,
    lead: User,
    calibrated: Calibrated,
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    many_candidates(calibrated, count=2000)
    client.force_login(lead)
    # The same 15 as test_calibration_pages' large panel (session, user, role, level,
    # snapshot, groups, trend, last run, core points, names, roles, levels, open
    # seats, exercise, the viewer's zone): the candidates are in the snapshot JSON, and
    # the page is cut from it in memory.
    with django_assert_max_num_queries(15):
        response = client.get(DASHBOARD, {"role": calibrated.role.pk, "page": 7})

    html = response.content.decode()
    assert len(candidate_names(html)) == CANDIDATES_PER_PAGE
    assert "Page 7 of 40" in html


# --- what the figures may say --------------------------------------------------------------


def test_severity_is_said_relative_to_this_scopes_interviewers(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)

    header = 'Severity <span class="small muted th-note">relative to this scope\'s interviewers'
    assert header in html
    assert "rating points harsher than the average interviewer, relative to this scope" in html


def test_kappa_replaces_raw_agreement_and_unflagged_rows_say_what_could_go_unseen(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    def edit(result: dict[str, Any]) -> None:
        for row in result["interviewers"]:
            row.update(agreement=0.9, agreement_kappa=None, peer_agreement_kappa=None)
            if row["interviewer"] == "ines":
                row.update(agreement_kappa=0.412, peer_agreement_kappa=-0.05,
                           detectable_severity=0.734)  # fmt: skip

    change(calibrated, edit)

    html = page(client, lead, role=calibrated.role.pk)

    found = tables(html)["Interviewers"]
    assert found[0][8:12] == ["κ with decision", "κ with the others", "Change", "Flag"]
    ines = next(row for row in found if row[0].endswith("ines"))
    assert ines[8:12] == ["0.41", "-0.05", "—", "none; flags from ±0.73"]
    # The raw agreement is not shown. (The chart's data, a script, holds times whose
    # microseconds can read "0.90": 11:22:30.903090 did.)
    shown = re.sub(r"<script\b.*?</script>", "", html, flags=re.DOTALL)
    assert "<script" not in shown and "0.90" not in shown


def test_a_severity_the_design_cannot_give_is_a_mark_with_no_number(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    def edit(result: dict[str, Any]) -> None:
        for row in result["interviewers"]:
            if row["interviewer"] in ("ines", "omar"):
                row.update(severity=None, severity_shrunk=None, severity_shrunk_ci=None,
                           separable=False, flag=None, detectable_severity=None,
                           reason="not separable from their questions: aliased")  # fmt: skip
            if row["interviewer"] == "omar":
                row.update(severity_within=0.31, severity_within_ci=[0.1, 0.5],
                           compared_within={"group": 1, "interviewers": 2,
                                            "relative_to": "group 1"})  # fmt: skip

    change(calibrated, edit)

    found = tables(page(client, lead, role=calibrated.role.pk))["Interviewers"]
    rows = {row[0].split()[-1]: row for row in found[1:]}
    assert rows["ines"][1:3] == ["not separable", "—"]
    assert rows["omar"][1:3] == ["compared within group", "—"]


def test_the_ceiling_warning_is_shown(client: Client, lead: User, calibrated: Calibrated) -> None:
    warning = "a third of the ratings are at the top of the scale: severities are compressed"
    change(calibrated, lambda r: r.setdefault("model", {}).update(ceiling_warning=warning))

    html = page(client, lead, role=calibrated.role.pk)

    assert '<p class="notice">A third of the ratings are at the top of the scale' in html


def test_an_alpha_on_too_few_ratings_a_question_is_not_headlined_and_says_why(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    reason = "the typical question has 20 ratings shared with another interviewer, under 40"
    change(
        calibrated,
        lambda r: r["reliability"].update(krippendorff_alpha_headline_reason=reason),
    )

    html = page(client, lead, role=calibrated.role.pk)

    alpha_card = html.split("Krippendorff")[1].split('<div class="stat card">')[0]
    assert '<div class="big">—</div>' in alpha_card
    assert f"Not headlined: {reason}." in alpha_card
    assert 'class="verdict' not in alpha_card


def test_one_sentence_says_why_alpha_and_g_differ(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)

    assert "G(q,k) can read differently for the same panel" in html
    assert "averaging several ratings cancels much of the disagreement" in html


def test_the_trend_is_labelled_in_the_viewers_zone_with_its_abbreviation(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    Profile.objects.update_or_create(user=lead, defaults={"time_zone": "America/New_York"})

    html = page(client, lead, role=calibrated.role.pk)

    data = json.loads(re.search(r'id="calibration-data"[^>]*>(.*?)</script>', html, re.S)[1])
    zone = zoneinfo.ZoneInfo("America/New_York")
    at = calibrated.snapshot.computed_at.astimezone(zone)
    assert data["trend"][-1]["label"] == dateformat.format(at, "j M H:i T")
    assert data["trend"][-1]["label"].endswith(("EST", "EDT"))
    assert data["zone"] == f"America/New_York, {at.strftime('%Z')}"
    assert f"Times in your time zone, America/New_York, {at.strftime('%Z')}." in html


def test_the_interviewers_csv_carries_the_kappas_and_the_detectable_severity(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    def edit(result: dict[str, Any]) -> None:
        for row in result["interviewers"]:
            row.update(agreement_kappa=None, peer_agreement_kappa=None)
            if row["interviewer"] == "ines":
                row.update(agreement_kappa=0.412, peer_agreement_kappa=-0.05,
                           detectable_severity=0.734)  # fmt: skip

    change(calibrated, edit)
    client.force_login(lead)

    response = client.get("/calibration/export.csv", {"role": calibrated.role.pk})

    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    ines = dict(zip(rows[0], next(row for row in rows if row[0] == "ines"), strict=True))
    assert [ines["agreement_kappa"], ines["peer_agreement_kappa"]] == ["0.412", "-0.05"]
    assert ines["detectable_severity"] == "0.734"
