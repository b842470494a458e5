"""Whether an interviewer's severity can be told apart from their questions' difficulty.

The additive model learns a question's difficulty from everyone who asks it.
An interviewer who asks only questions nobody else asks gives the model no
way to split "this interviewer rates low" from "these questions are hard":
the two effects are aliased, and the fit's number for either is an artefact
of the constraint that picks one solution (a slightly lenient interviewer
asking only hard questions came out "harsh" with a tight interval).

Criterion (chosen to be explainable to the interviewer concerned): severity
is separable when at least half of the interviewer's ratings are on questions
that at least two other interviewers also asked. Two others, not one, so a
question shared with a single colleague (whose own severity then carries the
whole comparison) does not count as calibrated ground. Thin interviewers are
judged the same way; their imprecision is the standard error's business.
"""

from __future__ import annotations

import numpy as np

from scoring.calibration.stats._arrays import FloatArray, IntArray, dense_keys, safe_div

__all__ = ["MIN_OTHER_ASKERS", "MIN_SHARED_SHARE", "shared_question_share"]

MIN_OTHER_ASKERS = 2
MIN_SHARED_SHARE = 0.5


def shared_question_share(
    interviewer: IntArray,
    question: IntArray,
    n_interviewers: int,
    n_questions: int,
    min_others: int = MIN_OTHER_ASKERS,
) -> FloatArray:
    """Return per interviewer the share of their ratings on questions that at least
    ``min_others`` other interviewers also asked (NaN without ratings).

    1. Count, per question, the distinct interviewers who asked it.
    2. A rating is on shared ground when its question's count, less its own
       interviewer, reaches ``min_others``.
    """
    if interviewer.size == 0:
        return np.full(n_interviewers, np.nan)
    key = question * n_interviewers + interviewer
    if dense_keys(key.size, n_questions * n_interviewers):
        asked = np.bincount(key, minlength=n_questions * n_interviewers) > 0
        askers = asked.reshape(n_questions, n_interviewers).sum(axis=1)
    else:
        askers = np.bincount(np.unique(key) // n_interviewers, minlength=n_questions)
    shared = (askers[question] - 1 >= min_others).astype(np.float64)
    ratings = np.bincount(interviewer, minlength=n_interviewers)
    return safe_div(np.bincount(interviewer, shared, minlength=n_interviewers), ratings)
