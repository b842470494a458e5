"""Ratings files for the integration tests and benches, from the panel simulator."""

import csv
from pathlib import Path

from tests.support.simulate import simulate_panel


def write_ratings_csv(
    path: Path,
    *,
    candidates: int,
    interviewers: int,
    questions: int,
    questions_per_interview: int = 3,
    seed: int = 1,
) -> int:
    """Write a simulated panel as an import_scorecards CSV; return the number of rows."""
    panel = simulate_panel(
        candidates, interviewers, questions,
        questions_per_interview=questions_per_interview, seed=seed,
    )  # fmt: skip
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["candidate", "interviewer", "question", "rating"])
        for c, i, q, r in zip(
            panel.candidate.tolist(), panel.interviewer.tolist(), panel.question.tolist(),
            panel.rating.tolist(), strict=True,
        ):  # fmt: skip
            writer.writerow([f"candidate-{c}", f"rater-{i}", f"Question {q}", int(r)])
    return len(panel.rating)
