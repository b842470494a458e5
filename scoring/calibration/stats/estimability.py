"""Which interviewers' severities the design can estimate, from the design itself.

In rating = candidate + interviewer + question + noise, with the candidates
absorbed, the interviewer and question effects b are determined up to the
null space of the reduced normal matrix C = X'MX ((interviewers + questions)
square, small). Its expected null directions are one per factor (the
sum-to-zero constraints: adding a constant to every interviewer and taking
it from every question changes nothing). Any further null direction is an
alias: a set of interviewers whose common shift cannot be told from a shift
of the questions they ask. The commonest is the specialist design, where each
interviewer asks one competency's questions: "this competency's interviewers"
and "this competency's questions" move together, and a pseudo-inverse splits
the difference arbitrarily.

A contrast a'b of interviewer effects is estimable exactly when a is
orthogonal to the interviewer rows N_I of C's null basis. So e_i - e_j is
estimable when rows i and j of N_I are equal: interviewers with equal rows
form a group, comparable with one another, and a group's mean is comparable
with another group's only where no alias separates them. A group holding
more than half the ratings is the reference: its members' severities
relative to its mean are reported. Members of the other groups are not
separable: they get no severity and no flag, only a severity within their
group (relative to the others who ask the same questions).

For designs too large for the dense null space (above MAX_DENSE_PARAMETERS)
only the aliases that the interviewer-question graph shows are found: the
connected components of "interviewer asked question". Each component is one
alias (its interviewers against its questions); a dense check finds those
and any others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components

from scoring.calibration.stats._arrays import BoolArray, FloatArray, IntArray, counts_matrix

__all__ = [
    "ALIAS_TOLERANCE",
    "Estimability",
    "fully_estimable",
    "groups_from_components",
    "groups_from_null_basis",
    "within_group",
]

# Rows of the unit-norm null basis that differ by less than this are equal.
ALIAS_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Estimability:
    """Per interviewer of the fit (compact codes): their group and whether separable.

    ``group`` labels interviewers whose severities are comparable with one
    another (0 .. n_groups - 1); ``reference`` is the group holding more than
    half the ratings (-1 when none does); ``separable`` marks its members.
    ``aliased_directions`` counts the null directions beyond the sum-to-zero
    constraints (0: every severity is estimable); ``method`` says how they
    were found ("null space" or "components").
    """

    group: IntArray
    reference: int
    separable: BoolArray
    aliased_directions: int
    method: str

    @property
    def n_groups(self) -> int:
        """Return the number of groups."""
        return int(self.group.max()) + 1 if self.group.size else 0


def fully_estimable(n_i: int) -> Estimability:
    """Return the estimability of a design without aliases: one group, all separable."""
    return Estimability(np.zeros(n_i, np.int64), 0, np.ones(n_i, bool), 0, "null space")


def _cluster_rows(rows: FloatArray, tolerance: float = ALIAS_TOLERANCE) -> IntArray:
    """Return labels grouping equal rows (within ``tolerance``), in order of first appearance."""
    label = np.full(rows.shape[0], -1, dtype=np.int64)
    group = 0
    for first in range(rows.shape[0]):
        if label[first] >= 0:
            continue
        close = (label < 0) & (np.abs(rows - rows[first]).max(axis=1, initial=0.0) <= tolerance)
        label[close] = group
        group += 1
    return label


def _with_reference(
    group: IntArray, interviewer: IntArray, aliased: int, method: str
) -> Estimability:
    """Return the estimability with the reference group: one holding most of the ratings."""
    n_groups = int(group.max()) + 1 if group.size else 0
    if n_groups <= 1:
        return Estimability(group, 0 if n_groups else -1, np.ones(group.size, bool), 0, method)
    ratings = np.bincount(group[interviewer], minlength=n_groups)
    biggest = int(np.argmax(ratings))
    reference = biggest if 2 * int(ratings[biggest]) > interviewer.size else -1
    return Estimability(group, reference, group == reference, aliased, method)


def groups_from_null_basis(null_basis: FloatArray, n_i: int, interviewer: IntArray) -> Estimability:
    """Return the groups from an orthonormal basis of C's whole null space.

    ``null_basis`` has the interviewer parameters in its first ``n_i`` rows;
    ``interviewer`` is each rating's (compact) interviewer, to find the
    reference group. Interviewers with equal rows share a group (the
    interviewer-wide constant direction shifts every row alike).
    """
    rows = null_basis[:n_i]
    aliased = max(int(null_basis.shape[1]) - 2, 0)
    group = _cluster_rows(rows / max(float(np.abs(rows).max(initial=0.0)), 1.0))
    return _with_reference(group, interviewer, aliased, "null space")


def groups_from_components(
    interviewer: IntArray, question: IntArray, n_i: int, n_q: int
) -> Estimability:
    """Return the groups as the components of the interviewer-question graph.

    Every rating joins its interviewer and its question; the interviewers of a
    component ask only the component's questions, so the component's mean
    severity is aliased with its questions' mean easiness (one null direction
    per component beyond the first). Other aliases are not looked for.
    """
    size = n_i + n_q
    graph = counts_matrix(interviewer, question + n_i, (size, size))
    _, labels = connected_components(graph, directed=False)
    _, group = np.unique(labels[:n_i], return_inverse=True)
    group = group.astype(np.int64)
    n_groups = int(group.max()) + 1 if group.size else 0
    return _with_reference(group, interviewer, max(n_groups - 1, 0), "components")


def within_group(
    severity: FloatArray, cov: FloatArray | None, var: FloatArray, group: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Return each severity less its group's mean, and that contrast's standard error.

    Estimable whatever the aliasing (the contrast sums to zero within a
    group). With the full covariance ``cov`` of the severities the variance
    is exact: a'Va with a = e_i - 1_G / n_G; without it (largest designs)
    covariances are ignored. NaN for a group of one (nothing to compare with).
    """
    out = np.full(severity.size, np.nan)
    se = np.full(severity.size, np.nan)
    for g in range(int(group.max()) + 1 if group.size else 0):
        members = np.flatnonzero(group == g)
        n_g = members.size
        if n_g < 2:
            continue
        out[members] = severity[members] - severity[members].mean()
        if cov is not None:
            block = cov[np.ix_(members, members)]
            variance = np.diag(block) - 2.0 * block.mean(axis=1) + block.mean()
        else:
            v = var[members]
            variance = v * (1.0 - 2.0 / n_g) + v.sum() / n_g**2
        se[members] = np.sqrt(np.maximum(variance, 0.0))
    return out, se
