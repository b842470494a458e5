"""Simulate one role's realistic sparse roster, for the power and coverage checks of
calibration: thinly rated interviewers, personal repertoires, a scorecard halo and
assortative assignment (harsher interviewers meeting stronger candidates).

Pure numpy and scipy, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from tests.support.simulate import BoolArray, FloatArray, IntArray, distinct_rows

# --------------------------------------------------------------------------
# Sparse rosters (issue 16)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SparsePanels:
    """One simulated roster: per-rating arrays and the planted truths.

    Truths are on the additive model's scale: ``severity`` has mean zero over
    the interviewers and ``easiness`` over the questions asked (the model's
    sum-to-zero effects); ``ability`` absorbs both shifts, so every rating's
    latent score is exactly
    ``centre + ability[c] + easiness[q] - severity[i] + halo[scorecard] + noise``.

    Rounding and clipping to the scale shrink effects, so ``severity_points``
    also gives each severity in rating points: the mean, over the roster's
    ratings, of how much lower that interviewer's expected rating (over halo
    and noise) is than a severity-0 interviewer's for the same candidate and
    question, centred to mean zero like ``severity``.
    """

    candidate: IntArray  # per rating; also the loop (one loop per candidate)
    interviewer: IntArray  # per rating
    question: IntArray  # per rating
    scorecard: IntArray  # per rating; one scorecard per (candidate, interviewer)
    rating: FloatArray  # per rating, whole points 1..scale_max
    ability: FloatArray  # per candidate
    severity: FloatArray  # per interviewer, positive = harsher
    severity_points: FloatArray  # per interviewer, the same in expected rating points
    easiness: FloatArray  # per question, positive = rated higher
    halo: FloatArray  # per scorecard, shared by all its ratings
    thin: BoolArray  # per interviewer: planted with at most thin_max_ratings ratings
    not_separable: BoolArray  # per interviewer: every question they asked, only they asked
    private_share: FloatArray  # per interviewer: share of their ratings on questions only they ask
    centre: float
    scale_max: int

    @property
    def n_ratings(self) -> int:
        """Return the number of ratings."""
        return int(self.rating.size)

    @property
    def loop(self) -> IntArray:
        """Return the loop of each rating (each candidate has one loop)."""
        return self.candidate

    def severity_ability_correlation(self) -> float:
        """Return the realised correlation, over scorecards, of interviewer severity
        and the ability of the candidate they interviewed (what ``assortativity`` asks for)."""
        first = np.flatnonzero(np.r_[True, self.scorecard[1:] != self.scorecard[:-1]])
        sev = self.severity[self.interviewer[first]]
        abil = self.ability[self.candidate[first]]
        if sev.std() == 0 or abil.std() == 0:
            return math.nan
        return float(np.corrcoef(sev, abil)[0, 1])


SeverityDraw = Callable[[np.random.Generator, int], npt.ArrayLike]


def _check_sparse_arguments(
    *,
    n_candidates: int,
    n_interviewers: int,
    n_questions: int,
    panel_size: int,
    questions_per_interview: int,
    repertoire_size: int,
    off_repertoire_rate: float,
    thin_share: float,
    thin_max_ratings: int,
    sds: dict[str, float],
    workload_concentration: float,
    solo_easiness_shift: float,
    assortativity: float,
    solo_interviewers: int,
    solo_private_share: float,
    scale_max: int,
) -> None:
    if n_candidates < 1 or n_interviewers < 1 or n_questions < 1:
        raise ValueError("need at least one candidate, interviewer and question")
    if not 1 <= panel_size <= n_interviewers:
        raise ValueError(
            f"panel_size must be 1..n_interviewers ({n_interviewers}), not {panel_size}"
        )
    if not 1 <= questions_per_interview <= repertoire_size <= n_questions:
        raise ValueError(
            "need 1 <= questions_per_interview <= repertoire_size <= n_questions, got "
            f"{questions_per_interview}, {repertoire_size}, {n_questions}"
        )
    if not 0.0 <= off_repertoire_rate <= 1.0:
        raise ValueError(f"off_repertoire_rate must be within 0..1, not {off_repertoire_rate}")
    if not 0.0 <= thin_share < 1.0:
        raise ValueError(f"thin_share must be within [0, 1), not {thin_share}")
    if thin_max_ratings < questions_per_interview:
        raise ValueError(
            f"thin_max_ratings ({thin_max_ratings}) must allow one scorecard of "
            f"{questions_per_interview} questions"
        )
    for name, value in sds.items():
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} must be a finite number >= 0, not {value}")
    if not (math.isfinite(workload_concentration) and workload_concentration > 0.0):
        raise ValueError(f"workload_concentration must be > 0, not {workload_concentration}")
    if not math.isfinite(solo_easiness_shift):
        raise ValueError("solo_easiness_shift must be finite")
    if not -1.0 <= assortativity <= 1.0:
        raise ValueError(f"assortativity is a correlation within -1..1, not {assortativity}")
    if solo_interviewers < 0:
        raise ValueError("solo_interviewers cannot be negative")
    if not 0.0 <= solo_private_share <= 1.0:
        raise ValueError(f"solo_private_share must be within 0..1, not {solo_private_share}")
    if scale_max < 2:
        raise ValueError("scale_max must be at least 2")


def _seat_counts(
    rng: np.random.Generator,
    n_seats: int,
    n_candidates: int,
    thin: BoolArray,
    thin_max_cards: int,
    workload_concentration: float,
) -> IntArray:
    """Return how many scorecards each interviewer writes, summing to ``n_seats``.

    1. Thin interviewers write 1..thin_max_cards scorecards (uniform).
    2. Every other interviewer writes at least thin_max_cards + 1, so they
       are not thin; the remaining seats are shared out by gamma workload
       weights (shape ``workload_concentration``: smaller is more uneven).
    3. Nobody writes more than one scorecard per candidate: excess seats move
       to the interviewers with room, by weight.
    """
    n_i = thin.size
    seats = np.zeros(n_i, dtype=np.int64)
    seats[thin] = rng.integers(1, thin_max_cards + 1, int(thin.sum()))
    regular = np.flatnonzero(~thin)
    floor = thin_max_cards + 1
    spare = n_seats - int(seats.sum()) - floor * regular.size
    if spare < 0 or (regular.size == 0 and spare > 0) or floor > n_candidates:
        raise ValueError(
            f"{n_seats} seats cannot give {int(thin.sum())} thin interviewers at most "
            f"{thin_max_cards} scorecards each and {regular.size} others more than that"
        )
    weight = rng.gamma(workload_concentration, 1.0, regular.size)
    seats[regular] = floor + rng.multinomial(spare, weight / weight.sum())
    while (over := seats > n_candidates).any():
        excess = int((seats[over] - n_candidates).sum())
        seats[over] = n_candidates
        room = np.flatnonzero(~thin & (seats < n_candidates))
        if room.size == 0:
            raise ValueError("more seats than the interviewers can fill one per candidate")
        w = rng.gamma(workload_concentration, 1.0, room.size)
        seats[room] += rng.multinomial(excess, w / w.sum())
    return seats


def _assign_panels(
    rng: np.random.Generator,
    seats: IntArray,
    severity: FloatArray,
    ability: FloatArray,
    panel_size: int,
    assortativity: float,
) -> IntArray:
    """Return an n_candidates x panel_size array of distinct interviewers per candidate.

    1. Give every seat a key: assortativity x (the seat's standardised
       severity) + sqrt(1 - assortativity^2) x noise, a standard normal with
       that correlation to severity (standardised over seats, so busy
       interviewers weigh as much as they sit).
    2. Fill the candidates in order of ability with the seats in order of key,
       panel_size seats each: the seat's severity then correlates with the
       candidate's ability by about ``assortativity`` (0: random panels).
    3. Where a panel got one interviewer twice, swap the repeat with a seat
       of the nearest panel (in ability order) that takes it without a
       repeat of its own, which keeps the correlation.
    """
    n_c = ability.size
    seat_who = np.repeat(np.arange(seats.size, dtype=np.int64), seats)
    seat_sev = severity[seat_who]
    noise = rng.standard_normal(seat_who.size)
    spread = float(seat_sev.std())
    if spread > 0:
        z = (seat_sev - seat_sev.mean()) / spread
        key = assortativity * z + math.sqrt(max(1.0 - assortativity**2, 0.0)) * noise
    else:  # identical interviewers: nothing to sort on
        key = noise
    ranked = seat_who[np.argsort(key, kind="stable")].reshape(n_c, panel_size)
    for k in range(n_c):
        row = ranked[k]
        while np.unique(row).size < panel_size:
            _, first = np.unique(row, return_index=True)
            j = int(np.setdiff1d(np.arange(panel_size), first)[0])
            who = row[j]
            if not _swap_into_nearest(ranked, k, j, who):
                raise ValueError("cannot seat the panels without an interviewer sitting twice")
    panels = np.empty_like(ranked)
    panels[np.argsort(ability, kind="stable")] = ranked
    return panels


def _swap_into_nearest(ranked: IntArray, k: int, j: int, who: np.int64) -> bool:
    """Swap ranked[k, j] (a repeat of ``who``) with the nearest panel's seat that fits."""
    n_c = ranked.shape[0]
    for distance in range(1, n_c):
        for other in (k + distance, k - distance):
            if not 0 <= other < n_c or who in ranked[other]:
                continue
            fits = np.flatnonzero(~np.isin(ranked[other], ranked[k]))
            if fits.size:
                j2 = int(fits[0])
                ranked[k, j], ranked[other, j2] = ranked[other, j2], who
                return True
    return False


def _asked_questions(
    rng: np.random.Generator,
    card_interviewer: IntArray,
    repertoire: IntArray,
    questions_per_interview: int,
    n_shared: int,
    off_repertoire_rate: float,
    solo: BoolArray,
) -> IntArray:
    """Return n_cards x questions_per_interview distinct questions per scorecard.

    Each card asks questions from its interviewer's repertoire; with
    probability ``off_repertoire_rate`` a question is instead drawn from the
    whole shared bank (solo interviewers never stray, and nobody else ever
    asks a private question).
    """
    n_cards = card_interviewer.size
    width = repertoire.shape[1]
    pick = np.argsort(rng.random((n_cards, width)), axis=1)[:, :questions_per_interview]
    asked = np.take_along_axis(repertoire[card_interviewer], pick, axis=1)
    stray = rng.random(asked.shape) < off_repertoire_rate
    stray[solo[card_interviewer]] = False
    for card, j in zip(*np.nonzero(stray), strict=True):
        # Rejection keeps the card's questions distinct; n_shared >= width >= qpi,
        # so a free question always exists.
        while True:
            q = int(rng.integers(n_shared))
            if q == asked[card, j] or q not in asked[card]:
                asked[card, j] = q
                break
    return asked.astype(np.int64)


def simulate_sparse_panels(
    rng: np.random.Generator,
    *,
    n_candidates: int = 150,
    n_interviewers: int = 50,
    n_questions: int = 40,
    panel_size: int = 4,
    questions_per_interview: int = 3,
    repertoire_size: int = 6,
    off_repertoire_rate: float = 0.1,
    thin_share: float = 0.25,
    thin_max_ratings: int = 10,
    workload_concentration: float = 2.0,
    ability_sd: float = 0.8,
    severity_sd: float = 0.4,
    severity_draw: SeverityDraw | None = None,
    easiness_sd: float = 0.3,
    halo_sd: float = 0.35,
    noise_sd: float = 0.55,
    assortativity: float = 0.0,
    solo_interviewers: int = 0,
    solo_private_share: float = 1.0,
    solo_easiness_shift: float = 0.0,
    scale_max: int = 4,
    interaction_sd: float = 0.0,
    centre_shift: float = 0.0,
) -> SparsePanels:
    """Return one simulated roster of a role: sparse panels with planted truths.

    The defaults are issue 16's realistic design: 150 candidates (one loop
    each), 50 interviewers of whom a quarter write 10 ratings or fewer,
    panels of 4, 3 questions per interview from a personal repertoire of 6
    out of 40, ratings 1..4 with a scorecard halo.

    1. Truths: ability ~ N(0, ability_sd) per candidate; severity per
       interviewer from ``severity_draw(rng, n_interviewers)`` if given, else
       N(0, severity_sd) (``severity_sd=0``: the null, every interviewer
       identical); easiness ~ N(0, easiness_sd) per question
       (``easiness_sd=0``: equal questions).
    2. Workload: round(thin_share x n_interviewers) interviewers, at random,
       are thin (1 to thin_max_ratings // questions_per_interview scorecards);
       the rest write more, by gamma workload weights (see _seat_counts).
    3. Panels: panel_size distinct interviewers per candidate, assortative
       by ``assortativity``, the correlation over scorecards between the
       interviewer's severity and the candidate's ability (positive: harsher
       interviewers meet stronger candidates; see _assign_panels).
    4. Questions: every interviewer has ``repertoire_size`` distinct
       questions of the n_questions shared ones; each interview asks
       ``questions_per_interview`` of them, each swapped with probability
       ``off_repertoire_rate`` for any shared question. ``solo_interviewers``
       interviewers (at random among the non-thin ones) instead have
       round(solo_private_share x repertoire_size) private questions in
       their repertoire that nobody else asks (codes from n_questions up,
       easiness shifted by ``solo_easiness_shift``) and never stray: with a
       share of 1 they cannot be separated from their questions.
    5. Ratings: clip(round(latent), 1, scale_max) with latent = centre +
       ability + easiness - severity + halo (N(0, halo_sd), one per
       scorecard) + noise (N(0, noise_sd), one per rating), centre the
       scale's midpoint plus ``centre_shift`` (positive: ratings pile at the
       top of the scale, a ceiling). With ``interaction_sd`` each
       (interviewer, question) pair adds a persistent deviation
       N(0, interaction_sd) to every rating it gives (drawn last, so the
       other draws are those of a roster without it).
    6. Centre the truths on the model's scale (see SparsePanels) and mark
       the interviewers none of whose questions anyone else asked.

    Every draw comes from ``rng``, so a seeded Generator gives the same roster.
    """
    _check_sparse_arguments(
        n_candidates=n_candidates,
        n_interviewers=n_interviewers,
        n_questions=n_questions,
        panel_size=panel_size,
        questions_per_interview=questions_per_interview,
        repertoire_size=repertoire_size,
        off_repertoire_rate=off_repertoire_rate,
        thin_share=thin_share,
        thin_max_ratings=thin_max_ratings,
        sds={
            "ability_sd": ability_sd,
            "severity_sd": severity_sd,
            "easiness_sd": easiness_sd,
            "halo_sd": halo_sd,
            "noise_sd": noise_sd,
            "interaction_sd": interaction_sd,
        },
        workload_concentration=workload_concentration,
        solo_easiness_shift=solo_easiness_shift,
        assortativity=assortativity,
        solo_interviewers=solo_interviewers,
        solo_private_share=solo_private_share,
        scale_max=scale_max,
    )
    n_thin = math.floor(thin_share * n_interviewers + 0.5)
    if solo_interviewers > n_interviewers - n_thin:
        raise ValueError(
            f"solo_interviewers ({solo_interviewers}) cannot exceed the "
            f"{n_interviewers - n_thin} interviewers who are not thin"
        )
    n_private_each = round(solo_private_share * repertoire_size) if solo_interviewers else 0
    n_q = n_questions + solo_interviewers * n_private_each

    # 1. Truths.
    ability = rng.normal(0.0, ability_sd, n_candidates)
    if severity_draw is None:
        severity = rng.normal(0.0, severity_sd, n_interviewers)
    else:
        severity = np.asarray(severity_draw(rng, n_interviewers), dtype=np.float64)
        if severity.shape != (n_interviewers,) or not np.all(np.isfinite(severity)):
            raise ValueError(
                f"severity_draw must return {n_interviewers} finite severities, "
                f"got shape {severity.shape}"
            )
    easiness = rng.normal(0.0, easiness_sd, n_q)
    easiness[n_questions:] += solo_easiness_shift

    # 2. Workload.
    thin = np.zeros(n_interviewers, dtype=bool)
    thin[rng.choice(n_interviewers, n_thin, replace=False)] = True
    seats = _seat_counts(
        rng,
        n_candidates * panel_size,
        n_candidates,
        thin,
        thin_max_ratings // questions_per_interview,
        workload_concentration,
    )

    # 3. Panels: scorecard c * panel_size + j is candidate c's j-th interviewer.
    panels = _assign_panels(rng, seats, severity, ability, panel_size, assortativity)
    card_interviewer = panels.ravel()
    card_candidate = np.repeat(np.arange(n_candidates, dtype=np.int64), panel_size)

    # 4. Repertoires and questions asked.
    repertoire = distinct_rows(rng, n_interviewers, repertoire_size, n_questions)
    solo = np.zeros(n_interviewers, dtype=bool)
    if solo_interviewers:
        solo[rng.choice(np.flatnonzero(~thin), solo_interviewers, replace=False)] = True
        private = n_questions + np.arange(solo_interviewers * n_private_each, dtype=np.int64)
        repertoire[solo, :n_private_each] = private.reshape(solo_interviewers, n_private_each)
    asked = _asked_questions(
        rng,
        card_interviewer,
        repertoire,
        questions_per_interview,
        n_questions,
        off_repertoire_rate,
        solo,
    )

    # 5. Ratings.
    n_cards = card_interviewer.size
    scorecard = np.repeat(np.arange(n_cards, dtype=np.int64), questions_per_interview)
    candidate = card_candidate[scorecard]
    interviewer = card_interviewer[scorecard]
    question = asked.ravel()
    halo = rng.normal(0.0, halo_sd, n_cards)
    centre = (1.0 + scale_max) / 2.0 + centre_shift
    latent = (
        centre
        + ability[candidate]
        + easiness[question]
        - severity[interviewer]
        + halo[scorecard]
        + rng.normal(0.0, noise_sd, scorecard.size)
    )
    if interaction_sd > 0:
        deviation = rng.normal(0.0, interaction_sd, (n_interviewers, n_q))
        latent = latent + deviation[interviewer, question]
    rating = np.clip(np.round(latent), 1, scale_max).astype(np.float64)
    spread = math.hypot(halo_sd, noise_sd)

    # 6. Centre the truths; estimability from who asked what.
    asked_q = np.unique(question)
    sev_shift, eas_shift = float(severity.mean()), float(easiness[asked_q].mean())
    pair_q, pair_i = _distinct_pairs(question, interviewer, n_interviewers)
    askers = np.bincount(pair_q, minlength=n_q)
    shared_pairs = np.bincount(pair_i, askers[pair_q] > 1, minlength=n_interviewers)
    on_private = np.bincount(interviewer, askers[question] == 1, minlength=n_interviewers)
    true_ability, true_severity = ability + eas_shift - sev_shift, severity - sev_shift
    true_easiness = easiness - eas_shift
    average = centre + true_ability[candidate] + true_easiness[question]
    base = expected_rating(average, spread, scale_max).mean()
    points = np.array(
        [base - expected_rating(average - s, spread, scale_max).mean() for s in true_severity]
    )
    return SparsePanels(
        candidate=candidate,
        interviewer=interviewer,
        question=question,
        scorecard=scorecard,
        rating=rating,
        ability=true_ability,
        severity=true_severity,
        severity_points=points - points.mean(),
        easiness=true_easiness,
        halo=halo,
        thin=thin,
        not_separable=shared_pairs == 0,
        private_share=on_private / np.bincount(interviewer, minlength=n_interviewers),
        centre=centre,
        scale_max=scale_max,
    )


def expected_rating(latent_mean: npt.ArrayLike, sd: float, scale_max: int) -> FloatArray:
    """Return E[clip(round(latent_mean + e), 1, scale_max)] for e ~ N(0, sd^2).

    The rating is 1 plus the number of thresholds k + 1/2 (k = 1..scale_max-1)
    the latent score passes, so its mean is 1 + sum_k Phi((m - k - 1/2) / sd).
    """
    m = np.asarray(latent_mean, dtype=np.float64)
    cuts = np.arange(1, scale_max, dtype=np.float64) + 0.5
    if sd == 0:
        return 1.0 + (m[..., None] >= cuts).sum(axis=-1).astype(np.float64)
    return 1.0 + special.ndtr((m[..., None] - cuts) / sd).sum(axis=-1)


def _distinct_pairs(
    question: IntArray, interviewer: IntArray, n_interviewers: int
) -> tuple[IntArray, IntArray]:
    """Return the distinct (question, interviewer) pairs as two parallel arrays."""
    key = np.unique(question * n_interviewers + interviewer)
    return key // n_interviewers, key % n_interviewers


# --------------------------------------------------------------------------
# Specialists (issue 33)
# --------------------------------------------------------------------------


def simulate_specialists(
    rng: np.random.Generator,
    *,
    n_candidates: int = 60,
    n_competencies: int = 2,
    interviewers_per_competency: int = 3,
    questions_per_competency: int = 3,
    questions_per_interview: int = 2,
    competency_sd: float = 0.5,
    severity: npt.ArrayLike | None = None,
    ability_sd: float = 0.8,
    halo_sd: float = 0.35,
    noise_sd: float = 0.55,
    scale_max: int = 5,
) -> SparsePanels:
    """Return a roster where each interviewer owns one competency's questions.

    The commonest real design (issue 33): each candidate meets one
    interviewer of every competency (panels of ``n_competencies``), who asks
    ``questions_per_interview`` of that competency's questions. Competencies
    differ in difficulty (N(0, competency_sd) per competency, shared by its
    questions); interviewers' severities are ``severity`` (default: all 0,
    the null). Interviewer j of competency k has code
    k * interviewers_per_competency + j; its questions are k *
    questions_per_competency + 0..questions_per_competency - 1. Ratings
    clip(round(latent), 1, scale_max) as in simulate_sparse_panels; truths
    are centred the same way, ``severity_points`` is ``severity`` centred.
    """
    n_i = n_competencies * interviewers_per_competency
    if questions_per_interview > questions_per_competency:
        raise ValueError("questions_per_interview cannot exceed questions_per_competency")
    true_severity = (
        np.zeros(n_i) if severity is None else np.asarray(severity, dtype=np.float64).copy()
    )
    if true_severity.shape != (n_i,):
        raise ValueError(f"severity must give {n_i} values, got shape {true_severity.shape}")
    ability = rng.normal(0.0, ability_sd, n_candidates)
    easiness = np.repeat(rng.normal(0.0, competency_sd, n_competencies), questions_per_competency)
    who = rng.integers(0, interviewers_per_competency, (n_candidates, n_competencies))
    card_interviewer = (who + interviewers_per_competency * np.arange(n_competencies)).ravel()
    card_candidate = np.repeat(np.arange(n_candidates, dtype=np.int64), n_competencies)
    competency = card_interviewer // interviewers_per_competency
    picks = distinct_rows(
        rng, card_interviewer.size, questions_per_interview, questions_per_competency
    )
    asked = competency[:, None] * questions_per_competency + picks
    scorecard = np.repeat(np.arange(card_interviewer.size, dtype=np.int64), questions_per_interview)
    candidate, interviewer, question = (
        card_candidate[scorecard],
        card_interviewer[scorecard].astype(np.int64),
        asked.ravel().astype(np.int64),
    )
    halo = rng.normal(0.0, halo_sd, card_interviewer.size)
    centre = (1.0 + scale_max) / 2.0
    latent = (
        centre
        + ability[candidate]
        + easiness[question]
        - true_severity[interviewer]
        + halo[scorecard]
        + rng.normal(0.0, noise_sd, scorecard.size)
    )
    rating = np.clip(np.round(latent), 1, scale_max).astype(np.float64)
    sev_shift, eas_shift = float(true_severity.mean()), float(easiness.mean())
    centred = true_severity - sev_shift
    return SparsePanels(
        candidate=candidate,
        interviewer=interviewer,
        question=question,
        scorecard=scorecard,
        rating=rating,
        ability=ability + eas_shift - sev_shift,
        severity=centred,
        severity_points=centred,
        easiness=easiness - eas_shift,
        halo=halo,
        thin=np.zeros(n_i, dtype=bool),
        not_separable=np.zeros(n_i, dtype=bool),
        private_share=np.zeros(n_i),
        centre=centre,
        scale_max=scale_max,
    )
