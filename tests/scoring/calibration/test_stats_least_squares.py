"""Tests for the absorbed least squares behind G(q,k) and the additive model.

The pseudo-inverse of the reduced normal matrix against numpy's, on designs
that do and do not confound effects. No database and no Django.
"""

from __future__ import annotations

import numpy as np
import pytest

# The module rather than the package: _pseudo_inverse is private.
from scoring.calibration.stats import _least_squares as stats
from tests.scoring.calibration.stats_data import _connected_design


def _reduced_normal_matrix(
    candidate: np.ndarray, interviewer: np.ndarray, question: np.ndarray, n_i: int, n_q: int
) -> np.ndarray:
    """X'MX of the interviewer and question columns, candidates absorbed, built densely."""
    x = np.hstack([np.eye(n_i)[interviewer], np.eye(n_q)[question]])
    z = np.eye(int(candidate.max()) + 1)[candidate]
    within = x - z @ np.linalg.solve(z.T @ z, z.T @ x)
    return x.T @ within


def test_pseudo_inverse_of_a_connected_design_is_numpys() -> None:
    candidate, interviewer, question = _connected_design(seed=9)
    c = _reduced_normal_matrix(candidate, interviewer, question, 8, 6)
    blocks = [np.arange(8), 8 + np.arange(6)]
    inverse, rank = stats._pseudo_inverse(c, blocks)
    assert rank == 14 - 2
    assert inverse == pytest.approx(np.linalg.pinv(c, rcond=1e-9), abs=1e-10)


def test_pseudo_inverse_finds_effects_the_design_confounds() -> None:
    # Interviewer 8 is the only one to ask question 6, and asks nothing else:
    # their effects are confounded, a third null direction the Cholesky
    # shortcut cannot see, so the eigendecomposition decides the rank.
    candidate, interviewer, question = _connected_design(seed=9)
    extra = np.arange(60)
    candidate = np.r_[candidate, extra]
    interviewer = np.r_[interviewer, np.full(60, 8)]
    question = np.r_[question, np.full(60, 6)]
    c = _reduced_normal_matrix(candidate, interviewer, question, 9, 7)
    blocks = [np.arange(9), 9 + np.arange(7)]
    inverse, rank = stats._pseudo_inverse(c, blocks)
    assert rank == 16 - 3
    assert inverse == pytest.approx(np.linalg.pinv(c, rcond=1e-9), abs=1e-10)
