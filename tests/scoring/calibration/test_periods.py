"""Severities describe a stated period (issue 33, item 2): the period, the read of each
rating's interview time (and the watermark that follows it when an interview moves),
and on simulated two-year rosters that a harshness that ended over a year ago is not
flagged while one that began within the year is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from interviews import scheduling
from kit.models import Role
from scoring.calibration import services
from scoring.calibration.ratings import load_ratings, watermark, watermarks
from scoring.calibration.stats import summarise
from scoring.calibration.stats.periods import CURRENT, OLDER, PREVIOUS, Period, months_before
from scoring.models import CalibrationSnapshot
from tests.scoring.calibration.helpers import (
    ROLE,
    calibrate_json,
    import_scorecards,
    lenient_panel_rows,
    write_csv,
)
from tests.scoring.helpers import submitted
from tests.support.loops import Seat, build_loop


def _seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def test_a_month_back_from_the_31st_is_the_last_day_of_a_shorter_month() -> None:
    assert months_before(datetime(2026, 3, 31, 9, tzinfo=UTC), 1) == datetime(
        2026, 2, 28, 9, tzinfo=UTC
    )
    assert months_before(datetime(2026, 1, 15, tzinfo=UTC), 13) == datetime(
        2024, 12, 15, tzinfo=UTC
    )


def test_ratings_are_coded_by_the_period_their_interview_fell_in() -> None:
    period = Period.ending(_seconds("2026-06-30 12:00"), 12)
    assert period.as_json() == {
        "start": "2025-06-30T12:00:00+00:00",
        "end": "2026-06-30T12:00:00+00:00",
        "months": 12,
        "previous": {"start": "2024-06-30T12:00:00+00:00", "end": "2025-06-30T12:00:00+00:00"},
    }
    times = [_seconds(t) for t in ("2026-06-30 12:00", "2025-06-30 12:00", "2025-06-30 11:59",
                                   "2024-06-30 12:00", "2024-06-30 11:59")]  # fmt: skip
    assert period.code(times).tolist() == [CURRENT, CURRENT, PREVIOUS, PREVIOUS, OLDER]
    assert Period.of([], 12) is None
    with pytest.raises(ValueError, match="at least one month"):
        Period.ending(0, 0)


def _dated(rows: list[list[object]], when: dict[int, str]) -> list[list[object]]:
    return [[*row, when[int(str(row[0]).split()[-1])]] for row in rows]


HEADER = ("candidate", "interviewer", "question", "rating", "interviewed_at")


@pytest.mark.django_db
def test_the_read_carries_each_interview_time_and_the_snapshot_states_its_period(
    tmp_path: Path,
) -> None:
    # Candidates 1-6 were interviewed in 2024, 7-12 in 2026: two periods of a year.
    when = {n: f"2024-0{n}-10 09:30" if n <= 6 else f"2026-0{n - 6}-10 09:30" for n in range(1, 13)}
    rows = _dated(lenient_panel_rows(candidates=12), when)
    import_scorecards(
        write_csv(tmp_path / "p.csv", rows, HEADER), "--role", ROLE, "--scale-max", "7"
    )

    data = load_ratings(Role.objects.get(name=ROLE))
    assert sorted(set(data.cards.time.tolist())) == sorted(_seconds(t) for t in when.values())

    body = calibrate_json("--role", ROLE)
    assert body["scope"]["period"] == {
        "start": "2025-06-10T09:30:00+00:00",
        "end": "2026-06-10T09:30:00+00:00",
        "months": 12,
        "previous": {"start": "2024-06-10T09:30:00+00:00", "end": "2025-06-10T09:30:00+00:00"},
    }
    rows_by = {row["interviewer"]: row for row in body["interviewers"]}
    # Every figure of a row is the period's: half of each interviewer's ratings.
    assert {row["ratings"] for row in rows_by.values()} == {12}
    lenient = rows_by["rater-x"]
    assert lenient["period"] == {"start": "2025-06-10T09:30:00+00:00",
                                 "end": "2026-06-10T09:30:00+00:00"}  # fmt: skip
    # In 2024 only candidate 6 falls in the previous period (the others are older).
    assert lenient["ratings_previous"] == 2
    assert lenient["severity_previous"] is None and lenient["severity_change"] is None
    assert body["inputs"]["ratings"] == 12 * 14  # the read is the whole scope's


def test_rescheduling_a_rated_interview_changes_the_watermark_and_the_next_snapshot(
    interviewer: User, pia: User, other_interviewer: User
) -> None:
    built = build_loop(seats=[Seat(interviewers=[interviewer, pia]),
                              Seat(interviewers=[other_interviewer, pia])])  # fmt: skip
    first, second = built.interviews
    for user, interview in ((interviewer, first), (pia, first), (other_interviewer, second),
                            (pia, second)):  # fmt: skip
        submitted(user, interview)
    role, level = built.loop.role, built.loop.level
    services.calibration_run_now(role=role)
    before = CalibrationSnapshot.objects.get(role=role, level=None)
    before_level = CalibrationSnapshot.objects.get(role=role, level=level)
    assert second.scheduled_start is not None
    assert before.result["scope"]["period"]["end"] == second.scheduled_start.isoformat()
    # Unchanged inputs: the same watermark, and a run stores nothing new.
    assert watermark(role) == before.watermark
    assert services.calibration_run_now(role=role).snapshot_id == before.pk

    # The second interview moves a month ahead, its cards already in: no card changes.
    moved = timezone.now().replace(microsecond=0) + timedelta(days=30)
    scheduling.interview_schedule(
        interview=second, interviewers=[other_interviewer, pia],
        scheduled_start=moved, scheduled_end=moved + timedelta(hours=1),
    )  # fmt: skip

    marks = watermarks(role)
    assert marks[None] != before.watermark and marks[None] == watermark(role)
    assert marks[level.pk] != before_level.watermark
    job = services.calibration_run_now(role=role)
    after = CalibrationSnapshot.objects.filter(role=role, level=None).latest("pk")
    assert after.pk != before.pk and job.snapshot_id == after.pk
    assert after.watermark == marks[None]
    assert CalibrationSnapshot.objects.filter(role=role, level=level).count() == 2
    # The stated period now ends at the moved interview, on the scope and on every row.
    end = moved.astimezone(UTC).isoformat()
    assert after.result["scope"]["period"]["end"] == end
    assert {row["period"]["end"] for row in after.result["interviewers"]} == {end}
    assert after.result["inputs"] == before.result["inputs"]  # the same ratings
    # And unchanged since: the same watermark again, no third snapshot.
    assert services.calibration_run_now(role=role).snapshot_id == after.pk
    assert CalibrationSnapshot.objects.filter(role=role, level=None).count() == 2


def _roster(seed: int, harsh_months: tuple[int, int], size: float = 0.8) -> dict[str, Any]:
    """Return the summary of a simulated two-year roster: 480 candidates evenly over 24
    months, 16 interviewers in panels of 3 asking 3 of 8 questions each (ratings 1-5),
    interviewer 0 `size` points harsh in months [a, b); the stated period is months 12-23."""
    rng = np.random.default_rng(seed)
    n_cand = 480
    month = np.arange(n_cand) * 24 // n_cand
    panels = np.argsort(rng.random((n_cand, 16)), axis=1)[:, :3]
    c = np.repeat(np.arange(n_cand), 9)
    i = np.repeat(panels.ravel(), 3)
    q = np.concatenate([rng.choice(8, 3, replace=False) for _ in range(n_cand * 3)])
    a, b = harsh_months
    harsh = size * ((i == 0) & (month[c] >= a) & (month[c] < b))
    card = np.repeat(np.arange(n_cand * 3), 3)
    latent = (rng.normal(0, 0.8, n_cand)[c] - harsh
              + rng.normal(0, 0.3, card.size // 3)[card] + rng.normal(0, 0.6, c.size))  # fmt: skip
    rating = np.clip(np.round(3 + latent), 1, 5)
    period = np.where(month[c] >= 12, CURRENT, PREVIOUS)
    return summarise(c, i, q, rating, period=period, n_interviewers=16, scale_max=5.0,
                     bootstrap_resamples=0, ndigits=None)  # fmt: skip


def test_a_harshness_that_ended_over_a_year_ago_is_not_flagged_but_its_end_shows() -> None:
    row = _roster(3, harsh_months=(0, 12))["interviewers"][0]
    assert row["flag"] is None
    assert row["severity_previous_ci"][0] > 0.3  # harsh then
    assert row["severity_change_ci"][1] < 0  # and the change is seen


def test_a_harshness_that_began_within_the_year_is_flagged() -> None:
    row = _roster(4, harsh_months=(15, 24))["interviewers"][0]
    assert row["flag"] == "harsh"
    assert row["severity_change"] > 0


ROSTERS = 20


@pytest.mark.slow
def test_over_many_rosters_ended_harshness_is_rarely_flagged_and_new_harshness_mostly() -> None:
    ended = [_roster(100 + s, (0, 12))["interviewers"][0]["flag"] for s in range(ROSTERS)]
    began = [_roster(200 + s, (15, 24))["interviewers"][0]["flag"] for s in range(ROSTERS)]
    # Measured with these seeds: 0 of 20 and 19 of 20 (docs/calibration.md, "Periods").
    assert ended.count("harsh") <= 1
    assert began.count("harsh") >= 17


@pytest.mark.django_db
def test_estimability_groups_are_named_by_their_interviewers_and_questions(
    tmp_path: Path,
) -> None:
    # Two specialists alone ask the systems question: aliased with it, as a group.
    rows: list[list[object]] = []
    for n in range(1, 13):
        for r in range(1, 5):
            rows += [[f"Candidate {n:03}", f"rater-{r}", f"Question {q}", 1 + (n + r + q) % 4]
                     for q in (1, 2)]  # fmt: skip
        rows += [[f"Candidate {n:03}", s, "Systems question", 1 + (n + k) % 4]
                 for k, s in enumerate(("spec-a", "spec-b"))]  # fmt: skip
    import_scorecards(write_csv(tmp_path / "s.csv", rows), "--role", ROLE)

    body = calibrate_json("--role", ROLE)

    groups = body["model"]["estimability"]["groups"]
    aliased = next(g for g in groups if not g["reference"])
    assert aliased["interviewers"] == ["spec-a", "spec-b"]
    assert aliased["questions"] == ["Systems question"] and aliased["questions_only_theirs"]
    row = next(r for r in body["interviewers"] if r["interviewer"] == "spec-a")
    assert row["compared_within"]["names"] == ["spec-a", "spec-b"]
