"""The calibration dashboard: its cards, tables and charts, who sees which rows."""

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.template.defaultfilters import floatformat
from django.test import Client
from django.utils.html import escape

from core.permissions import INTERVIEWER, RECRUITER
from kit.models import Level, Question, Role, RubricItem
from scoring.calibration import selectors, services
from scoring.calibration.definitions import ALPHA, BANDS, DEFINITIONS, G_QK, band, bands_text
from scoring.exercises import services as exercises
from scoring.models import CalibrationSnapshot
from tests.conftest import make_user
from tests.integration.data import write_ratings_csv
from tests.scoring.calibration.conftest import PANEL, Calibrated
from tests.scoring.calibration.helpers import (
    ROLE,
    calibrate_json,
    import_scorecards,
    lenient_panel_rows,
    tables,
    write_csv,
)
from tests.scoring.calibration.pages import DASHBOARD, page
from tests.support.factories import RoleFactory

CHART_JS = "/static/vendor/chartjs/chart.umd.min.js"


def test_a_lead_sees_reliability_interviewers_questions_candidates_and_charts(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)

    result = calibrated.snapshot.result
    alpha = result["reliability"]["krippendorff_alpha"]
    # Shown to the decimals they are banded at; the snapshot and its CSV keep every digit.
    assert f'<div class="big">{alpha["interval"]:.3f}</div>' in html
    assert f"ordinal {alpha['ordinal']:.2f} · nominal {alpha['nominal']:.2f}" in html
    assert f'<div class="big">{result["reliability"]["g_qk"]:.2f}</div>' in html
    assert 'Krippendorff\'s <span class="greek">α</span>' in html
    for key, value in ((ALPHA, alpha["interval"]), (G_QK, result["reliability"]["g_qk"])):
        found_band = band(key, value)
        assert found_band is not None
        shown = f'<div class="verdict {found_band.kind}">{found_band.reads.capitalize()}</div>'
        assert shown in html
        assert escape(found_band.next_step) in html
    assert "Last computed" in html and "from 140 ratings." in html
    found = tables(html)
    # Each row reads "Full Name username", or the username alone where no name is set.
    interviewers = {row[0].split()[-1]: row for row in found["Interviewers"][1:]}
    assert sorted(interviewers) == sorted(PANEL)
    assert interviewers["rater-x"][-1] == "lenient"
    assert '<span class="flag flag-lenient">lenient</span>' in html
    # No flag is not a clean bill: the smallest severity that would have been flagged.
    assert all(
        row[-1].startswith("none; flags from ±")
        for name, row in interviewers.items()
        if name != "rater-x"
    )
    by_name = {row["interviewer"]: row for row in result["interviewers"]}
    assert interviewers["rater-x"][1] == f"{by_name['rater-x']['severity_shrunk']:.2f}"
    assert interviewers["rater-x"][4:6] == ["20", f"{by_name['rater-x']['mean']:.2f}"]
    # One sign everywhere: the lenient interviewer's severity and gap are negative.
    assert by_name["rater-x"]["severity_shrunk"] < 0 and by_name["rater-x"]["copanelist_gap"] < 0
    assert interviewers["rater-x"][7] == f"{by_name['rater-x']['copanelist_gap']:.2f}"
    assert [row[0] for row in found["Questions"][1:]] == ["Question 1", "Question 2"]
    candidates = found["Candidates: raw versus adjusted"][1:]
    assert sorted(row[0] for row in candidates) == [f"Candidate {c:03}" for c in range(1, 11)]
    adjusted = [float(row[3]) for row in candidates]
    assert adjusted == sorted(adjusted, reverse=True)  # strongest first
    for canvas in ("severity-chart", "candidates-chart", "trend-chart"):
        assert f'<canvas id="{canvas}"' in html
    assert f'<script src="{CHART_JS}"></script>' in html
    assert '<script id="calibration-data" type="application/json">' in html
    assert not re.search(r"<script[^>]+src=[\"']?(https?:)?//", html)
    assert "Recalculate now" in html


@pytest.mark.parametrize(
    ("alpha", "shown", "kind", "reads", "step"),
    [
        (0.85, "0.850", "good", "Reliable", "run a calibration exercise as new interviewers"),
        (0.8, "0.800", "good", "Reliable", "run a calibration exercise as new interviewers"),
        # Banded as shown: a figure on the line reads the band its three decimals show.
        (0.7995, "0.800", "good", "Reliable", "run a calibration exercise as new interviewers"),
        (0.7994, "0.799", "fair", "Tentative conclusions only", "Run a calibration exercise"),
        (0.667, "0.667", "fair", "Tentative conclusions only", "Run a calibration exercise"),
        (0.6664, "0.666", "poor", "Do not rely on it", "Tighten the rubric anchors"),
        (0.21, "0.210", "poor", "Do not rely on it", "Tighten the rubric anchors"),
        (-0.1, "-0.100", "poor", "Do not rely on it", "Tighten the rubric anchors"),
    ],
)
def test_the_alpha_card_says_what_the_agreement_is_good_for_and_what_to_do(
    client: Client, lead: User, calibrated: Calibrated, alpha: float, shown: str, kind: str,
    reads: str, step: str,
) -> None:  # fmt: skip
    result = calibrated.snapshot.result
    result["reliability"]["krippendorff_alpha"]["interval"] = alpha
    calibrated.snapshot.save(update_fields=["result"])

    html = page(client, lead, role=calibrated.role.pk)

    assert f'<div class="big">{shown}</div>' in html
    assert f'<div class="verdict {kind}">{reads}</div>' in html
    assert step in html
    assert "Krippendorff 2004, Content Analysis, 2nd ed., p. 241" in html
    assert (
        "0.800 or more: reliable; 0.667 to 0.800: tentative conclusions only;"
        " below 0.667: do not rely on it" in html
    )


@pytest.mark.parametrize(
    ("g_qk", "kind", "reads", "step"),
    [
        (0.91, "good", "Good for decisions", "Keep the panel size"),
        (0.8, "good", "Good for decisions", "Keep the panel size"),
        (0.795, "good", "Good for decisions", "Keep the panel size"),  # shown as 0.80
        (0.794, "fair", "Acceptable", "Add an interviewer or a question to loops"),
        (0.75, "fair", "Acceptable", "Add an interviewer or a question to loops"),
        (0.7, "fair", "Acceptable", "Add an interviewer or a question to loops"),
        (0.69, "poor", "Too noisy for decisions", "Add interviewers or questions to each loop"),
    ],
)
def test_the_g_card_says_what_raw_panel_means_are_good_for_and_what_to_do(
    client: Client, lead: User, calibrated: Calibrated, g_qk: float, kind: str, reads: str,
    step: str,
) -> None:  # fmt: skip
    result = calibrated.snapshot.result
    result["reliability"]["g_qk"] = g_qk
    calibrated.snapshot.save(update_fields=["result"])

    html = page(client, lead, role=calibrated.role.pk)

    assert f'<div class="big">{floatformat(g_qk, 2)}</div>' in html
    assert f'<div class="verdict {kind}">{reads}</div>' in html
    assert step in html
    assert "they describe raw panel means, before any adjustment for severity" in html


def test_a_missing_g_shows_no_band(client: Client, lead: User, calibrated: Calibrated) -> None:
    result = calibrated.snapshot.result
    result["reliability"]["g_qk"] = None
    calibrated.snapshot.save(update_fields=["result"])

    html = page(client, lead, role=calibrated.role.pk)

    assert band(G_QK, None) is None
    for each in BANDS[G_QK]:
        assert f">{each.reads.capitalize()}</div>" not in html


def test_the_definitions_block_carries_the_bands_the_page_shows() -> None:
    assert bands_text(ALPHA) in DEFINITIONS[ALPHA]["unit"]
    assert bands_text(G_QK) in DEFINITIONS[G_QK]["unit"]
    assert "raw panel means" in DEFINITIONS[G_QK]["what"]


def test_the_trend_leaves_out_the_alpha_of_snapshots_from_before_it_was_stratified(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    current = calibrated.snapshot
    before = json.loads(json.dumps(current.result))
    del before["reliability"]["krippendorff_alpha_pooled"]
    old = CalibrationSnapshot.objects.create(
        role=current.role, level=None, watermark="before stratified alpha", result=before
    )
    earlier = current.computed_at - timedelta(days=1)
    CalibrationSnapshot.objects.filter(pk=old.pk).update(computed_at=earlier)

    trend = selectors.trend(role=calibrated.role)

    assert [point["alpha"] for point in trend] == [
        None,
        current.result["reliability"]["krippendorff_alpha"]["interval"],
    ]
    assert trend[0]["g_qk"] == before["reliability"]["g_qk"]


def test_interviewers_show_by_full_name_with_their_username(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    User.objects.filter(username="rater-x").update(first_name="Xavier", last_name="Rao")

    html = page(client, lead, role=calibrated.role.pk)

    assert '<td>Xavier Rao <span class="muted small">rater-x</span></td>' in html
    data = re.search(r'<script id="calibration-data" type="application/json">(.*?)</script>', html)
    assert data is not None
    names = [row["name"] for row in json.loads(data.group(1))["interviewers"]]
    assert "Xavier Rao (rater-x)" in names and "rater-x" not in names
    # Someone without a name set keeps their username, once.
    assert "<td>rater-3</td>" in html


def test_the_least_hit_core_point_leaves_red_flags_and_extras_aside(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    snapshot = calibrated.snapshot
    row = snapshot.result["questions"][0]
    version = Question.objects.get(pk=row["question_id"]).current
    RubricItem.objects.filter(version=version).delete()
    for order, (text, kind) in enumerate(
        [("Sizes the cache first", "core"), ("Mentions paging", "strong"),
         ("Ignores the dtype", "red_flag"), ("Names the batch size", "core")]
    ):  # fmt: skip
        RubricItem.objects.create(version=version, text=text, kind=kind, order=order)
    row["rubric_hit_rates"] = {
        "Sizes the cache first": 0.8,
        "Mentions paging": 0.1,
        "Ignores the dtype": 0.0,
        "Names the batch size": 0.45,
    }
    snapshot.save()

    html = page(client, lead, role=calibrated.role.pk)

    assert "<th>Least-hit core point</th>" in html
    assert "Names the batch size (0.45)" in html
    assert "Ignores the dtype" not in html
    assert "Mentions paging" not in html


def test_thin_data_comes_with_a_warning(
    client: Client, lead: User, role: Role, tmp_path: Path
) -> None:
    rows = [r for r in lenient_panel_rows(candidates=2) if r[1] in ("rater-1", "rater-2")]
    import_scorecards(write_csv(tmp_path / "thin.csv", rows), "--role", ROLE, "--scale-max", "7")
    calibrate_json()

    html = page(client, lead, role=role.pk)

    assert "Too little data for stable figures yet (2 candidates, 8 ratings)." in html


def test_a_panel_of_ten_candidates_has_no_thin_data_warning(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    assert "Too little data" not in page(client, lead, role=calibrated.role.pk)


def test_the_level_filter_shows_the_level_snapshot(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    level = Level.objects.get(name="L5")

    html = page(client, lead, role=calibrated.role.pk, level=level.pk)

    assert f'<option value="{level.pk}" selected>L5</option>' in html
    assert len(tables(html)["Interviewers"]) == 1 + len(PANEL)


def test_the_dashboard_defaults_to_a_role_with_snapshots(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    RoleFactory(name="Aardvark Keeper")  # first by name, but never calibrated

    html = page(client, lead)

    assert f'<option value="{calibrated.role.pk}" selected>{ROLE}</option>' in html
    assert "rater-x" in html


def test_a_scope_without_a_snapshot_says_so(client: Client, lead: User, role: Role) -> None:
    html = page(client, lead, role=role.pk)

    assert "No calibration yet for this scope. Recalculate to compute one." in html
    assert "<canvas" not in html


def test_an_interviewer_sees_only_their_own_row(
    client: Client, interviewer: User, calibrated: Calibrated
) -> None:
    html = page(client, interviewer, role=calibrated.role.pk)

    found = tables(html)
    assert [row[0] for row in found["Interviewers"][1:]] == ["Ines ines"]
    assert "Questions" not in found
    assert "Candidates: raw versus adjusted" not in found
    for other in PANEL:
        if other != "ines":
            assert other not in html
    assert "Candidate 001" not in html
    assert "Only your own row is shown, and it leaves out every loop where a scorecard" in html
    # Nothing role-wide: each figure steps when a co-panelist's card lands.
    assert "Krippendorff" not in html and "G(q,k)" not in html and "Inputs:" not in html
    assert "Recalculate now" not in html
    assert "Interviewers CSV" not in html
    assert 'id="severity-chart"' not in html and 'id="candidates-chart"' not in html


RECRUITER_SEES = (
    "The panel's figures (reliability, each interviewer's severity, the questions) are for"
    " calibration leads, and you rate no interviews here, so this page has no row of yours."
    " Each loop's debrief shows you its panel score adjusted for interviewer severity."
)
OWN_ROW_ONLY = "Only your own row is shown, and it leaves out every loop where a scorecard"


def test_a_recruiter_is_told_what_they_see_not_that_their_own_row_is_shown(
    client: Client, recruiter: User, calibrated: Calibrated
) -> None:
    html = page(client, recruiter, role=calibrated.role.pk)

    assert RECRUITER_SEES in html
    assert OWN_ROW_ONLY not in html
    # No empty table of their own row either, and nothing of the panel's.
    assert "Interviewers" not in tables(html)
    assert "No ratings of yours" not in html
    for name in PANEL:
        assert name not in html
    assert "Krippendorff" not in html and "G(q,k)" not in html and "Inputs:" not in html


def test_a_recruiter_who_also_rates_reads_as_an_interviewer(
    client: Client, calibrated: Calibrated
) -> None:
    ines = User.objects.get(username="ines")
    ines.groups.add(Group.objects.get(name=RECRUITER))

    html = page(client, ines, role=calibrated.role.pk)

    assert OWN_ROW_ONLY in html and RECRUITER_SEES not in html
    assert [row[0] for row in tables(html)["Interviewers"][1:]] == ["Ines ines"]


def test_a_lead_is_told_they_see_the_whole_panel(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)

    assert "How reliable the panel is, who rates harsh or lenient" in html
    assert OWN_ROW_ONLY not in html and RECRUITER_SEES not in html


def test_someone_without_ratings_sees_an_empty_row_list(
    client: Client, calibrated: Calibrated
) -> None:
    pia = make_user("pia", INTERVIEWER)

    html = page(client, pia, role=calibrated.role.pk)

    assert "No ratings of yours in this scope yet." in html
    for name in PANEL:
        assert name not in html


def test_the_dashboard_needs_a_sign_in(client: Client, calibrated: Calibrated) -> None:
    response = client.get(DASHBOARD)

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/calibration/"


def test_the_dashboard_makes_a_fixed_number_of_queries_for_a_large_panel(
    client: Client,
    lead: User,
    role: Role,
    tmp_path: Path,
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    path = tmp_path / "panel.csv"
    write_ratings_csv(path, candidates=300, interviewers=200, questions=12)
    import_scorecards(path, "--role", ROLE)
    job = services.calibration_run_now(role=role)
    assert job.snapshot is not None
    panel = job.snapshot.result["inputs"]["interviewers"]
    assert panel > 150
    client.force_login(lead)
    # 1. the session
    # 2. the user
    # 3. the role
    # 4. the level (none asked: a lookup of pk 0)
    # 5. the latest snapshot of the scope
    # 6. the user's groups (is_lead, cached on the user for the template's personas too)
    # 7. the trend (reliability of past snapshots)
    # 8. when a run last finished (it may have kept this snapshot)
    # 9. the questions' core rubric points (the least-hit column leaves the rest aside)
    # 10. the interviewers' full names (the snapshot keeps usernames)
    # 11. the roles for the filter
    # 12. the levels for the filter
    # 13. the lead's open seats in the scope's loops (blind leads read their own row only)
    # 14. the role's newest closed calibration exercise (none here: its ICC card)
    # Nothing per interviewer, candidate or question: the rows come from the snapshot JSON.
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(15):
        response = client.get(DASHBOARD, {"role": role.pk})
    assert response.status_code == 200
    assert len(tables(response.content.decode())["Interviewers"]) == 1 + panel


def _closed_exercise(role: Role, lead: User, answers: int) -> None:
    """A closed exercise on a question of `role`: three interviewers score every answer,
    each a little differently, so the grid has an ICC."""
    from scoring.models import ReferenceAnswer
    from tests.support.factories import make_question

    people = [make_user(f"ex-rater-{n}", INTERVIEWER) for n in range(3)]
    question = make_question(role=role, title="Exercise question")
    exercise = exercises.exercise_create(
        title="Spring calibration",
        question=question,
        answers=[
            exercises.AnswerInput(transcript=f"Answer {n}", key_rating=1 + n % 4, key_checked=())
            for n in range(answers)
        ],
        participants=people,
        by=lead,
    )
    for offset, person in enumerate(people):
        scores = [
            (a.pk, min(4, max(1, a.key_rating + (offset if a.order % 3 == 0 else 0) - 1)), ())
            for a in ReferenceAnswer.objects.filter(exercise=exercise)
        ]
        exercises.exercise_score(exercise=exercise, by=person, scores=scores)
    exercises.exercise_close(exercise=exercise, by=lead)


def _icc_card(html: str) -> str:
    start = html.index("ICC(2,1): one interviewer")
    return html[start : html.index("</section>", start)]


def test_the_icc_card_shows_a_closed_exercise_of_ten_answers_with_its_interval(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    # No grid in the ratings themselves:
    calibrated.snapshot.result["reliability"]["icc"] = None
    calibrated.snapshot.save()
    _closed_exercise(calibrated.role, lead, answers=10)

    card = _icc_card(page(client, lead, role=calibrated.role.pk))

    assert "from the closed calibration exercise" in card and "Spring calibration" in card
    assert "(10 answers)" in card and "95% CI" in card


def test_the_icc_card_says_why_a_small_exercise_is_not_shown(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    calibrated.snapshot.result["reliability"]["icc"] = None
    calibrated.snapshot.save()
    _closed_exercise(calibrated.role, lead, answers=4)

    card = _icc_card(page(client, lead, role=calibrated.role.pk))

    assert "had 4 answers; the ICC is shown from 10 answers that everyone scores" in card
    assert '<div class="big">—</div>' in card


def test_the_reliability_cards_show_g_with_its_interval_and_why_kappa_is_missing(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)
    reliability = calibrated.snapshot.result["reliability"]
    low, high = reliability["g_qk_ci95"]
    assert low <= reliability["g_qk"] <= high
    assert f"95% CI {low:.2f} to {high:.2f}" in html
    assert "Reliability of raw panel means G(q,k)" in html
    if reliability["fleiss_kappa"] is None:
        assert f"Not defined here: {reliability['fleiss_kappa_reason']}" in html


def test_the_header_states_the_period_and_the_interviewers_show_a_change_column(
    client: Client, lead: User, calibrated: Calibrated
) -> None:
    html = page(client, lead, role=calibrated.role.pk)

    period = calibrated.snapshot.result["scope"]["period"]
    assert (
        f'<span id="period">Severities and flags describe {period["start"][:10]} to'
        f" {period['end'][:10]} (12 months to the newest interview).</span>"
    ) in html
    header = tables(html)["Interviewers"][0]
    assert header[-2:] == ["Change", "Flag"]
