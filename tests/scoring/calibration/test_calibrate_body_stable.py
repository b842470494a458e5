"""`calibrate --json` on a fixed dataset gives the body it gave before periods (issue 33).

The golden body (tests/data/calibration_body_golden.json) was recorded by the code
before severities described a stated period, on a file whose interviews all fall in
one year: the keys it holds must read the same now; keys added since may be added.
Ids (which depend on the database's sequences), the watermark, computed_at and the
definitions' wording are left out.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.scoring.calibration.helpers import (
    ROLE,
    calibrate_json,
    import_scorecards,
    lenient_panel_rows,
    write_csv,
)

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "calibration_body_golden.json"
# The definitions' wording may change (they say what is new); their keys are checked
# elsewhere (test_snapshot_schema.py).
VOLATILE = {
    "definitions",
    "computed_at",
    "watermark",
    "interviewer_id",
    "candidate_id",
    "question_id",
}


def _rows() -> list[list[object]]:
    rows = lenient_panel_rows(candidates=12)
    out = []
    for row in rows:
        n = int(str(row[0]).split()[-1])
        when = f"2026-{1 + n % 10:02}-{10 + n:02} 10:00"
        out.append([*row, "yes" if (n + len(str(row[1]))) % 3 else "no",
                    "hire" if n % 2 else "no_hire", when])  # fmt: skip
    return out


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _old_keys(old: Any, new: Any, where: str = "") -> list[str]:
    """Return where `new` differs from `old` on the keys `old` has (new keys are fine)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [where]
        return [d for k in old for d in _old_keys(old[k], new.get(k, "<missing>"), f"{where}.{k}")]
    if isinstance(old, list):
        if not isinstance(new, list) or len(old) != len(new):
            return [where]
        return [
            d
            for n, (a, b) in enumerate(zip(old, new, strict=True))
            for d in _old_keys(a, b, f"{where}[{n}]")
        ]
    return [] if old == new else [f"{where}: {old!r} -> {new!r}"]


@pytest.mark.django_db
def test_the_body_keeps_every_key_it_had_before_periods(tmp_path: Path) -> None:
    header = ("candidate", "interviewer", "question", "rating", "recommendation", "decision",
              "interviewed_at")  # fmt: skip
    import_scorecards(
        write_csv(tmp_path / "panel.csv", _rows(), header), "--role", ROLE, "--scale-max", "7"
    )
    body = _stable(calibrate_json("--role", ROLE))
    old = json.loads(GOLDEN.read_text())
    assert _old_keys(old, body) == []
