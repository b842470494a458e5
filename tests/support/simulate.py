"""Simulate interview panels with planted truths, for testing and benchmarking calibration.

Pure numpy, no Django. Two generators: ``simulate_panel`` (large, busy panels,
shadows for pairable units), here, and ``simulate_sparse_panels`` (one role's
realistic sparse roster) in ``sparse_panels``.

``simulate_panel`` draws an ill-structured design like real
hiring: each candidate meets a random panel of interviewers (busier
interviewers are drawn more often), each interviewer asks a few questions
from a personal repertoire, and some interviews have a shadow interviewer who
rates the same questions (which is what makes (candidate, question) units
pairable for agreement statistics). Ratings follow

    rating = clip(round(centre + ability - severity - difficulty + noise), 1, scale_max)

so a positive severity is a harsh interviewer and a positive difficulty a
hard question, both in rating points before rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

RECOMMENDATION_CUTS = (-1.0, 0.0, 1.0)  # latent score cuts for strong_no/no/yes/strong_yes


@dataclass(frozen=True)
class SimulatedPanel:
    """Per-rating arrays, per-candidate decisions and the planted truths."""

    candidate: IntArray
    interviewer: IntArray
    question: IntArray
    rating: FloatArray
    loop: IntArray
    recommendation: FloatArray  # per rating, the scorecard's -2/-1/1/2
    decision: FloatArray  # per candidate, 1.0 hire / 0.0 no hire
    ability: FloatArray  # per candidate
    severity: FloatArray  # per interviewer, positive = harsher
    difficulty: FloatArray  # per question, positive = harder
    scale_max: int

    @property
    def n_ratings(self) -> int:
        """Return the number of ratings."""
        return int(self.rating.size)


def distinct_rows(
    rng: np.random.Generator, n_rows: int, width: int, n_choices: int, p: FloatArray | None = None
) -> IntArray:
    """Return an n_rows x width array of codes drawn without repetition within a row.

    1. Draw every cell independently (weighted by ``p``).
    2. Find cells that repeat an earlier cell of the same row (sort each row).
    3. Redraw only those cells and repeat until no row has a repeat.
    Far cheaper than a per-row permutation when width << n_choices.
    """
    if width > n_choices:
        raise ValueError(f"cannot draw {width} distinct codes out of {n_choices}")
    out = rng.choice(n_choices, size=(n_rows, width), p=p)
    while True:
        order = np.argsort(out, axis=1, kind="stable")
        ordered = np.take_along_axis(out, order, axis=1)
        repeat_sorted = np.zeros_like(out, dtype=bool)
        repeat_sorted[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
        repeat = np.zeros_like(repeat_sorted)
        np.put_along_axis(repeat, order, repeat_sorted, axis=1)
        count = int(repeat.sum())
        if count == 0:
            return out.astype(np.int64)
        out[repeat] = rng.choice(n_choices, size=count, p=p)


def simulate_panel(
    n_candidates: int,
    n_interviewers: int,
    n_questions: int,
    *,
    panel_size: int = 4,
    questions_per_interview: int = 3,
    repertoire_size: int = 6,
    shadow_rate: float = 0.25,
    severity_sd: float = 0.4,
    difficulty_sd: float = 0.3,
    ability_sd: float = 0.8,
    noise_sd: float = 0.6,
    workload_concentration: float = 4.0,
    scale_max: int = 4,
    seed: int = 0,
) -> SimulatedPanel:
    """Return a simulated panel.

    1. Plant abilities, severities and difficulties (normal, mean zero).
    2. Give each interviewer a workload weight (gamma with shape
       ``workload_concentration``; smaller means more uneven) and a
       repertoire of ``repertoire_size`` distinct questions.
    3. Give each candidate ``panel_size`` distinct lead interviewers, each
       running one interview of ``questions_per_interview`` distinct
       questions from their repertoire. With probability ``shadow_rate`` an
       interview also has a distinct shadow interviewer rating the same
       questions.
    4. Rate with rounding and clipping to 1..scale_max; a scorecard's
       recommendation comes from its mean latent score; the hire decision
       from the candidate's mean rating plus decision noise.
    """
    if n_candidates < 1 or n_interviewers < 1 or n_questions < 1:
        raise ValueError("need at least one candidate, interviewer and question")
    shadows_possible = shadow_rate > 0 and n_interviewers >= 2 * panel_size
    if panel_size > n_interviewers:
        raise ValueError("panel_size cannot exceed n_interviewers")
    repertoire_size = min(repertoire_size, n_questions)
    questions_per_interview = min(questions_per_interview, repertoire_size)
    rng = np.random.default_rng(seed)

    # 1. Truths.
    ability = rng.normal(0.0, ability_sd, n_candidates)
    severity = rng.normal(0.0, severity_sd, n_interviewers)
    difficulty = rng.normal(0.0, difficulty_sd, n_questions)

    # 2. Interviewers.
    workload = rng.gamma(workload_concentration, 1.0, n_interviewers)
    workload /= workload.sum()
    repertoire = distinct_rows(rng, n_interviewers, repertoire_size, n_questions)

    # 3. Panels and interviews; shadows are drawn together with the leads so
    # that nobody sits twice on one candidate's panel.
    width = 2 * panel_size if shadows_possible else panel_size
    # Workload weights cannot always be honoured when a panel needs most of
    # the interviewers; fall back to uniform draws then.
    weights = workload if width <= n_interviewers // 2 else None
    people = distinct_rows(rng, n_candidates, width, n_interviewers, weights)
    leads = people[:, :panel_size].ravel()
    interview_candidate = np.repeat(np.arange(n_candidates, dtype=np.int64), panel_size)
    n_interviews = leads.size
    pick = np.argsort(rng.random((n_interviews, repertoire_size)), axis=1)[
        :, :questions_per_interview
    ]
    asked = np.take_along_axis(repertoire[leads], pick, axis=1)

    raters = [leads]
    rater_interview = [np.arange(n_interviews, dtype=np.int64)]
    if shadows_possible:
        has_shadow = rng.random(n_interviews) < shadow_rate
        shadow = people[:, panel_size:].ravel()
        raters.append(shadow[has_shadow])
        rater_interview.append(np.flatnonzero(has_shadow).astype(np.int64))
    scorecard_rater = np.concatenate(raters)
    scorecard_interview = np.concatenate(rater_interview)
    n_scorecards = scorecard_rater.size

    interviewer = np.repeat(scorecard_rater, questions_per_interview)
    question = asked[scorecard_interview].ravel()
    candidate = np.repeat(interview_candidate[scorecard_interview], questions_per_interview)
    scorecard = np.repeat(np.arange(n_scorecards), questions_per_interview)

    # 4. Ratings, recommendations, decisions.
    centre = (1.0 + scale_max) / 2.0
    latent = (
        ability[candidate]
        - severity[interviewer]
        - difficulty[question]
        + rng.normal(0.0, noise_sd, candidate.size)
    )
    rating = np.clip(np.round(centre + latent), 1, scale_max).astype(np.float64)
    card_latent = np.bincount(scorecard, latent, minlength=n_scorecards) / questions_per_interview
    card_rec = np.array([-2.0, -1.0, 1.0, 2.0])[np.searchsorted(RECOMMENDATION_CUTS, card_latent)]
    recommendation = card_rec[scorecard]
    n_per = np.bincount(candidate, minlength=n_candidates)
    mean_rating = np.bincount(candidate, rating, minlength=n_candidates) / np.maximum(n_per, 1)
    decision = (mean_rating + rng.normal(0.0, 0.3, n_candidates) > centre).astype(np.float64)

    order = np.lexsort((question, interviewer, candidate))
    return SimulatedPanel(
        candidate=candidate[order],
        interviewer=interviewer[order],
        question=question[order],
        rating=rating[order],
        loop=candidate[order].copy(),
        recommendation=recommendation[order],
        decision=decision,
        ability=ability,
        severity=severity,
        difficulty=difficulty,
        scale_max=scale_max,
    )
