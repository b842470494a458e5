"""Pages for calibration: the dashboard, starting a run, the CSV export. The exercises'
pages are in scoring/exercises/views.py."""

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import dateformat, timezone
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from core import spreadsheet
from core.audit.services import audit_event_record
from core.auth import signed_in
from core.http.params import one, optional_choice, optional_id, optional_page
from core.permissions import is_lead, is_recruiter
from kit.models import Level, Role
from scoring.calibration import selectors, services
from scoring.calibration.definitions import ALPHA, BAND_SOURCES, G_QK, band, bands_text
from scoring.exercises.limits import ANSWERS_FOR_ICC
from scoring.exercises.selectors import latest_exercise_icc
from scoring.models import CalibrationJob


def _calibration_scope(request: HttpRequest) -> tuple[Role | None, Level | None]:
    role = Role.objects.filter(pk=optional_id(request.GET, "role") or 0).first()
    if role is None:
        role = Role.objects.filter(snapshots__isnull=False).distinct().order_by("name").first()
    level = Level.objects.filter(pk=optional_id(request.GET, "level") or 0).first()
    return role, level


@login_required
def calibration(request: HttpRequest) -> HttpResponse:
    """The calibration dashboard: leads see the panel; others see their own row."""
    role, level = _calibration_scope(request)
    snapshot = selectors.latest_snapshot(role=role, level=level) if role else None
    result = None
    full = is_lead(request.user)  # the whole panel's figures, unless blind in the scope
    if snapshot is not None:
        blind_in = selectors.blind_loops(user=request.user, snapshot=snapshot)
        full = full and not blind_in
        result = selectors.result_visible_to(
            user=request.user, snapshot=snapshot, blind_in=blind_in
        )
    job = None
    job_id = optional_id(request.GET, "job")
    if job_id is not None and is_lead(request.user):
        job = CalibrationJob.objects.filter(pk=job_id).first()
    charts = None
    if result and role is not None:  # a result is a role's snapshot's
        result = selectors.for_dashboard(result)
        # The snapshot keeps usernames (its JSON contract); people read names.
        names = selectors.display_names(row["interviewer"] for row in result["interviewers"])
        for row in result["interviewers"]:
            row["name"] = names[row["interviewer"]]
            # The table shows the reason's first clause; the whole of it on hover.
            row["reason_short"] = (row.get("reason") or "").split(":")[0] or None
            row["mark"] = _severity_mark(row)
        charts = {
            "interviewers": [
                {
                    # Unique per row (two people may share a name): the chart keys on it.
                    "name": row["interviewer"]
                    if row["name"] == row["interviewer"]
                    else f"{row['name']} ({row['interviewer']})",
                    "severity": row["severity_shrunk"],
                    "severity_ci": row["severity_shrunk_ci"],
                    "raw": row["severity"],
                    "gap": row.get("copanelist_gap"),
                }
                for row in result["interviewers"]
            ],
            "candidates": [
                {"name": row["candidate"], "raw": row["raw_mean"], "adjusted": row["adjusted"]}
                for row in result["candidates"]
            ],
            "trend": _in_viewer_zone(selectors.trend(role=role, level=level)) if full else [],
            "zone": _zone_label(),
        }
    return render(
        request,
        "scoring/calibration.html",
        {
            "roles": Role.objects.order_by("name"),
            "levels": Level.objects.order_by("rank"),
            "role": role,
            "level": level,
            "snapshot": snapshot,
            "result": result,
            "charts": charts,
            "job": job,
            "checked_again": selectors.checked_since(snapshot=snapshot) if snapshot else None,
            "exercise_icc": latest_exercise_icc(role=role) if full and role else None,
            # The answers (and candidates in the ratings) the ICC card asks for.
            "icc_min": ANSWERS_FOR_ICC,
            "bands": _reliability_bands(result) if full and result else None,
            "full": full,
            "viewer": _viewer(request, full=full, result=result),
            "alpha": _alpha_headline(result) if full and result else None,
            **(_candidate_page(request, result) if full and result else {}),
        },
    )


CANDIDATES_PER_PAGE = 50


def _candidate_page(request: HttpRequest, result: dict[str, Any]) -> dict[str, Any]:
    """Return one page of the candidates table, searched by name (?q=, ?page=); the
    chart keeps every candidate. A page past the last shows the last; a page that is
    not a number from 1 is a 400 (core.http.params)."""
    wanted = one(request.GET, "q", max_length=200).strip()
    rows = result["candidates"]
    if wanted:
        folded = wanted.casefold()
        rows = [row for row in rows if folded in str(row["candidate"]).casefold()]
    page = Paginator(rows, CANDIDATES_PER_PAGE).get_page(optional_page(request.GET))
    query = request.GET.copy()
    query.pop("page", None)
    return {"candidates": page, "candidates_q": wanted, "candidates_query": query.urlencode()}


def _severity_mark(row: dict[str, Any]) -> str | None:
    """Return the words that stand in for a severity the design cannot give, or None:
    "compared within group" (a severity relative to the group only, not shown here as
    a number) or "not separable" (from their questions)."""
    if row.get("severity_shrunk") is not None:
        return None
    if row.get("compared_within"):
        return "compared within group"
    if row.get("separable") is False:
        return "not separable"
    return None


def _alpha_headline(result: dict[str, Any]) -> dict[str, Any]:
    """Return the alpha the page may headline, or why it is withheld: under 40 pairable
    ratings a question, the interval alpha reads low and its interval covers less
    (definitions: reliability.krippendorff_alpha_headline)."""
    reliability = result["reliability"]
    reason = reliability.get("krippendorff_alpha_headline_reason")
    if reason:
        return {"interval": None, "withheld": reason}
    return {"interval": reliability["krippendorff_alpha"]["interval"], "withheld": None}


def _zone_label() -> str:
    """Return the viewer's zone as the page names it: "Europe/Berlin, CET", or "UTC"."""
    name = timezone.get_current_timezone_name()
    abbreviation = timezone.localtime().strftime("%Z")
    return name if name == abbreviation else f"{name}, {abbreviation}"


def _in_viewer_zone(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the trend's points each with its label in the viewer's zone (the page's
    active zone: core.accounts.zones), abbreviation included."""
    for point in points:
        moment = timezone.localtime(datetime.fromisoformat(point["computed_at"]))
        point["label"] = dateformat.format(moment, "j M H:i T")
    return points


def _reliability_bands(result: dict[str, Any]) -> dict[str, Any]:
    """Return the band of the alpha and of G(q,k), and where the bands come from."""
    reliability = result["reliability"]
    return {
        "alpha": band(ALPHA, _alpha_headline(result)["interval"]),
        "g_qk": band(G_QK, reliability.get("g_qk")),
        "alpha_scale": bands_text(ALPHA),
        "g_qk_scale": bands_text(G_QK),
        "alpha_source": BAND_SOURCES[ALPHA],
        "g_qk_source": BAND_SOURCES[G_QK],
    }


def _viewer(request: HttpRequest, *, full: bool, result: dict[str, Any] | None) -> str:
    """Return who is reading, for the page to say what they see: "lead" (the whole
    panel), "recruiter" (who rates no one here: no row of their own) or "interviewer"
    (their own row; a lead blind in the scope reads as one)."""
    if full:
        return "lead"
    # A row of theirs, or one held back (the note): they rate, whatever else they do.
    rates = bool(result and (result["interviewers"] or result.get("note")))
    if is_recruiter(request.user) and not is_lead(request.user) and not rates:
        return "recruiter"
    return "interviewer"


@login_required
@require_POST
def calibration_run(request: HttpRequest) -> HttpResponse:
    if not is_lead(request.user):
        raise Http404
    role = get_object_or_404(Role, pk=optional_id(request.POST, "role") or 0)
    job = services.calibration_request(role=role, by=signed_in(request))
    query = urlencode({"role": role.pk, "level": request.POST.get("level", ""), "job": job.pk})
    return redirect(f"{reverse('scoring:calibration')}?{query}")


EXPORT_COLUMNS = {
    "interviewers": ["interviewer", "ratings", "mean", "severity_shrunk",
                     "severity_shrunk_ci_low", "severity_shrunk_ci_high",
                     "severity_reliability", "severity", "severity_ci_low", "severity_ci_high",
                     "severity_se", "severity_p", "severity_q", "separable",
                     "shared_question_share", "copanelist_gap", "copanelist_gap_ci_low",
                     "copanelist_gap_ci_high", "agreement", "agreement_kappa",
                     "peer_agreement_kappa", "comparable", "flag", "detectable_severity",
                     "period_start", "period_end", "ratings_previous", "severity_previous",
                     "severity_change", "severity_change_ci_low", "severity_change_ci_high",
                     "leniency", "leniency_ci_low", "leniency_ci_high"],
    "questions": ["question", "ratings", "mean", "sd", "discrimination",
                  "discrimination_decision", "asked_30_days", "asked_90_days", "flag"],
    "candidates": ["candidate", "ratings", "raw_mean", "adjusted", "adjusted_ci_low",
                   "adjusted_ci_high", "adjusted_se", "estimable"],
}  # fmt: skip
# Columns that take one part of a snapshot field, so that every cell is one number a
# spreadsheet can use: (field, index or key). Positive severity and gap = harsher;
# leniency (positive = more lenient) comes last, deprecated.
EXPORT_PARTS: dict[str, tuple[str, int | str]] = {
    "leniency_ci_low": ("leniency_ci", 0),
    "leniency_ci_high": ("leniency_ci", 1),
    "copanelist_gap_ci_low": ("copanelist_gap_ci", 0),
    "copanelist_gap_ci_high": ("copanelist_gap_ci", 1),
    "severity_ci_low": ("severity_ci", 0),
    "severity_ci_high": ("severity_ci", 1),
    "severity_shrunk_ci_low": ("severity_shrunk_ci", 0),
    "severity_shrunk_ci_high": ("severity_shrunk_ci", 1),
    "adjusted_ci_low": ("adjusted_ci", 0),
    "adjusted_ci_high": ("adjusted_ci", 1),
    "asked_30_days": ("exposure", "last_30_days"),
    "period_start": ("period", "start"),
    "period_end": ("period", "end"),
    "severity_change_ci_low": ("severity_change_ci", 0),
    "severity_change_ci_high": ("severity_change_ci", 1),
    "asked_90_days": ("exposure", "last_90_days"),
}


@login_required
def calibration_export(request: HttpRequest) -> HttpResponse:
    """Download one table of the latest snapshot as CSV (leads); the export is audited."""
    if not is_lead(request.user):
        raise Http404
    role, level = _calibration_scope(request)
    section = optional_choice(request.GET, "table", EXPORT_COLUMNS) or "interviewers"
    snapshot = selectors.latest_snapshot(role=role, level=level) if role else None
    if role is None or snapshot is None:
        raise Http404
    columns = EXPORT_COLUMNS[section]
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"calibration-{role.name}-{level.name if level else 'all'}-{section}.csv"
    response["Content-Disposition"] = f'attachment; filename="{slugify(name[:-4])}.csv"'
    writer = spreadsheet.Writer(response)
    writer.writerow(columns)
    # What the lead may read now: a lead blind in a loop of the scope gets their own row.
    for row in selectors.result_visible_to(user=request.user, snapshot=snapshot).get(section, []):
        writer.writerow([_csv_value(row, column) for column in columns])
    audit_event_record(
        actor=signed_in(request),
        action="calibration.exported",
        target=f"{role} {level or 'all levels'}",
        table=section,
        snapshot=snapshot.pk,
    )
    return response


def _csv_value(row: dict[str, Any], column: str) -> object:
    field, part = EXPORT_PARTS.get(column, (column, None))
    value = row.get(field)
    if part is not None and value is not None:
        value = value[part]
    return "" if value is None else value
