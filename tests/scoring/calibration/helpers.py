"""Helpers for the calibration tests: CSV files, the real commands, row counts.

Data goes in the way the product takes it in (`import_scorecards`) and comes out
the way other tools read it (`calibrate --json`), so the tests cover the plumbing
between the CSV, the database and the snapshot, not the maths of
scoring.calibration.stats.
"""

import csv
import json
from collections.abc import Iterable, Sequence
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management import call_command

from core.permissions import INTERVIEWER
from interviews.models import Candidate, Interview, Loop
from kit.models import Question, Role
from scoring.models import CalibrationJob, CalibrationSnapshot, QuestionRating, Scorecard
from tests.conftest import make_user
from tests.scoring.helpers import draft, submitted
from tests.support.loops import Seat, build_loop

ROLE = "AI Infrastructure Engineer"
HEADER = ("candidate", "interviewer", "question", "rating")


def write_csv(path: Path, rows: Iterable[Sequence[object]], header: Sequence[str] = HEADER) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def import_scorecards(path: Path, *args: str) -> str:
    """Run `import_scorecards` and return what it printed."""
    out = StringIO()
    call_command("import_scorecards", str(path), *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def calibrate_json(*args: str) -> Any:
    """Run `calibrate --json` and return the document it printed."""
    out = StringIO()
    call_command("calibrate", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def counts() -> dict[str, int]:
    """Rows of every table an import or a run could write, so any write shows."""
    return {
        model.__name__: model.objects.count()
        for model in (
            Role,
            Candidate,
            User,
            Question,
            Loop,
            Interview,
            Scorecard,
            QuestionRating,
            CalibrationJob,
            CalibrationSnapshot,
        )
    }


def grid_rows(
    grid: Sequence[Sequence[int | None]],
    *,
    unit: str = "unit-{n}",
    coder: str = "coder-{n}",
    question: str = "Calibration exercise",
) -> list[tuple[str, str, str, int]]:
    """Rows for a units x coders grid (None: that coder did not rate that unit)."""
    return [
        (unit.format(n=u), coder.format(n=c), question, value)
        for u, row in enumerate(grid, start=1)
        for c, value in enumerate(row, start=1)
        if value is not None
    ]


def lenient_panel_rows(*, candidates: int = 10, lenient: str = "rater-x") -> list[list[object]]:
    """A panel where `lenient` rates every candidate about 1.5 points above everyone else.

    Six ordinary raters and `lenient` rate every candidate on two questions (scale
    1-7). The ordinary raters agree on the candidate's level (2 to 4) give or take
    one point, so only `lenient` stands out: its gap to co-panelists is about +1.5,
    while each ordinary rater's gap is about -0.25 (under the 0.5 flag threshold).
    """
    rows: list[list[object]] = []
    for c in range(1, candidates + 1):
        level = 2 + c % 3
        for r in range(1, 7):
            for q in (1, 2):
                rows.append([f"Candidate {c:03}", f"rater-{r}", f"Question {q}",
                             level + (c + 2 * r + q) % 3 - 1])  # fmt: skip
        for q in (1, 2):
            rows.append([f"Candidate {c:03}", lenient, f"Question {q}", level + 1 + (c + q) % 2])
    return rows


class _Tables(HTMLParser):
    """Collect each <table> under the <h2> before it, as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.heading = ""
        self.in_heading = False
        self.tables: dict[str, list[list[str]]] = {}
        self.row: list[str] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self.in_heading, self.heading = True, ""
        elif tag == "table":
            self.tables[self.heading] = []
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2":
            self.in_heading = False
        elif tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[self.heading].append(self.row)
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.in_heading:
            self.heading += data
        if self.cell is not None:
            self.cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    """Return the page's tables by the text of the <h2> above each (header row first)."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def live_panel() -> None:
    """One interview scored in the product: pat submits (2), the shadow sue submits (4)
    and dan keeps a draft (1). Only pat's card is an input to calibration."""
    panelist, drafter, shadow = (make_user(n, INTERVIEWER) for n in ("pat", "dan", "sue"))
    built = build_loop(seats=[Seat(interviewers=[panelist, drafter], shadow=shadow)])
    interview = built.interviews[0]
    submitted(panelist, interview, rating=2)
    submitted(shadow, interview, rating=4)
    draft(drafter, interview, rating=1)
