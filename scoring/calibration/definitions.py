"""What each number of a calibration snapshot means: the `definitions` block.

Stored in every snapshot (and shown to everyone who reads one), so that a figure
read out of the JSON, the CSV or the page carries its unit, its sign and what its
interval means. Keys are the snapshot's own keys.

It also says what the two reliability figures are good for: the bands below are
written here once, and the dashboard, the definitions block and the calibrate
command read them from `BANDS` (through `band`). A value is banded as it is
shown (alpha to three decimals, G(q,k) to two), so that a figure on the line reads
the band it shows.

======================== ======== ====== ========================== ==========================
figure                   from     kind   reads                      next step
======================== ======== ====== ========================== ==========================
Krippendorff's alpha     0.800    good   reliable                   keep it there: a
                                                                    calibration exercise as
                                                                    new interviewers join
                         0.667    fair   tentative conclusions only run a calibration exercise
                                                                    on the questions rated
                                                                    furthest apart
                         below    poor   do not rely on it          tighten the rubric anchors
                                                                    of the questions rated
                                                                    furthest apart, then run
                                                                    an exercise
G(q,k), raw panel means  0.80     good   good for decisions         keep the panel size
                         0.70     fair   acceptable                 add an interviewer or a
                                                                    question where a decision
                                                                    is close
                         below    poor   too noisy for decisions    add interviewers or
                                                                    questions to each loop
======================== ======== ====== ========================== ==========================

The alpha bands are Krippendorff's (2004, *Content Analysis*, 2nd ed., p. 241):
rely on variables with alpha of 0.800 or more, draw tentative conclusions only from
0.667 to 0.800, and none below. The G(q,k) bands are the usual rules of thumb for a
reliability coefficient (0.70 acceptable, 0.80 for decisions about people), not
Putka et al.'s. G(q,k) describes the *raw* panel mean, as rated: the severity-adjusted
score a debrief shows is not covered by it.
"""

from decimal import ROUND_HALF_UP, Decimal
from typing import Any, NamedTuple

_POINTS = "rating points"


class Band(NamedTuple):
    floor: float | None  # the band's lowest value; None: everything below the others
    kind: str  # "good", "fair" or "poor": the page's style
    reads: str  # what the figure is good for
    next_step: str


ALPHA = "reliability.krippendorff_alpha"
G_QK = "reliability.g_qk"

# Highest band first: `band` takes the first whose floor the value reaches.
BANDS: dict[str, tuple[Band, ...]] = {
    ALPHA: (
        Band(
            0.8,
            "good",
            "reliable",
            "Keep it there: run a calibration exercise as new interviewers join the panel.",
        ),
        Band(
            0.667,
            "fair",
            "tentative conclusions only",
            "Run a calibration exercise on the questions interviewers rate furthest apart,"
            " and read flags as prompts for a talk rather than verdicts.",
        ),
        Band(
            None,
            "poor",
            "do not rely on it",
            "Tighten the rubric anchors of the questions interviewers rate furthest apart,"
            " then run a calibration exercise before acting on flags or scores.",
        ),
    ),
    G_QK: (
        Band(
            0.8,
            "good",
            "good for decisions",
            "Keep the panel size: a typical panel's raw mean ranks candidates much as a"
            " larger panel would.",
        ),
        Band(
            0.7,
            "fair",
            "acceptable",
            "Add an interviewer or a question to loops where the decision is close.",
        ),
        Band(
            None,
            "poor",
            "too noisy for decisions",
            "Add interviewers or questions to each loop: a larger panel's mean is more reliable.",
        ),
    ),
}

# The decimals each figure is shown (and banded) to: Krippendorff's line is 0.667.
DIGITS = {ALPHA: 3, G_QK: 2}

# Where each band's numbers come from, as the page cites them.
BAND_SOURCES = {
    ALPHA: "Krippendorff 2004, Content Analysis, 2nd ed., p. 241",
    G_QK: "the usual thresholds for a reliability coefficient; they describe raw panel"
    " means, before any adjustment for severity",
}


def band(key: str, value: float | None) -> Band | None:
    """Return the band of `value` (None: no band) for the figure `key` of BANDS."""
    if value is None:
        return None
    # Rounded as the page's floatformat rounds it (half up, from the shortest repr).
    step = Decimal(1).scaleb(-DIGITS[key])
    shown = float(Decimal(repr(value)).quantize(step, rounding=ROUND_HALF_UP))
    return next(b for b in BANDS[key] if b.floor is None or shown >= b.floor)


def bands_text(key: str) -> str:
    """Return the figure's bands in one line: "0.800 or more: reliable; ..."."""
    bands = BANDS[key]
    digits = DIGITS[key]
    parts = []
    for above, this in zip((None, *bands), bands, strict=False):
        if this.floor is None:
            assert above is not None and above.floor is not None  # the last band
            parts.append(f"below {above.floor:.{digits}f}: {this.reads}")
        elif above is None:
            parts.append(f"{this.floor:.{digits}f} or more: {this.reads}")
        else:
            assert above.floor is not None
            parts.append(f"{this.floor:.{digits}f} to {above.floor:.{digits}f}: {this.reads}")
    return "; ".join(parts)


DEFINITIONS: dict[str, dict[str, Any]] = {
    "scope.period": {
        "what": "The period every interviewer figure and flag describes: the"
        " CALIBRATION_PERIOD_MONTHS calendar months (months) up to the scope's newest"
        " interview (end; UTC), and the as many months before (previous). A rating's time"
        " is its interview's scheduled start (an imported file's interviewed_at), else"
        " when its scorecard was submitted. Reliability, question figures and candidates'"
        " adjusted scores use every rating in scope. Null without ratings.",
    },
    "scope.flags": {
        "what": "confirmatory for a role's snapshot: its flags' false discovery rate is"
        " controlled over the role's interviewers. exploratory for a level's: each level"
        " adjusts for its own tests only, so across a role and its levels more flags are"
        " false than 5%; read them as leads to look at, not findings.",
    },
    "interviewers.period": {
        "what": "The period (start, end) the row's figures describe: scope.period.",
    },
    "interviewers.severity_previous": {
        "what": "The interviewer's severity in the previous period (scope.period.previous),"
        " fitted on that period's ratings alone; null under 10 ratings there"
        " (ratings_previous) or where not separable then.",
        "unit": _POINTS,
        "sign": "positive: harsher than the average of that period's interviewers",
        "interval": "severity_previous_ci: ± 1.96 times its severity_se_robust",
    },
    "interviewers.severity_change": {
        "what": "severity (this period) minus severity_previous: how far the interviewer"
        " moved relative to each period's panel. Not a change against an absolute"
        " standard: if every interviewer grew harsher alike, no change shows. Each period's"
        " estimate is noisy, so read the interval: one that spans 0 is no evidence of a"
        " change. Null where either severity is.",
        "unit": _POINTS,
        "sign": "positive: harsher than in the previous period",
        "interval": "severity_change_ci: severity_change ± 1.96 severity_change_se, the two"
        " periods' robust standard errors combined (their ratings are distinct)",
    },
    "interviewers.mean": {
        "what": "The interviewer's mean rating over every counted rating in scope.",
        "unit": _POINTS,
    },
    "interviewers.leniency": {
        "what": "The interviewer's mean rating minus their co-panelists' mean for the same"
        " candidates, averaged over candidates. Deprecated (its sign is the opposite of"
        " every other figure): read copanelist_gap.",
        "unit": _POINTS,
        "sign": "positive: rates higher (more lenient) than co-panelists",
        "interval": "leniency_ci: 95% t interval over the interviewer's candidates",
    },
    "interviewers.copanelist_gap": {
        "what": "How far below their co-panelists the interviewer rates the same"
        " candidates, averaged over candidates (minus leniency). Raw: it does not allow"
        " for the questions each one asked.",
        "unit": _POINTS,
        "sign": "positive: rates lower (harsher) than co-panelists",
        "interval": "copanelist_gap_ci: 95% t interval over the interviewer's candidates",
    },
    "interviewers.severity": {
        "what": "The interviewer effect of rating = overall + candidate + interviewer +"
        " question + noise, fitted by least squares over all ratings, candidates fixed:"
        " the raw estimate. Null when not separable from their questions.",
        "unit": _POINTS,
        "sign": "positive: harsher than the average of this scope's interviewers (not an"
        " absolute standard: in a scope of harsh interviewers the harshest reads harsh)",
        "interval": "severity_ci: severity ± 1.96 severity_se, the standard error allowing"
        " for the halo shared by one scorecard's ratings (model.halo_sd)",
    },
    "interviewers.separable": {
        "what": "False when this design cannot tell the interviewer's severity apart from"
        " their questions' difficulty: their group is aliased with its questions"
        " (estimability_group, model.estimability), or fewer than half of their ratings"
        " are on questions that two or more other interviewers ask. Then no severity is"
        " reported. True says only that the design can estimate a severity relative to"
        " this scope's interviewers, not that the estimate is right: read its interval.",
    },
    "interviewers.estimability_group": {
        "what": "The group of interviewers this one can be compared with, found from the"
        " design itself (who asked which questions of which candidates): severities are"
        " comparable within a group. Where a group asks questions no one outside it asks"
        " (for example each interviewer owns one competency), the group's severity cannot"
        " be told from those questions' difficulty (model.estimability). Null outside the"
        " main panel.",
    },
    "interviewers.severity_within": {
        "what": "For an interviewer who is not separable because their group is aliased"
        " with its questions: their severity relative to the other interviewers of their"
        " group, who ask the same questions (compared_within names the group). It says"
        " nothing about the group as a whole, and no flag is drawn from it.",
        "unit": _POINTS,
        "sign": "positive: harsher than the group's average interviewer",
        "interval": "severity_within_ci: severity_within ± 1.96 severity_within_se,"
        " allowing for the scorecard halo",
    },
    "interviewers.compared_within": {
        "what": "Present where severity_within is: the group (estimability_group) and its"
        " number of interviewers that severity_within is relative to.",
    },
    "model.estimability": {
        "what": "Directions in which interviewer effects and question effects cannot be"
        " told apart in this design beyond the usual sum-to-zero constraints"
        " (aliased_directions; 0: every severity is estimable), found from the null space"
        " of the model's design (method), and the groups of mutually comparable"
        " interviewers. The reference group, holding most ratings, is the one whose"
        " severities are reported.",
    },
    "interviewers.severity_se_robust": {
        "what": "severity_se widened for persistent interviewer x question deviations (an"
        " interviewer who always rates one question differently; model.interaction_sd):"
        " the standard error the flags are tested with.",
        "unit": _POINTS,
    },
    "interviewers.severity_named_ci": {
        "what": "The interval to show beside a named (flagged) interviewer: severity ±"
        " 1.96 severity_se_robust, unshrunk. Unlike severity_shrunk_ci it covers each"
        " interviewer's own severity about 95% of the time however far from the average"
        " they are; severity_shrunk stays the point estimate.",
        "unit": _POINTS,
        "interval": "severity_named_ci: severity ± 1.96 severity_se_robust",
    },
    "interviewers.detectable_severity": {
        "what": "The smallest severity (either sign) this scope would flag for this"
        " interviewer with 80% probability, given their standard error, the scope's"
        " Benjamini-Hochberg threshold and the 0.2-point minimum. Where no flag is shown,"
        " a severity smaller than this could have gone unseen. Null where none can be"
        " flagged (no spread between interviewers beyond noise).",
        "unit": _POINTS,
    },
    "model.detectable_severity": {
        "what": "What the scope can see: the median over its interviewers of"
        " detectable_severity (power 0.8, at the per-test level alpha that the next flag"
        " would need), how many interviewers have one and how many could not be flagged"
        " at any severity.",
        "unit": _POINTS,
    },
    "model.interaction_sd": {
        "what": "Estimated SD of persistent interviewer x question deviations (method of"
        " moments on the additive model's residuals); 0 when none is seen.",
        "unit": _POINTS,
    },
    "model.ceiling_share": {
        "what": "Share of the scope's ratings at the top of their scale. From 0.3 a"
        " ceiling_warning says severities are compressed and intervals may cover less.",
        "unit": "proportion",
    },
    "interviewers.shared_question_share": {
        "what": "Share of the interviewer's ratings on questions that two or more other"
        " interviewers ask (separable from 0.5).",
        "unit": "proportion",
    },
    "interviewers.severity_p": {
        "what": "Two-sided p-value of severity = 0 (severity / severity_se, normal).",
    },
    "interviewers.severity_q": {
        "what": "severity_p adjusted by Benjamini-Hochberg over the scope's interviewers."
        " Flags need 0.05 or less: over many scopes and runs, about 5% or fewer of the"
        " flags raised would be expected to fall on interviewers whose true severity is"
        " 0 if the model held. It is a property of the procedure, not a chance that any"
        " one named interviewer is wrongly flagged. Each snapshot (a role, each of its"
        " levels) adjusts on its own, so across a role and its levels more flags are"
        " false than that: level snapshots are marked exploratory (scope.flags).",
    },
    "interviewers.severity_shrunk": {
        "what": "Severity multiplied by its reliability: a thinly rated interviewer's"
        " estimate, mostly noise, is pulled toward this scope's average (0). The best"
        " single number on average, but pulled in most for the interviewers furthest"
        " from the average.",
        "unit": _POINTS,
        "sign": "positive: harsher than the average of this scope's interviewers",
        "interval": "severity_shrunk_ci: 95% empirical Bayes interval, given the role's"
        " spread of severities (model.severity_sd): it covers about 95% of the scope's"
        " interviewers on average, less for those far from the average; beside a named"
        " interviewer show severity_named_ci",
    },
    "interviewers.severity_reliability": {
        "what": "tau² / (tau² + severity_se²): the share of the estimate's variance that is"
        " true difference between interviewers rather than noise; 0 to 1.",
        "unit": "proportion",
    },
    "interviewers.agreement": {
        "what": "Share of the interviewer's loops with a decision where their"
        " recommendation (yes or no) matched it. Not chance-corrected, and the"
        " interviewer was part of the panel that decided: where most decisions are no"
        " hire, an interviewer who says no to everyone scores highest. It is not a"
        " measure of a good interviewer.",
        "unit": "proportion",
    },
    "interviewers.agreement_kappa": {
        "what": "Cohen's kappa of the interviewer's recommendation (yes or no) with the"
        " loop's decision: agreement beyond what their own and the decisions' base rates"
        " give by chance (0: no better than chance, however often they match). Null under"
        " 5 loops. The interviewer was still part of the panel that decided.",
        "unit": "-1 to 1",
    },
    "interviewers.peer_agreement_kappa": {
        "what": "Cohen's kappa of the interviewer's recommendation with the majority of the"
        " other interviewers of the same loop, their own recommendation left out (loops"
        " where the others tie are skipped). Null under 5 loops.",
        "unit": "-1 to 1",
    },
    "interviewers.flag": {
        "what": "harsh or lenient, relative to this scope's interviewers, when severity_q"
        " <= 0.05 (Benjamini-Hochberg over the scope's interviewers, tested with"
        " severity_se_robust) and |severity_shrunk| >= 0.2 points; harsh when"
        " severity_shrunk is positive. A prompt for a conversation, not a finding about"
        " the person. Never for interviewers who are not separable. No flag means the"
        " data did not show one, not that the interviewer is calibrated: see"
        " detectable_severity.",
    },
    "questions.discrimination": {
        "what": "Correlation of the question's rating with the candidate's mean on the"
        " loop's other questions; null under 10 pairs.",
        "unit": "correlation, -1 to 1",
    },
    "candidates.raw_mean": {"what": "The candidate's mean rating as given.", "unit": _POINTS},
    "candidates.adjusted": {
        "what": "The candidate's expected rating from an average interviewer on an average"
        " question (the model's candidate effect plus the overall mean).",
        "unit": _POINTS,
        "interval": "adjusted_ci: adjusted ± 1.96 adjusted_se, the standard error"
        " allowing for the scorecard halo",
    },
    "candidates.estimable": {
        "what": "False when the candidate's panel shares no interviewer with the rest of"
        " the scope (outside the model's main component): no adjusted score then.",
    },
    "reliability.krippendorff_alpha": {
        "what": "Agreement between interviewers who rated the same question for the same"
        " loop, Krippendorff's alpha stratified by question: each question's disagreement"
        " is judged against the spread of that question's own ratings, on its own scale"
        " (a question on two scales counts as two), so differences in question difficulty"
        " do not count as agreement. Nominal, ordinal and interval levels.",
        "unit": "1 perfect agreement, 0 no better than chance; Krippendorff (2004):"
        f" {bands_text(ALPHA)}",
        "interval": "krippendorff_alpha_ci95: 95% bootstrap over loops (1,000 resamples),"
        " widened for the chance of drawing other interviewers",
    },
    "reliability.krippendorff_alpha_headline": {
        "what": "The alpha a page may headline: krippendorff_alpha, with ordinal and"
        " interval null where the typical question has fewer than 40 pairable ratings"
        " (pairable_ratings_per_question). Each question's disagreement is judged against"
        " its own spread, which so few ratings estimate too narrowly: those levels read"
        " low and their intervals cover less than 95% (82% at 18 ratings a question).",
        "unit": "1 perfect agreement, 0 no better than chance",
    },
    "reliability.krippendorff_alpha_pooled": {
        "what": "Deprecated: Krippendorff's alpha over all questions pooled, the headline"
        " before stratification. Counts differences in question difficulty as agreement and"
        " puts questions on different scales side by side unrescaled, so it reads higher.",
        "unit": "1 perfect agreement, 0 chance",
    },
    "reliability.fleiss_kappa": {
        "what": "Fleiss' kappa, only when every unit has the same number of ratings;"
        " null otherwise.",
    },
    "reliability.g_qk": {
        "what": "Reliability of a typical panel's raw mean score (Putka et al. 2008), from"
        " the variance components of the crossed model. It describes raw panel means, as"
        " rated: not the score adjusted for severity. Why it can read good while alpha"
        " reads poor for the same panel: alpha asks whether two interviewers give one"
        " answer the same rating (each rating alone), G(q,k) whether a whole panel's mean"
        " ranks candidates consistently, and averaging many ratings cancels much of the"
        " disagreement alpha sees.",
        "unit": f"0 to 1; {bands_text(G_QK)}",
    },
    "reliability.icc": {
        "what": "The six Shrout and Fleiss ICCs on the largest complete candidates by"
        " interviewers grid of one question; null without one.",
        "interval": "ci95: F-based intervals",
    },
    "model.halo_sd": {
        "what": "SD of the halo one scorecard's ratings share (the interviewer's overall"
        " impression of the candidate), by Henderson's method III; model.within_sd is"
        " the rest of the residual.",
        "unit": _POINTS,
    },
    "model.severity_sd": {
        "what": "The estimated spread (SD) of true severities across the scope's"
        " interviewers, from which severities are shrunk.",
        "unit": _POINTS,
    },
}
