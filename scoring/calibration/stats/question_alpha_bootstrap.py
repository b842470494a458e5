"""Intervals for the stratified alpha: a loop bootstrap, widened for the interviewers.

Loops and interviewers are crossed: every loop has its own panel, and every
interviewer rates many loops. Resampling loops (Hayes and Krippendorff 2007
resample the data) gives the variance of alpha over candidates, their
scorecards' halo and noise, with the roster's interviewers held as drawn.
Another roster would draw other interviewers too, and their severities,
shared by every loop they rate, move alpha in all those loops at once. No
resampling plan gets both parts right for crossed data (McCullagh 2000):
resampling interviewers as well counts each unit's within-loop disagreement
again (a two-value unit belongs to both its interviewers), which in sparse
panels doubles the variance (Owen's 2007 sum of one-way variances, measured
at 2.1 x the loop variance on the tests' rosters, covers 1.00). So
question_alpha_intervals adds only what the loop bootstrap leaves out:

1. Bootstrap the loops (_loop_resamples): ``resamples`` draws of the loops
   holding a pairable unit, with replacement, each read as data in which
   every drawn copy of a loop is a loop, except that two copies of one loop
   are never paired in D_e (D_e never pairs a value with itself; pairing
   them, at distance 0, centred the resamples about one standard error
   below the estimate).
2. Recentre: the resamples' percentiles are taken about the resamples' mean
   and placed about the estimate. The resamples sit below the estimate by
   more than the estimate sits below the truth (simulated rosters of the
   tests' design, 3,400 of them: 0.006, 0.034 and 0.012 below the estimate
   for nominal, ordinal and interval alpha; the estimates 0.000, 0.002 and
   0.002 below the truth), so the shift is the resampling's own, largest
   for ordinal alpha, whose distances each resample recomputes from its own
   marginals. Left in, it moved the ordinal interval off the truth (coverage
   0.92 rather than 0.94 over those rosters).
3. Interviewers (_interviewer_variances): with values x_v on the level's
   scale (rescaled rating, mid-rank, or a one-hot vector for nominal, so
   that n D is sum m / (m - 1) |x_v - mean|^2 at every level) and an
   additive model x_v = unit part + b_j + noise, b_j ~ (0, S) independent
   over interviewers, the part of alpha that depends on the interviewers
   alone is, to first order, -b'Qb / E with Q = A - (1 - alpha) C,
   A = sum_u m_u/(m_u - 1) Z_u'(I - J/m_u)Z_u and C the same over each
   question's values (Z the value x interviewer incidence, E = sum_q n_q
   D_e,q). Everything else (interviewer x loop terms, halo, noise) varies
   with the loops and is in step 1. For normal b,
   V_interviewers = 2 tr(Q^2) tr(S^2) / E^2 (Searle 1971).
4. S by moments (Henderson 1953): with d_v = x_v - its unit's mean (the
   loop and question cancel), products d_v d_w' of one interviewer's
   values in different loops share b_j but no noise, halo included, so
   sum_j sum_{v, w of j in different loops} d_v d_w' has expectation
   c S, c = |M|_F^2 - sum over scorecards of |sum_v N_v|^2, N = (I - P)Z,
   M = Z'N, P the unit means. Negative eigenvalues of the estimate are set
   to zero; with no interviewer in two loops there is nothing to add.
5. Widen the recentred percentiles about the estimate by
   sqrt((V_loops + V_interviewers) / V_loops), V_loops the resamples'
   variance, and cap them at alpha's maximum, 1.

Over those 3,400 simulated rosters the 95% intervals cover the truth 0.951,
0.948 and 0.951 of the time (percentile intervals: 0.949, 0.923, 0.941).

References
----------
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
reliability measure for coding data. Communication Methods and Measures,
1(1), 77-89.

Henderson, C. R. (1953). Estimation of variance and covariance components.
Biometrics, 9(2), 226-252.

McCullagh, P. (2000). Resampling and exchangeable arrays. Bernoulli, 6(2),
285-301.

Owen, A. B. (2007). The pigeonhole bootstrap. The Annals of Applied
Statistics, 1(2), 386-411.

Searle, S. R. (1971). Linear Models. Wiley.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from scoring.calibration.stats._arrays import (
    BoolArray,
    FloatArray,
    IntArray,
    unique_categories,
    unique_inverse,
)
from scoring.calibration.stats._bootstrap import count_weight_blocks

if TYPE_CHECKING:  # question_alpha imports this module
    from scoring.calibration.stats.question_alpha import AlphaEstimate, AlphaUnits

__all__ = ["MAX_BOOTSTRAP_CATEGORIES", "question_alpha_intervals"]

# Above this many distinct rating values the per-question coincidence tables
# (categories^2 cells per question and resample) outgrow the data, so the
# bootstrap keeps to the interval level, which needs four moments per unit.
MAX_BOOTSTRAP_CATEGORIES = 50

# Cells of one block of resample weights (loops x resamples), about 8 MB: the
# draws are the same whatever the block (one generator, read in order), and
# memory a process touches first is slow to get (a run with 32 MB blocks
# spent 0.5 s more on it, on a virtual machine).
_BLOCK_CELLS = 1_000_000


def question_alpha_intervals(
    units: AlphaUnits,
    estimate: AlphaEstimate,
    low: FloatArray,
    high: FloatArray,
    *,
    resamples: int,
    seed: int,
    confidence: float,
    centre: dict[str, float | None] | None = None,
    share: float = 1.0,
) -> dict[str, tuple[float, float] | None]:
    """Return each level's interval: recentred loop-bootstrap percentiles, widened (module steps).

    ``units`` may be a random subset of the loops, ``share`` of them: the
    resamples' deviations are then scaled by sqrt(share), the interviewers'
    variance is not, and the intervals sit about ``centre`` (the whole
    data's alphas; default the estimate's). Levels without a defined
    estimate, or with fewer than two resamples that have expected
    disagreement, get None.
    """
    categories, cat = unique_categories(units.value)
    resample: Callable[[FloatArray], dict[str, FloatArray]]
    if categories.size <= MAX_BOOTSTRAP_CATEGORIES:
        resample = _Coincidences.build(units, categories, cat, low, high).alphas
    else:
        resample = _Moments.build(units, low, high).alphas
    drawn = _loop_resamples(resample, units.n_loops, resamples, seed)
    extra = _interviewer_variances(units, estimate, cat, int(categories.size), list(drawn))
    tail = (1.0 - confidence) / 2.0 * 100.0
    out: dict[str, tuple[float, float] | None] = dict.fromkeys(drawn)
    about = estimate.alpha if centre is None else centre
    for level, alphas in drawn.items():
        alpha = about[level]
        if alpha is None or estimate.alpha[level] is None or alphas.size < 2:
            continue
        lo, hi = np.percentile(alphas, [tail, 100.0 - tail])
        mean, spread = float(alphas.mean()), float(alphas.var(ddof=1)) * share
        widen = math.sqrt(1.0 + extra.get(level, 0.0) / spread) if spread > 0 else 1.0
        scale = math.sqrt(share) * widen
        out[level] = (alpha + (lo - mean) * scale, min(alpha + (hi - mean) * scale, 1.0))
    return out


def _loop_resamples(
    resample: Callable[[FloatArray], dict[str, FloatArray]],
    n_loops: int,
    resamples: int,
    seed: int,
) -> dict[str, FloatArray]:
    """Return each level's alphas over ``resamples`` draws of n_loops loops with replacement.

    A block of resamples at a time, as a loops x resamples matrix of how many
    times each loop was drawn (stats._bootstrap.count_weight_blocks, the
    draw the pooled alpha's interval shares).
    """
    rng = np.random.default_rng(seed)
    drawn: dict[str, list[FloatArray]] = {}
    for counts in count_weight_blocks(rng, n_loops, resamples, _BLOCK_CELLS):
        for level, alphas in resample(np.ascontiguousarray(counts.T, dtype=np.float64)).items():
            drawn.setdefault(level, []).append(alphas)
    return {level: np.concatenate(parts) for level, parts in drawn.items()}


# --------------------------------------------------------------------------
# The interviewers' draw
# --------------------------------------------------------------------------


def _interviewer_variances(
    units: AlphaUnits, estimate: AlphaEstimate, cat: IntArray, n_values: int, levels: list[str]
) -> dict[str, float]:
    """Return per level V_interviewers = 2 tr(Q^2) tr(S^2) / E^2 (module steps 3 and 4)."""
    keep = estimate.counted
    if not keep.any():
        return {}
    unit = units.unit[keep]
    _, who = unique_inverse(units.interviewer[keep], int(units.interviewer.max()) + 1)
    n_i = int(who.max()) + 1
    m = units.m[unit]
    mf = m.astype(np.float64)
    _, card = unique_inverse(units.loop[unit] * n_i + who, units.n_loops * n_i)
    # Every ordered pair (v, w) of values of one unit, v == w included (values
    # are sorted by unit, so a unit's values are consecutive).
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, unit.size]))
    v = np.repeat(np.arange(unit.size), m)
    w = first[v] + np.arange(v.size) - np.repeat(np.cumsum(m) - m, m)

    def by_pairs(weights: FloatArray) -> sparse.csr_matrix:
        # sum_u weight_u c_u c_u' with c_u the unit's interviewers (coo sums repeats)
        return sparse.csr_matrix((weights, (who[v], who[w])), shape=(n_i, n_i))

    n_j = np.bincount(who, minlength=n_i).astype(np.float64)
    a = sparse.csr_matrix(
        sparse.diags(sum_by(who, mf / (mf - 1.0), n_i)) - by_pairs(1.0 / (mf[v] - 1.0))
    )
    mm = sparse.csr_matrix(sparse.diags(n_j) - by_pairs(1.0 / mf[v]))
    # c = |M|^2 - sum over scorecards of |sum_v N_v|^2 (module step 4).
    n_card = sparse.csr_matrix(
        (np.r_[np.ones(unit.size), -1.0 / mf[v]], (np.r_[card, card[v]], np.r_[who, who[w]])),
        shape=(int(card.max()) + 1, n_i),
    )
    total = float(mm.multiply(mm).sum())
    c = total - float(n_card.multiply(n_card).sum())
    if not c > 1e-9 * total:
        return {}
    a2, ac, c2 = _frobenius(a, who, units.question[unit], n_i)
    trace: dict[str, float] = {}
    for level in levels:
        if level == "nominal":
            trace[level] = _nominal_trace(unit, who, card, cat[keep], n_values, v, w, mf, c)
        else:
            x = (estimate.scaled if level == "interval" else estimate.mid_rank)[keep]
            dev = x - (sum_by(unit, x, units.n_units) / units.m)[unit]
            s = float(np.sum(sum_by(who, dev, n_i) ** 2) - np.sum(np.bincount(card, dev) ** 2))
            trace[level] = max(s / c, 0.0) ** 2
    out: dict[str, float] = {}
    for level, tr_s2 in trace.items():
        alpha, expected = estimate.alpha[level], estimate.expected.get(level, 0.0)
        if alpha is not None and expected > 0:
            q2 = a2 - 2.0 * (1.0 - alpha) * ac + (1.0 - alpha) ** 2 * c2
            out[level] = 2.0 * q2 * tr_s2 / expected**2
    return out


def _frobenius(
    a: sparse.csr_matrix, who: IntArray, question: IntArray, n_i: int
) -> tuple[float, float, float]:
    """Return |A|^2, <A, C> and |C|^2 (Frobenius), C = sum_q n_q/(n_q - 1) Z_q'(I - J/n_q)Z_q.

    C = diag(g) - G with G = K W K', K the interviewer x question counts and
    W = diag(1 / (n_q - 1)); |G|^2 = |W^(1/2) K'K W^(1/2)|^2 needs only the
    questions x questions K'K, never the interviewers x interviewers G.
    """
    questions, q = unique_inverse(question, int(question.max()) + 1)
    counts = sparse.csr_matrix((np.ones(who.size), (who, q)), shape=(n_i, questions.size))
    n_q = np.bincount(q).astype(np.float64)
    weight = 1.0 / (n_q - 1.0)  # every counted question has two values or more
    g: FloatArray = np.asarray(counts @ (n_q * weight)).ravel()
    g_diag = np.asarray(counts.multiply(counts) @ weight).ravel()
    gram = (counts.T @ counts).toarray() * np.sqrt(weight)[:, None] * np.sqrt(weight)[None, :]
    c2 = float(g @ g - 2.0 * g @ g_diag + np.sum(gram * gram))
    a_g = float(np.asarray((a @ counts).multiply(counts) @ weight).sum())
    ac = float(a.diagonal() @ g) - a_g
    return float(a.multiply(a).sum()), ac, c2


def _nominal_trace(
    unit: IntArray,
    who: IntArray,
    card: IntArray,
    cat: IntArray,
    k: int,
    v: IntArray,
    w: IntArray,
    mf: FloatArray,
    c: float,
) -> float:
    """Return tr(S^2) for one-hot values, d_v = e_(c_v) - n_u. / m_u (module step 4)."""
    n_i = int(who.max()) + 1
    by_who = np.bincount(who * k + cat, minlength=n_i * k).astype(np.float64)
    by_who -= np.bincount(who[v] * k + cat[w], 1.0 / mf[v], n_i * k)
    d_who = by_who.reshape(n_i, k)
    d_card = sparse.csr_matrix(
        (np.r_[np.ones(cat.size), -1.0 / mf[v]], (np.r_[card, card[v]], np.r_[cat, cat[w]])),
        shape=(int(card.max()) + 1, k),
    )
    s = (d_who.T @ d_who - (d_card.T @ d_card).toarray()) / c
    eigen = np.clip(np.linalg.eigvalsh((s + s.T) / 2.0), 0.0, None)
    return float(np.sum(eigen**2))


# --------------------------------------------------------------------------
# Loop resamples
# --------------------------------------------------------------------------


def sum_by(index: IntArray, weights: FloatArray, size: int) -> FloatArray:
    """Return np.bincount(index, weights, size), typed as the floats it is."""
    return np.bincount(index, weights, minlength=size).astype(np.float64, copy=False)


def _ratio(observed: FloatArray, expected: FloatArray, keep: BoolArray) -> FloatArray:
    """Return 1 - sum_q observed / sum_q expected per resample (columns), defined ones only."""
    total = np.where(keep, expected, 0.0).sum(axis=0)
    obs = np.where(keep, observed, 0.0).sum(axis=0)
    defined = total > 0
    return 1.0 - obs[defined] / total[defined]


def _expected(
    n: FloatArray, pair_sum: FloatArray, copies: FloatArray, pairs_in_copies: FloatArray
) -> FloatArray:
    """Return the halved n D_e of a resample, without pairs between copies of a loop.

    ``pair_sum`` is sum_{c,k} n_c n_k delta^2 over the resample's values,
    ``copies`` the part of it between different copies of one loop and
    ``pairs_in_copies`` how many ordered pairs those are. D_e is the mean
    delta^2 over the remaining ordered pairs; with every loop drawn once it
    is Krippendorff's sum_{c,k} n_c n_k delta^2 / (n (n - 1)).
    """
    pairs = n * n - n - pairs_in_copies
    return n * (pair_sum - copies) / (2.0 * np.maximum(pairs, 1.0))


def _scatter(marginal: FloatArray, n: FloatArray, x: FloatArray) -> FloatArray:
    """Return per question and resample sum_{c,k} n_c n_k (x_c - x_k)^2 = 2 n SS.

    ``marginal`` is questions x values x resamples and ``x`` questions x
    values (x resamples, or 1); x should be centred near its weighted mean,
    so that n sum n_c x_c^2 - (sum n_c x_c)^2 does not cancel.
    """
    s1 = np.einsum("qkb,qkb->qb", marginal, np.broadcast_to(x, marginal.shape))
    s2 = np.einsum("qkb,qkb->qb", marginal, np.broadcast_to(x * x, marginal.shape))
    return 2.0 * (n * s2 - s1 * s1)


@dataclass(frozen=True)
class _Coincidences:
    """Each loop's coincidence counts per question and pair of values, for the bootstrap.

    Column f of ``by_loop`` is one (question, c, k) seen in the data, c <= k
    as value indices; entry (f, loop) is the loop's sum over its units of
    o_ck = n_uc n_uk / (m_u - 1) (n_uc (n_uc - 1) / (m_u - 1) on the
    diagonal). ``within`` holds per loop the pairs that copies of the loop
    would form with each other: n_uc n_uk for each off-diagonal f, then
    m_u^2 per question.
    """

    # By column: the product with a loops x resamples weight matrix then
    # streams through the weights once (several times faster than by row).
    by_loop: sparse.csc_matrix  # F x loops
    within: sparse.csc_matrix  # (len(off) + questions) x loops
    marginal: sparse.csr_matrix  # (questions x values) x F: n_qc = sum_k o_ck
    off: IntArray  # the f with c < k
    off_question: IntArray
    off_c: IntArray
    off_k: IntArray
    per_question: sparse.csr_matrix  # questions x len(off): sums over a question's pairs
    position: FloatArray  # questions x values x 1: rescaled value for the interval level
    n_questions: int
    n_values: int

    @classmethod
    def build(
        cls,
        units: AlphaUnits,
        categories: FloatArray,
        cat: IntArray,
        low: FloatArray,
        high: FloatArray,
    ) -> _Coincidences:
        k = categories.size
        cell, cell_of = unique_inverse(units.unit * k + cat, units.n_units * k)
        n_cell = np.bincount(cell_of).astype(np.float64)
        cell_unit, cell_cat = cell // k, cell % k
        # Pair each cell with itself and the later cells of its unit (cells are
        # sorted by unit, then value, so c <= k).
        unit_end = np.cumsum(np.bincount(cell_unit, minlength=units.n_units))[cell_unit]
        partners = unit_end - np.arange(cell.size)
        i = np.repeat(np.arange(cell.size), partners)
        j = i + np.arange(i.size) - np.repeat(np.cumsum(partners) - partners, partners)
        product = np.where(i == j, n_cell[i] * (n_cell[i] - 1.0), n_cell[i] * n_cell[j])
        keep = product > 0
        i, j, product = i[keep], j[keep], product[keep]
        pair_unit = cell_unit[i]
        questions, q_index = unique_inverse(units.question, int(units.question.max()) + 1)
        n_q = int(questions.size)
        q = q_index[pair_unit]
        column, column_of = unique_inverse((q * k + cell_cat[i]) * k + cell_cat[j], n_q * k * k)
        f_q, f_c, f_k = column // (k * k), column // k % k, column % k
        n_loops = units.n_loops
        m = units.m.astype(np.float64)
        by_loop = sparse.csc_matrix(
            (product / (m[pair_unit] - 1.0), (column_of, units.loop[pair_unit])),
            shape=(column.size, n_loops),
        )
        off = np.flatnonzero(f_c != f_k)
        off_row = np.full(column.size, -1, dtype=np.int64)
        off_row[off] = np.arange(off.size)
        pair_off = i != j
        within = sparse.csc_matrix(
            (
                np.r_[product[pair_off], m * m],
                (
                    np.r_[off_row[column_of[pair_off]], off.size + q_index],
                    np.r_[units.loop[pair_unit[pair_off]], units.loop],
                ),
            ),
            shape=(off.size + n_q, n_loops),
        )
        rows = np.r_[f_q * k + f_c, f_q[off] * k + f_k[off]]
        marginal = sparse.csr_matrix(
            (np.ones(rows.size), (rows, np.r_[np.arange(column.size), off])),
            shape=(n_q * k, column.size),
        )
        per_question = sparse.csr_matrix(
            (np.ones(off.size), (f_q[off], np.arange(off.size))), shape=(n_q, off.size)
        )
        position = (categories[None, :] - low[questions][:, None]) / (
            high[questions] - low[questions]
        )[:, None]
        # Centre on each question's mean rescaled value, for _scatter.
        counts = np.bincount(q_index[units.unit] * k + cat, minlength=n_q * k).reshape(n_q, k)
        position -= (counts * position).sum(axis=1, keepdims=True) / counts.sum(
            axis=1, keepdims=True
        )
        return cls(
            by_loop=by_loop,
            within=within,
            marginal=marginal,
            off=off,
            off_question=f_q[off],
            off_c=f_c[off],
            off_k=f_k[off],
            per_question=per_question,
            position=position[:, :, None],
            n_questions=n_q,
            n_values=k,
        )

    def alphas(self, weights: FloatArray) -> dict[str, FloatArray]:
        """Return each level's alpha per resample, given loops x resamples weights."""
        y = np.asarray(self.by_loop @ weights)
        # A loop drawn w times gives w (w - 1) ordered pairs of copies.
        z = np.asarray(self.within @ (weights * weights - weights))
        b = y.shape[1]
        z_off, pairs_in_copies = z[: self.off.size], z[self.off.size :]
        marginal = np.asarray(self.marginal @ y).reshape(self.n_questions, self.n_values, b)
        n = marginal.sum(axis=1)
        keep = np.count_nonzero(marginal, axis=1) >= 2
        y_off = y[self.off]
        # Mid-ranks over n average exactly 1/2: centre them there for _scatter.
        rank = np.cumsum(marginal, axis=1)
        rank -= marginal / 2.0
        rank /= np.maximum(n, 1.0)[:, None, :]
        rank -= 0.5
        gap = rank[self.off_question, self.off_k] - rank[self.off_question, self.off_c]
        step = (
            self.position[self.off_question, self.off_k]
            - self.position[self.off_question, self.off_c]
        )
        # Per level: delta^2 of each pair c < k, and sum_{c,k} n_c n_k delta^2.
        # Observed sums are halved (each o_ck once); _expected halves its own.
        levels = {
            "nominal": (np.ones(1), n * n - np.einsum("qkb,qkb->qb", marginal, marginal)),
            "ordinal": (gap * gap, _scatter(marginal, n, rank)),
            "interval": (step * step, _scatter(marginal, n, self.position)),
        }
        return {
            level: _ratio(
                np.asarray(self.per_question @ (y_off * d2)),
                _expected(
                    n, pair_sum, 2.0 * np.asarray(self.per_question @ (z_off * d2)), pairs_in_copies
                ),
                keep,
            )
            for level, (d2, pair_sum) in levels.items()
        }


@dataclass(frozen=True)
class _Moments:
    """Each loop's per-question moments of rescaled values x, for the interval level only.

    Rows per question: n, sum x, sum x^2, observed sum_u m_u SS_u / (m_u - 1)
    (``by_loop``); and the pairs copies of the loop would form with each
    other, sum_u 2 m_u SS_u and m_u^2 (``within``). x is centred on the
    question's mean so sum x^2 - (sum x)^2 / n does not cancel.
    """

    by_loop: sparse.csc_matrix  # (questions x 4) x loops, by column as in _Coincidences
    within: sparse.csc_matrix  # (questions x 2) x loops
    n_questions: int

    @classmethod
    def build(cls, units: AlphaUnits, low: FloatArray, high: FloatArray) -> _Moments:
        questions, q_index = unique_inverse(units.question, int(units.question.max()) + 1)
        value_q = q_index[units.unit]
        x = (units.value - low[questions][value_q]) / (high[questions] - low[questions])[value_q]
        n = np.bincount(value_q).astype(np.float64)
        x -= (sum_by(value_q, x, n.size) / n)[value_q]
        m = units.m.astype(np.float64)
        s1 = sum_by(units.unit, x, units.n_units)
        s2 = sum_by(units.unit, x * x, units.n_units)
        ss = s2 - s1 * s1 / m

        def by_question(columns: list[FloatArray]) -> sparse.csc_matrix:
            width = len(columns)
            rows = (q_index[:, None] * width + np.arange(width)).ravel()
            return sparse.csc_matrix(
                (np.column_stack(columns).ravel(), (rows, np.repeat(units.loop, width))),
                shape=(questions.size * width, units.n_loops),
            )

        return cls(
            by_loop=by_question([m, s1, s2, m * ss / (m - 1.0)]),
            within=by_question([2.0 * m * ss, m * m]),
            n_questions=int(questions.size),
        )

    def alphas(self, weights: FloatArray) -> dict[str, FloatArray]:
        """Return interval alpha per resample, given loops x resamples weights."""
        y = np.asarray(self.by_loop @ weights).reshape(self.n_questions, 4, -1)
        z = np.asarray(self.within @ (weights * weights - weights)).reshape(self.n_questions, 2, -1)
        n, s1, s2, observed = y[:, 0], y[:, 1], y[:, 2], y[:, 3]
        ss = s2 - s1 * s1 / np.maximum(n, 1.0)
        # All of a question's drawn values equal: ss is rounding, not spread.
        keep = (n >= 2) & (ss > 1e-9 * s2)
        return {"interval": _ratio(observed, _expected(n, 2.0 * n * ss, z[:, 0], z[:, 1]), keep)}
