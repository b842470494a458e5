"""Agreement with the decision, chance-corrected, and with the peers, own vote left out."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.calibration.stats._arrays import distinct_pairs
from scoring.calibration.stats.agreement import chance_corrected_agreement


def _cards(loops: list[list[tuple[int, float]]]) -> tuple[np.ndarray, ...]:
    """Return per-rating loop, interviewer and recommendation from loops of (who, rec)."""
    rows = [(g, who, rec) for g, loop in enumerate(loops) for who, rec in loop]
    g, i, rec = (np.array(col) for col in zip(*rows, strict=True))
    return g.astype(np.int64), i.astype(np.int64), rec.astype(np.float64)


def test_an_interviewer_who_says_no_to_everyone_does_not_read_as_agreeing() -> None:
    # 10 loops, 9 no-hires: interviewer 0 always says no (agrees 9 of 10 by base
    # rate alone), interviewer 1 says yes exactly on the hire and on one no-hire.
    loops = [[(0, -1.0), (1, 1.0 if g in (0, 1) else -1.0)] for g in range(10)]
    decision = np.array([1.0] + [0.0] * 9)
    g, i, rec = _cards(loops)
    out = chance_corrected_agreement(*distinct_pairs(g, i, 2), rec, decision, 2)
    assert out.decision_kappa[0] == pytest.approx(0.0)  # always no: no better than chance
    # Interviewer 1: 9 of 10 agree; chance 0.2 x 0.1 + 0.8 x 0.9 = 0.74.
    assert out.decision_kappa[1] == pytest.approx((0.9 - 0.74) / (1 - 0.74))
    assert out.decision_n.tolist() == [10, 10]


def test_the_peers_majority_leaves_the_interviewers_own_vote_out() -> None:
    # Loops of three; interviewer 0 says yes where both others say no and vice versa.
    loops = []
    for g in range(6):
        theirs = 1.0 if g % 2 else -1.0
        loops.append([(0, -theirs), (1, theirs), (2, theirs)])
    g, i, rec = _cards(loops)
    out = chance_corrected_agreement(*distinct_pairs(g, i, 3), rec, np.full(6, np.nan), 3)
    assert out.peer_kappa[0] == pytest.approx(-1.0)  # always against the others
    # Interviewers 1 and 2 see one peer agreeing and one not: a tie, skipped.
    assert out.peer_n.tolist() == [6, 0, 0]
    assert np.isnan(out.decision_kappa).all()  # no decisions
