"""Interviewers: leniency against co-panelists, severity from the additive model.

Leniency compares an interviewer with the co-panelists who saw the same
candidates; severity comes from rating = overall + candidate + interviewer +
question + noise fitted over all ratings, and corrects a candidate's mean for
the interviewers they happened to meet.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse, special
from scipy.sparse.csgraph import connected_components

from scoring.calibration.stats._arrays import (
    CONFIDENCE,
    BoolArray,
    FloatArray,
    IntArray,
    as_codes,
    as_floats,
    code_count,
    compact_codes,
    counts_matrix,
    distinct_pairs,
    kept_where,
    nan_to_zero,
    safe_div,
    same_length,
)
from scoring.calibration.stats._halo import HaloCards, halo_components, row_bilinear
from scoring.calibration.stats._interaction import interaction_variance
from scoring.calibration.stats._least_squares import absorbed_fit
from scoring.calibration.stats.estimability import (
    fully_estimable,
    groups_from_components,
    groups_from_null_basis,
    within_group,
)

# --------------------------------------------------------------------------
# Leniency
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LeniencyResult:
    """Per-interviewer leniency (rating points above co-panelists) with 95% CI."""

    leniency: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    n_candidates: IntArray


def leniency(
    group: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    rating: npt.ArrayLike,
    n_interviewers: int | None = None,
    confidence: float = CONFIDENCE,
) -> LeniencyResult:
    """Return each interviewer's mean gap to co-panelists on the same candidate.

    1. Average each interviewer's ratings of a candidate (or loop: ``group``).
    2. For candidates with two or more interviewers, the gap is that mean
       minus the mean of the co-panelists' means (each co-panelist weighted
       equally, so a panelist who asked more questions does not dominate).
    3. Average the gaps over the interviewer's candidates, with a t interval
       over candidates (candidates treated as independent).

    Arrays are indexed by interviewer code; NaN where undefined (no candidate
    with a co-panelist; the interval needs two candidates).
    """
    g = as_codes(group, "group")
    i = as_codes(interviewer, "interviewer")
    y = as_floats(rating, "rating")
    same_length(group=g, interviewer=i, rating=y)
    keep = ~np.isnan(y)
    g, i, y = g[keep], i[keep], y[keep]
    n_i = code_count(i, n_interviewers)
    nan = np.full(n_i, np.nan)
    if y.size == 0:
        return LeniencyResult(nan, nan.copy(), nan.copy(), np.zeros(n_i, dtype=np.int64))
    return leniency_from(*distinct_pairs(g, i, int(i.max()) + 1), y, n_i, confidence)


def leniency_from(
    cell_g: IntArray,
    cell_i: IntArray,
    inverse: IntArray,
    y: FloatArray,
    n_i: int,
    confidence: float = CONFIDENCE,
) -> LeniencyResult:
    """Return leniency from the distinct (group, interviewer) pairs of non-empty ratings."""
    cell_mean = np.bincount(inverse, y) / np.bincount(inverse)
    cg, _ = compact_codes(cell_g, int(cell_g.max()) + 1)
    panel = np.bincount(cg).astype(np.float64)
    total = np.bincount(cg, cell_mean)
    shared = panel[cg] >= 2
    gap = cell_mean[shared] - (total[cg][shared] - cell_mean[shared]) / (panel[cg][shared] - 1)
    who = cell_i[shared]
    count = np.bincount(who, minlength=n_i)
    mean = safe_div(np.bincount(who, gap, minlength=n_i), count)
    dev = gap - mean[who]
    var = safe_div(np.bincount(who, dev * dev, minlength=n_i), count - 1)
    with np.errstate(invalid="ignore"):
        t_crit = special.stdtrit(np.where(count >= 2, count - 1, 1), 1.0 - (1.0 - confidence) / 2.0)
    half = np.where(
        count >= 2, t_crit * np.sqrt(np.maximum(var, 0.0) / np.maximum(count, 1)), np.nan
    )
    return LeniencyResult(mean, mean - half, mean + half, count.astype(np.int64))


# --------------------------------------------------------------------------
# Additive crossed-effects model
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AdditiveFit:
    """Fit of rating = mu + candidate + interviewer + question + noise.

    Interviewer and question effects sum to zero over the main component.
    ``severity`` = -(interviewer effect): positive means harsher, in rating
    points. ``easiness`` is the question effect (positive = rated higher).
    ``adjusted`` = mu + candidate effect: the expected rating from an average
    interviewer on an average question. NaN outside the main component.
    """

    mu: float
    severity: FloatArray
    severity_se: FloatArray
    easiness: FloatArray
    easiness_se: FloatArray
    adjusted: FloatArray
    adjusted_se: FloatArray
    candidate_comparable: BoolArray
    interviewer_comparable: BoolArray
    question_comparable: BoolArray
    residual_variance: float
    df_residual: int
    n_components: int
    main_share: float
    # The residual split into a scorecard halo shared by a card's ratings and
    # the rest (see halo_components); NaN when the design cannot tell them apart.
    halo_variance: float = math.nan
    within_variance: float = math.nan
    # Estimability (stats.estimability), per interviewer code: the group of
    # interviewers comparable with one another (-1 outside the main
    # component), whether their severity is separable from their questions
    # (in the reference group), and each one's severity less their group's
    # mean with its standard error (NaN when nothing is aliased or the group
    # has one member). ``severity`` of a separable interviewer is relative to
    # the reference group's mean; of the others it is not estimable.
    interviewer_group: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    interviewer_separable: BoolArray = field(default_factory=lambda: np.zeros(0, bool))
    severity_within: FloatArray = field(default_factory=lambda: np.zeros(0))
    severity_within_se: FloatArray = field(default_factory=lambda: np.zeros(0))
    aliased_directions: int = 0
    reference_group: int = -1
    estimability_method: str = "null space"
    # A persistent interviewer x question deviation (stats._interaction): its
    # variance, and the severity's SE widened by it (the flags' test uses it).
    interaction_variance: float = 0.0
    severity_se_robust: FloatArray = field(default_factory=lambda: np.zeros(0))


def panel_components(
    candidate: IntArray, interviewer: IntArray, n_candidates: int, n_interviewers: int
) -> tuple[IntArray, IntArray, int]:
    """Return component labels of candidates and interviewers and the main label.

    Components of the bipartite candidate-interviewer graph: severities in
    different components cannot be compared because no candidate links them.
    The main component is the one holding most ratings (-1 when no ratings).
    """
    size = n_candidates + n_interviewers
    graph = counts_matrix(candidate, interviewer + n_candidates, (size, size))
    n_comp, labels = connected_components(graph, directed=False)
    if candidate.size == 0:
        return labels[:n_candidates].astype(np.int64), labels[n_candidates:].astype(np.int64), -1
    per_comp = np.bincount(labels[candidate], minlength=n_comp)
    return (
        labels[:n_candidates].astype(np.int64),
        labels[n_candidates:].astype(np.int64),
        int(np.argmax(per_comp)),
    )


def fit_additive(
    candidate: npt.ArrayLike,
    interviewer: npt.ArrayLike,
    question: npt.ArrayLike,
    rating: npt.ArrayLike,
    *,
    n_candidates: int | None = None,
    n_interviewers: int | None = None,
    n_questions: int | None = None,
    scorecard: npt.ArrayLike | None = None,
) -> AdditiveFit:
    """Fit the additive crossed-effects model within the main panel component.

    1. Find the candidate-interviewer components; fit only the one with most
       ratings (others are marked not comparable).
    2. Absorb the candidate effects and solve the reduced normal equations
       for interviewer and question effects exactly (see absorbed_fit).
    3. adjusted_c = mean_c - mean over c's ratings of (interviewer + question
       effect); its variance is sigma^2 / n_c + xbar_c' Cov(b) xbar_c, exact
       under the model because the candidate mean and the within-candidate
       deviations that determine b are independent.
    4. Ratings on one scorecard share a halo (the interviewer's overall
       impression of that candidate), so residuals are not independent: the
       residual splits into a scorecard variance and a within-card one
       (halo_components), and the standard errors are those of these
       least-squares estimates under that covariance (stats._halo).
       ``scorecard`` gives each rating's card (default: one card per
       candidate and interviewer).
    """
    c = as_codes(candidate, "candidate")
    i = as_codes(interviewer, "interviewer")
    q = as_codes(question, "question")
    y = as_floats(rating, "rating")
    same_length(candidate=c, interviewer=i, question=q, rating=y)
    if scorecard is None:
        card = np.unique(c * (int(i.max()) + 1 if i.size else 1) + i, return_inverse=True)[1]
    else:
        card = as_codes(scorecard, "scorecard")
        same_length(candidate=c, scorecard=card)
    c, i, q, y, card = kept_where(~np.isnan(y), c, i, q, y, card)
    n_c, n_i, n_q = (
        code_count(c, n_candidates),
        code_count(i, n_interviewers),
        code_count(q, n_questions),
    )

    def nans(size: int) -> FloatArray:
        return np.full(size, np.nan)

    cand_label, _, main = panel_components(c, i, n_c, n_i)
    if main < 0:
        return AdditiveFit(
            math.nan,
            nans(n_i),
            nans(n_i),
            nans(n_q),
            nans(n_q),
            nans(n_c),
            nans(n_c),
            np.zeros(n_c, bool),
            np.zeros(n_i, bool),
            np.zeros(n_q, bool),
            math.nan,
            0,
            0,
            0.0,
            interviewer_group=np.full(n_i, -1, np.int64),
            interviewer_separable=np.zeros(n_i, bool),
            severity_within=nans(n_i),
            severity_within_se=nans(n_i),
            severity_se_robust=nans(n_i),
        )
    n_comp = int(np.unique(cand_label[c]).size)
    c_m, i_m, q_m, y_m, card_m = kept_where(cand_label[c] == main, c, i, q, y, card)
    sc, _ = compact_codes(card_m, int(card.max()) + 1)
    cc, cand_codes = compact_codes(c_m, n_c)
    ic, int_codes = compact_codes(i_m, n_i)
    qc, q_codes = compact_codes(q_m, n_q)
    n_cm, n_im, n_qm = cand_codes.size, int_codes.size, q_codes.size

    cards = HaloCards.of(sc, cc, n_cm, ic)
    fit = absorbed_fit(
        cc, n_cm, [ic, qc], [n_im, n_qm], y_m,
        null_space=[np.arange(n_im), n_im + np.arange(n_qm)], weights=cards.mean_size,
        find_aliases=True,
    )  # fmt: skip
    df = int(y_m.size - n_cm - fit.rank)
    sigma2 = fit.sse / df if df > 0 else math.nan
    halo = halo_components(cards, ic, n_im, qc, n_qm, y_m, fit, df)
    blocks = [slice(0, n_im), slice(n_im, n_im + n_qm)]
    n_per_cand = np.bincount(cc, minlength=n_cm).astype(np.float64)
    if fit.cov_unscaled is not None:
        cov_beta = halo.within * fit.cov_unscaled
        if halo.sandwich is not None:
            cov_beta = cov_beta + halo.card * halo.sandwich
        var_beta = np.diag(cov_beta).copy()
        quad = _row_quadratic_form(fit.xbar, cov_beta, blocks)
        # Cov(candidate mean, its correction): zero when a candidate's cards
        # are all the same size, else through the halo of unequal cards.
        cross = halo.card * row_bilinear(halo.card_weighted, fit.cov_unscaled, fit.xbar)
    else:
        # Large problems: ignore covariances between effects (slightly optimistic).
        inv_diag = nan_to_zero(safe_div(np.ones(fit.reduced_diag.size), fit.reduced_diag))
        var_beta = halo.within * inv_diag + halo.card * halo.wtw_diag * inv_diag**2
        quad = np.asarray(fit.xbar.multiply(fit.xbar) @ var_beta).ravel()
        cross = np.zeros(n_cm)
    var_mean = (halo.within * n_per_cand + halo.card * halo.card_sq_per_cand) / n_per_cand**2
    adjusted_m = fit.group_mean - np.asarray(fit.xbar @ fit.beta).ravel()
    adjusted_se_m = np.sqrt(np.maximum(var_mean + quad - 2.0 * cross / n_per_cand, 0.0))

    # Estimability: the aliases beyond the sum-to-zero constraints, from the
    # dense null space when there is one, else from the interviewer-question
    # components (see stats.estimability).
    if fit.cov_unscaled is None:
        est = groups_from_components(ic, qc, n_im, n_qm)
    elif fit.null_basis is not None:
        est = groups_from_null_basis(fit.null_basis, n_im, ic)
    else:
        est = fully_estimable(n_im)
    sev_m = -fit.beta[:n_im]
    sev_se_m = np.sqrt(np.maximum(var_beta[:n_im], 0.0))
    within_m = np.full(n_im, np.nan)
    within_se_m = np.full(n_im, np.nan)
    if est.aliased_directions:
        cov_int = cov_beta[:n_im, :n_im] if fit.cov_unscaled is not None else None
        within_m, within_se_m = within_group(sev_m, cov_int, var_beta[:n_im], est.group)
        # The reference group's severities, relative to its own mean: estimable.
        ref = est.separable
        sev_m = np.where(ref, within_m, sev_m)
        sev_se_m = np.where(ref, within_se_m, sev_se_m)
    residual = (
        y_m
        - fit.group_mean[cc]
        - fit.beta[ic]
        - fit.beta[n_im + qc]
        + np.asarray(fit.xbar @ fit.beta).ravel()[cc]
    )
    s2_iq, iq_share = interaction_variance(cc, ic, qc, residual, n_im, n_qm, df)
    severity, severity_se = nans(n_i), nans(n_i)
    severity[int_codes] = sev_m
    severity_se[int_codes] = sev_se_m
    severity_se_robust = nans(n_i)
    severity_se_robust[int_codes] = np.sqrt(sev_se_m**2 + s2_iq * iq_share)
    severity_within, severity_within_se = nans(n_i), nans(n_i)
    severity_within[int_codes] = within_m
    severity_within_se[int_codes] = within_se_m
    int_group = np.full(n_i, -1, np.int64)
    int_group[int_codes] = est.group
    int_separable = np.zeros(n_i, bool)
    int_separable[int_codes] = est.separable
    easiness, easiness_se = nans(n_q), nans(n_q)
    easiness[q_codes] = fit.beta[n_im:]
    easiness_se[q_codes] = np.sqrt(np.maximum(var_beta[n_im:], 0.0))
    adjusted, adjusted_se = nans(n_c), nans(n_c)
    adjusted[cand_codes] = adjusted_m
    adjusted_se[cand_codes] = adjusted_se_m

    cand_ok = np.zeros(n_c, bool)
    cand_ok[cand_codes] = True
    int_ok = np.zeros(n_i, bool)
    int_ok[int_codes] = True
    q_ok = np.zeros(n_q, bool)
    q_ok[q_codes] = True
    return AdditiveFit(
        mu=float(adjusted_m.mean()),
        severity=severity,
        severity_se=severity_se,
        easiness=easiness,
        easiness_se=easiness_se,
        adjusted=adjusted,
        adjusted_se=adjusted_se,
        candidate_comparable=cand_ok,
        interviewer_comparable=int_ok,
        question_comparable=q_ok,
        residual_variance=sigma2,
        df_residual=max(df, 0),
        n_components=n_comp,
        main_share=float(y_m.size / y.size),
        halo_variance=halo.card,
        within_variance=halo.within,
        interviewer_group=int_group,
        interviewer_separable=int_separable,
        severity_within=severity_within,
        severity_within_se=severity_within_se,
        aliased_directions=est.aliased_directions,
        reference_group=est.reference,
        estimability_method=est.method,
        interaction_variance=s2_iq,
        severity_se_robust=severity_se_robust,
    )


def _row_quadratic_form(
    rows: sparse.csr_matrix,
    matrix: FloatArray,
    blocks: list[slice] | None = None,
    chunk: int = 2048,
) -> FloatArray:
    """Return x_i' A x_i for every row x_i of a sparse matrix and a symmetric A.

    With ``blocks`` (the columns of each factor), x'Ax = sum_j x_j' A_jj x_j
    + 2 sum_{j<l} x_j' A_jl x_l: each factor's part of x meets only A's
    columns of its own and later blocks, the factor with most entries last so
    that it meets the fewest (half the work of x'A over all columns when one
    factor holds most entries). A chunk of rows at a time, to bound memory.
    """
    spans = blocks or [slice(0, rows.shape[1])]
    parts = [rows[:, span].tocsr() for span in spans]
    order = sorted(range(len(spans)), key=lambda j: parts[j].nnz)
    parts = [parts[j] for j in order]
    spans = [spans[j] for j in order]
    # Per factor, A's rows of that factor and columns of it and the later ones.
    later = [
        np.concatenate([np.arange(sp.start, sp.stop) for sp in spans[a:]])
        for a in range(len(spans))
    ]
    slabs = [np.ascontiguousarray(matrix[spans[a]][:, later[a]]) for a in range(len(spans))]
    out = np.zeros(rows.shape[0])
    for start in range(0, rows.shape[0], chunk):
        stop = min(start + chunk, rows.shape[0])
        pieces = [part[start:stop] for part in parts]
        for a, piece in enumerate(pieces):
            product = piece @ slabs[a]
            offset = 0
            for b in range(a, len(pieces)):
                width = spans[b].stop - spans[b].start
                weight = 1.0 if b == a else 2.0
                out[start:stop] += weight * _row_dot(pieces[b], product[:, offset : offset + width])
                offset += width
    return out


def _row_dot(rows: sparse.csr_matrix, dense: FloatArray) -> FloatArray:
    """Return, per row, the sum of the sparse row times the dense row."""
    which = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
    sums = np.bincount(which, rows.data * dense[which, rows.indices], minlength=rows.shape[0])
    # Weighted counts are float64 already (numpy's stubs say intp): no copy is made.
    return sums.astype(np.float64, copy=False)


# --------------------------------------------------------------------------
# Severity-adjusted means
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SeverityAdjusted:
    raw_mean: float
    adjusted_mean: float
    ratings: int
    corrected: int  # ratings whose interviewer has a severity
    ci: tuple[float, float] | None = None  # 95% interval of adjusted_mean


@dataclass(frozen=True)
class Effect:
    """An estimated effect in rating points and its standard error (0: taken as known)."""

    value: float
    se: float = 0.0


def severity_adjusted_mean(
    interviewer: list[Any],
    rating: list[float],
    severity: Mapping[Any, float | Effect | None],
    *,
    scale: tuple[float, float] | None = None,
    question: list[Any] | None = None,
    easiness: Mapping[Any, Effect] | None = None,
    confidence: float = CONFIDENCE,
) -> SeverityAdjusted | None:
    """Return one candidate's mean rating, as given and adjusted for the severity of
    each rating's interviewer and, with ``question`` and ``easiness``, for how easy
    each rating's question is.

    Under the additive model behind ``fit_additive`` (rating = overall + candidate
    + interviewer + question), an interviewer of severity s gives s points less
    than an average interviewer would, and a question of easiness e e points more
    than an average question: ``rating + s - e`` is what an average interviewer
    would give on an average question, kept within ``scale`` (low, high) when
    given, as no interviewer rates outside it. An interviewer without a severity
    (not calibrated yet, not separable, or outside the model's main component)
    and a question without an easiness count as given. None when there is no rating.

    The interval (when two or more interviewers are counted) is a t interval with
    one degree of freedom fewer than interviewers: the spread between the
    interviewers' adjusted means (a scorecard's ratings share a halo, so its
    interviewer, not the rating, is the unit), plus the standard errors of the
    severities and easinesses used, each weighted by its share of the ratings.
    """
    if len(interviewer) != len(rating):
        raise ValueError("interviewer and rating differ in length")
    if question is not None and len(question) != len(rating):
        raise ValueError("question and rating differ in length")
    if not rating:
        return None
    shifts = [_effect(severity.get(who)) for who in interviewer]
    easy = [_effect((easiness or {}).get(q)) for q in (question or [None] * len(rating))]
    moved = np.array(
        [
            r + (s.value if s else 0.0) - (e.value if e else 0.0)
            for r, s, e in zip(rating, shifts, easy, strict=True)
        ]
    )
    if scale is not None:
        moved = np.clip(moved, *scale)
    return SeverityAdjusted(
        raw_mean=float(np.mean(rating)),
        adjusted_mean=float(np.mean(moved)),
        ratings=len(rating),
        corrected=sum(s is not None for s in shifts),
        ci=_panel_interval(interviewer, question, moved, shifts, easy, confidence),
    )


def _effect(value: float | Effect | None) -> Effect | None:
    if value is None or isinstance(value, Effect):
        return value
    return Effect(float(value))


def _panel_interval(
    interviewer: list[Any],
    question: list[Any] | None,
    moved: FloatArray,
    shifts: list[Effect | None],
    easy: list[Effect | None],
    confidence: float,
) -> tuple[float, float] | None:
    n = moved.size
    who = {name: k for k, name in enumerate(dict.fromkeys(interviewer))}
    if len(who) < 2:
        return None
    code = np.array([who[name] for name in interviewer])
    share = np.bincount(code) / n
    card_mean = np.bincount(code, moved) / np.bincount(code)
    mean = float(moved.mean())
    k = len(who)
    spread = float(np.sum(share**2 * (card_mean - mean) ** 2)) * k / (k - 1)
    sev_se = {name: (s.se if s else 0.0) for name, s in zip(interviewer, shifts, strict=True)}
    estimated = float(np.sum(share**2 * np.array([sev_se[name] for name in who]) ** 2))
    if question is not None:
        per_q: dict[Any, tuple[int, float]] = {}
        for q, e in zip(question, easy, strict=True):
            count, se = per_q.get(q, (0, e.se if e else 0.0))
            per_q[q] = (count + 1, se)
        estimated += sum((count / n) ** 2 * se**2 for count, se in per_q.values())
    half = float(special.stdtrit(k - 1, 0.5 + confidence / 2)) * math.sqrt(spread + estimated)
    return mean - half, mean + half
