"""Data shared by the calibration tests: published examples (Shrout and Fleiss 1979,
Fleiss 1971) and a connected panel design."""

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


# Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
# Psychological Bulletin, 76(5), 378-382; the worked example reproduced in
# Wikipedia's "Fleiss' kappa" article: 10 subjects, 14 raters, 5 categories.
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def _connected_design(
    seed: int, n_candidates: int = 60, n_interviewers: int = 8, n_questions: int = 6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    per = 6
    candidate = np.repeat(np.arange(n_candidates), per)
    interviewer = rng.integers(0, n_interviewers, candidate.size)
    question = rng.integers(0, n_questions, candidate.size)
    return candidate, interviewer, question
