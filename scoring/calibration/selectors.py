"""Reads for calibration: snapshots, the dashboard's view of one, runs. Exercises have
their own home, scoring/exercises/."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet, Subquery, TextField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.shortcuts import get_object_or_404

from core.http.params import as_id
from core.permissions import Viewer, is_lead
from kit.models import Level, Role, RubricItem
from scoring import visibility
from scoring.calibration import stats
from scoring.models import (
    CalibrationJob,
    CalibrationSnapshot,
)

# --- calibration ----------------------------------------------------------------------------


def latest_snapshot(*, role: Role, level: Level | None = None) -> CalibrationSnapshot | None:
    return (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .first()
    )


def snapshot_text(*, pk: int) -> str:
    """Return a snapshot's result as the database encoded it, without decoding it.

    PostgreSQL's jsonb prints itself (its key order, as the API serves it);
    SQLite keeps the text the job wrote. Decoding the megabytes of a large
    snapshot only to encode them again cost `calibrate --json` most of its time.
    """
    text = Cast("result", output_field=TextField())
    found: str = CalibrationSnapshot.objects.filter(pk=pk).values_list(text, flat=True).get()
    return found


def scope_part(model: type[Role] | type[Level], given: str) -> Any:
    """Return the role or level named ``given`` (any case), or else whose id it is."""
    found = model.objects.filter(name__iexact=given).first()
    pk = as_id(given) if found is None else None
    return found if pk is None else model.objects.filter(pk=pk).first()


def snapshot_history(*, role: Role, level: Level | None = None) -> QuerySet[CalibrationSnapshot]:
    """Return a scope's snapshots, newest first, without their results (the API pages them)."""
    return (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .select_related("role", "level")
        .order_by("-computed_at", "-id")
        .defer("result")
    )


def trend(*, role: Role, level: Level | None = None, limit: int = 30) -> list[dict[str, Any]]:
    """Return the reliability figures of past snapshots, oldest first, for the trend chart."""
    # Read the figures out of the JSON in the database, not whole results.
    rows = (
        CalibrationSnapshot.objects.filter(role=role, level=level)
        .order_by("-computed_at", "-id")
        .values_list(
            "computed_at",
            KT("result__reliability__krippendorff_alpha__interval"),
            KT("result__reliability__krippendorff_alpha_pooled__interval"),
            KT("result__reliability__g_qk"),
            KT("result__inputs__ratings"),
        )[:limit]
    )
    return [
        {
            "computed_at": computed_at.isoformat(),
            # Snapshots from before the alpha was stratified by question have
            # no pooled key: their alpha measured something else, so the
            # trend leaves it out rather than join two definitions in one line.
            "alpha": _number(alpha) if pooled is not None else None,
            "g_qk": _number(g_qk),
            "ratings": _number(ratings),
        }
        for computed_at, alpha, pooled, g_qk, ratings in reversed(list(rows))
    ]


def _number(text: str | None) -> float | None:
    return None if text in (None, "", "null") else float(text)


def display_names(usernames: Iterable[str]) -> dict[str, str]:
    """Return each username's full name (the username itself where none is set), in one query."""
    names = {username: username for username in usernames}
    people = get_user_model().objects.filter(username__in=list(names))
    for username, first, last in people.values_list("username", "first_name", "last_name"):
        names[username] = f"{first} {last}".strip() or username
    return names


def checked_since(*, snapshot: CalibrationSnapshot) -> datetime | None:
    """Return when the last run of the snapshot's role that started after it was
    computed finished, if any: such a run found no new ratings and kept it."""
    done = CalibrationJob.objects.filter(
        role_id=snapshot.role_id,
        status=CalibrationJob.Status.DONE,
        started_at__gt=snapshot.computed_at,
    )
    return done.order_by("-finished_at").values_list("finished_at", flat=True).first()


def _core_points(question_ids: Iterable[int]) -> dict[int, set[str]]:
    """Return the texts of each question's core rubric items (any version), in one query."""
    points: dict[int, set[str]] = {}
    rows = RubricItem.objects.filter(
        version__question_id__in=list(question_ids), kind=RubricItem.Kind.CORE
    ).values_list("version__question_id", "text")
    for qid, text in rows:
        points.setdefault(qid, set()).add(text)
    return points


def for_dashboard(result: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a snapshot's result as the dashboard reads it (the stored JSON
    is left as it is):

    1. each question with its `least_hit` core point: a red flag or a strong answer's
       extra rarely ticked is as it should be, so neither counts;
    2. candidates strongest first, the order a debrief reads them in.
    """
    questions = result.get("questions", [])
    core = _core_points(row["question_id"] for row in questions if "question_id" in row)
    rows = []
    for row in questions:
        points = core.get(row.get("question_id"), set())
        hits = [hit for hit in row.get("rubric_hit_rates", {}).items() if hit[0] in points]
        rows.append({**row, "least_hit": sorted(hits, key=lambda hit: hit[1])[:1]})
    candidates = sorted(
        result.get("candidates", []),
        key=lambda r: (r.get("adjusted") is None, -(r.get("adjusted") or 0)),
    )
    return {**result, "questions": rows, "candidates": candidates}


def result_visible_to(
    *, user: Viewer, snapshot: CalibrationSnapshot, blind_in: frozenset[int] | None = None
) -> dict[str, Any]:
    """Return what of a snapshot the user may see: all for leads; for anyone else
    their own interviewer row (see `own_row`), the scope, the definitions and the
    day it was computed.

    Nothing role-wide reaches a non-lead: no reliability figures, model, input
    counts, watermark or exact time, each of which steps when a co-panelist's
    card lands and so tells a blind panelist that (and when) it did. A lead who
    is blind in a loop of the scope reads as a non-lead does until their cards
    there are in: the panel's figures count that loop's cards. `blind_in`, the
    loops of the scope where the user is blind, is read unless given (blind_loops).
    """
    result = snapshot.result
    if blind_in is None:
        blind_in = blind_loops(user=user, snapshot=snapshot)
    if is_lead(user) and not blind_in:
        return {key: value for key, value in result.items() if key != "own_rows"}
    row, held_back = own_row(user=user, snapshot=snapshot, blind_in=blind_in)
    visible: dict[str, Any] = {
        "scope": _scope_of_row(result.get("scope"), row),
        "computed_at": str(result.get("computed_at", ""))[:10] or None,  # the day only
        "interviewers": [row] if row else [],
        "questions": [],
        "candidates": [],
    }
    if is_lead(user):
        visible["note"] = LEAD_BLIND
    elif held_back:
        visible["note"] = OWN_ROW_HELD_BACK
    if "definitions" in result:
        visible["definitions"] = result["definitions"]
    return visible


def _scope_of_row(scope: dict[str, Any] | None, row: dict[str, Any] | None) -> Any:
    """Return the scope a non-lead reads: its period is their row's. The scope's own
    ends at the newest interview in it, which steps when a card lands in a loop they
    are blind in; their row's period was stated without those loops (jobs.own_rows)."""
    if not scope or "period" not in scope:
        return scope
    period = scope["period"]
    if row is None or not period or "period" not in row:
        return {**scope, "period": None}
    return {**scope, "period": {**row["period"], "months": period["months"]}}


LEAD_BLIND = (
    "You hold a seat in this scope whose scorecard is not in: until it is, you see only"
    " your own row, as every panelist does, since the panel's figures count the other"
    " cards of that loop."
)
OWN_ROW_HELD_BACK = (
    "Your own figures are held back until the next calibration run: you hold a seat"
    " whose scorecard is not in, taken since the last run."
)


def blind_loops(*, user: Viewer, snapshot: CalibrationSnapshot) -> frozenset[int]:
    """Return the loops of the snapshot's scope where the user is blind (one query)."""
    if not user.is_authenticated:
        return frozenset()
    seats = visibility.open_seat_loops(_loops_of(snapshot), user=user)
    return seats.get(user.pk, frozenset())


def _loops_of(snapshot: CalibrationSnapshot) -> dict[str, Any]:
    scope: dict[str, Any] = {"role": snapshot.role_id}
    if snapshot.level_id is not None:
        scope["level"] = snapshot.level_id
    return scope


def own_row(
    *, user: Viewer, snapshot: CalibrationSnapshot, blind_in: frozenset[int]
) -> tuple[dict[str, Any] | None, bool]:
    """Return (the user's own interviewer row, whether it is held back), given the
    loops of the scope where they are blind now.

    The row is matched by user id only, never by a username that may have changed
    hands. Where the user was blind when the snapshot was computed, its `own_rows`
    holds their row computed without those loops; a row computed before they took
    a seat they are blind in now would count that loop, so it is held back until a
    run that knows the seat (a seat taken changes the watermark: ratings.watermark).
    """
    if not user.is_authenticated:
        return None, False
    entry = snapshot.result.get("own_rows", {}).get(str(user.pk))
    if entry is not None:
        row = entry["row"]
    else:
        rows = snapshot.result.get("interviewers", [])
        row = next((r for r in rows if r.get("interviewer_id") == user.pk), None)
    if row is None:
        return None, False  # no ratings of theirs counted then: nothing to hold back
    if not blind_in <= set(entry["blind_in"] if entry else ()):
        return None, True
    return row, False


def calibration_job_get(*, pk: int) -> CalibrationJob:
    return get_object_or_404(CalibrationJob.objects.select_related("role"), pk=pk)


# --- a loop's panel, adjusted --------------------------------------------------------------


@dataclass(frozen=True)
class PanelCalibration:
    """A loop's counted ratings as given and as an average interviewer would have
    given them, from each interviewer's severity in the role's newest calibration."""

    computed_at: datetime
    mean: stats.SeverityAdjusted
    scale_max: int


def panel_calibration(
    *, role_id: int, ratings: Sequence[tuple[int, str, float, int, int]]
) -> PanelCalibration | None:
    """Adjust a loop's ratings, (interviewer id, username, rating, scale, question id)
    each, for their interviewers' shrunk severity and their questions' easiness in the
    role's newest role-wide calibration, with a 95% interval.

    Severity is in rating points, so only ratings on one scale are adjusted: None
    when the ratings use different scales, when fewer than two interviewers' ratings
    count, or before the role has a calibration. Leads read each interviewer's
    severity itself on the calibration page; the debrief shows only the panel's mean.
    A calibration stored before shrinkage existed lends its raw severities.
    """
    scales = {scale for _, _, _, scale, _ in ratings}
    # With one interviewer counted, adjusted minus raw would be their severity, which
    # only leads read: the panel's adjusted score needs two interviewers at least.
    if len(scales) != 1 or len({pk for pk, _, _, _, _ in ratings}) < 2:
        return None
    # The newest snapshot's id first: only its interviewer and question rows are
    # read, not the JSON of every snapshot the role has.
    role_wide = CalibrationSnapshot.objects.filter(role_id=role_id, level=None)
    newest = (
        CalibrationSnapshot.objects.filter(
            pk=Subquery(role_wide.order_by("-computed_at", "-id").values("pk")[:1])
        )
        .values_list("computed_at", "result__interviewers", "result__questions")
        .first()
    )
    if newest is None:
        return None
    computed_at, calibrated, questions = newest
    # Matched by user id only: a username may have passed to someone else since.
    by_id = {r["interviewer_id"]: r for r in calibrated or [] if "interviewer_id" in r}
    severity = {pk: _severity_of(by_id.get(pk, {})) for pk, _, _, _, _ in ratings}
    easiness = {
        r["question_id"]: stats.Effect(r["easiness"], r.get("easiness_se") or 0.0)
        for r in questions or []
        if r.get("question_id") is not None and r.get("easiness") is not None
    }
    (scale_max,) = scales
    mean = stats.severity_adjusted_mean(
        [pk for pk, _, _, _, _ in ratings],
        [rating for _, _, rating, _, _ in ratings],
        severity,
        scale=(1.0, float(scale_max)),
        question=[qid for _, _, _, _, qid in ratings],
        easiness=easiness,
    )
    assert mean is not None  # there are ratings
    return PanelCalibration(computed_at=computed_at, mean=mean, scale_max=scale_max)


def _severity_of(row: dict[str, Any]) -> stats.Effect | None:
    """Return an interviewer row's shrunk severity and its posterior SD (from its
    interval), or, in a snapshot from before shrinkage, its raw severity."""
    if "severity_shrunk" not in row:
        raw = row.get("severity")
        return None if raw is None else stats.Effect(raw)
    value, interval = row["severity_shrunk"], row.get("severity_shrunk_ci")
    if value is None:
        return None
    se = 0.0 if not interval else (interval[1] - interval[0]) / (2 * stats.Z95)
    return stats.Effect(value, se)
