"""Data shared by the stats tests: a published ICC example and a connected panel design."""

from __future__ import annotations

import numpy as np

# Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in
# assessing rater reliability. Psychological Bulletin, 86(2), 420-428.
# Table 2 data (6 targets x 4 judges) and the Table 4 estimates.
SHROUT_FLEISS_GRID = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]
SHROUT_FLEISS_TABLE_4 = {
    "ICC1": 0.17,
    "ICC2": 0.29,
    "ICC3": 0.71,
    "ICC1k": 0.44,
    "ICC2k": 0.62,
    "ICC3k": 0.91,
}


def _connected_design(
    seed: int, n_candidates: int = 60, n_interviewers: int = 8, n_questions: int = 6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    per = 6
    candidate = np.repeat(np.arange(n_candidates), per)
    interviewer = rng.integers(0, n_interviewers, candidate.size)
    question = rng.integers(0, n_questions, candidate.size)
    return candidate, interviewer, question
