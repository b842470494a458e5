"""What each number of a calibration snapshot means: the `definitions` block.

Stored in every snapshot (and shown to everyone who reads one), so that a figure
read out of the JSON, the CSV or the page carries its unit, its sign and what its
interval means. Keys are the snapshot's own keys.
"""

from typing import Any, NamedTuple

_POINTS = "rating points"

DEFINITIONS: dict[str, dict[str, Any]] = {
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
        "sign": "positive: harsher than the average interviewer",
        "interval": "severity_ci: severity ± 1.96 severity_se, the standard error allowing"
        " for the halo shared by one scorecard's ratings (model.halo_sd)",
    },
    "interviewers.separable": {
        "what": "False when the interviewer's severity cannot be told apart from their"
        " questions' difficulty: fewer than half of their ratings are on questions that"
        " two or more other interviewers ask. Then no severity is reported.",
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
        "what": "severity_p adjusted by Benjamini-Hochberg over the scope's interviewers:"
        " flag only at 0.05 or less, so at most 5% of flags are expected to be false.",
    },
    "interviewers.severity_shrunk": {
        "what": "Severity multiplied by its reliability: a thinly rated interviewer's"
        " estimate, mostly noise, is pulled toward the average (0).",
        "unit": _POINTS,
        "sign": "positive: harsher than the average interviewer",
        "interval": "severity_shrunk_ci: 95% empirical Bayes interval, given the role's"
        " spread of severities (model.severity_sd)",
    },
    "interviewers.severity_reliability": {
        "what": "tau² / (tau² + severity_se²): the share of the estimate's variance that is"
        " true difference between interviewers rather than noise; 0 to 1.",
        "unit": "proportion",
    },
    "interviewers.agreement": {
        "what": "Share of the interviewer's loops with a decision where their"
        " recommendation (yes or no) matched it.",
        "unit": "proportion",
    },
    "interviewers.flag": {
        "what": "harsh or lenient when severity_q <= 0.05 (false discovery rate 5% across"
        " the scope's interviewers) and |severity_shrunk| >= 0.2 points; harsh when"
        " severity_shrunk is positive. Never for interviewers who are not separable.",
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
        "unit": "1 perfect agreement, 0 no better than chance; Krippendorff (2004) asks"
        " 0.80 for firm conclusions and 0.667 at least for tentative ones",
        "interval": "krippendorff_alpha_ci95: 95% bootstrap over loops (1,000 resamples),"
        " widened for the chance of drawing other interviewers",
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
        " the variance components of the crossed model.",
        "unit": "0 to 1",
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

# Krippendorff (2004, section 11.4): rely on variables with alpha of 0.800 or
# more, draw only tentative conclusions from 0.667 to 0.800, and none below.
ALPHA_FIRM = 0.8
ALPHA_TENTATIVE = 0.667


class Verdict(NamedTuple):
    kind: str  # "good", "fair" or "poor": the page's style
    text: str


def alpha_verdict(alpha: float | None) -> Verdict | None:
    """Return what an alpha is good for, in Krippendorff's (2004) terms."""
    if alpha is None:
        return None
    if alpha >= ALPHA_FIRM:
        return Verdict("good", "good agreement")
    if alpha >= ALPHA_TENTATIVE:
        return Verdict("fair", "fair agreement: draw only tentative conclusions")
    return Verdict("poor", "poor agreement: interviewers often rate the same answer differently")
