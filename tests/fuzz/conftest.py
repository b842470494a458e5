"""What the fuzz did, kept across its tests and printed at the end of the run."""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Run:
    """One persona's fuzz: cases sent, time taken, status codes documented and seen."""

    cases: int = 0
    seconds: float = 0.0
    seen: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    documented: dict[str, set[int]] = field(default_factory=dict)


RUNS: dict[str, Run] = {}


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RUNS:
        return
    cases = sum(run.cases for run in RUNS.values())
    seconds = sum(run.seconds for run in RUNS.values())
    operations = len({label for run in RUNS.values() for label in run.documented})
    each = ", ".join(f"{persona} {run.cases}" for persona, run in RUNS.items())
    terminalreporter.write_sep("-", "schemathesis")
    terminalreporter.write_line(
        f"schemathesis: {cases} cases, {operations} operations, {len(RUNS)} personas "
        f"({each}) in {seconds:.0f} s"
    )
