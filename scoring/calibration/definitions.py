"""What each number of a calibration snapshot means: the `definitions` block.

Stored in every snapshot (and shown to everyone who reads one), so that a figure
read out of the JSON, the CSV or the page carries its unit, its sign and what its
interval means. Keys are the snapshot's own keys.
"""

from typing import Any

_POINTS = "rating points"

DEFINITIONS: dict[str, dict[str, Any]] = {
    "interviewers.mean": {
        "what": "The interviewer's mean rating over every counted rating in scope.",
        "unit": _POINTS,
    },
    "interviewers.leniency": {
        "what": "The interviewer's mean rating minus their co-panelists' mean for the same"
        " candidates, averaged over candidates. Kept for compatibility; read severity.",
        "unit": _POINTS,
        "sign": "positive: rates higher (more lenient) than co-panelists",
        "interval": "leniency_ci: 95% t interval over the interviewer's candidates",
    },
    "interviewers.severity": {
        "what": "The interviewer effect of rating = overall + candidate + interviewer +"
        " question + noise, fitted by least squares over all ratings, candidates fixed.",
        "unit": _POINTS,
        "sign": "positive: harsher than the average interviewer",
        "interval": "severity ± 1.96 severity_se, assuming independent ratings",
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
        "what": "lenient or harsh when |leniency| > 0.5 and its interval excludes 0.",
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
        "interval": "adjusted ± 1.96 adjusted_se, assuming independent ratings",
    },
    "reliability.krippendorff_alpha": {
        "what": "Agreement between interviewers on the same (loop, question) units, pooled"
        " over questions: differences in question difficulty count as agreement.",
        "unit": "1 perfect agreement, 0 chance",
        "interval": "krippendorff_alpha_ci95: bootstrap over units",
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
    "model.severity_sd": {
        "what": "The estimated spread (SD) of true severities across the scope's"
        " interviewers, from which severities are shrunk.",
        "unit": _POINTS,
    },
}
