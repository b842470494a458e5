"""Compute calibration statistics for interview panels from plain arrays.

Pure numpy/scipy: no Django, no ORM. The Django side turns ratings into integer
codes (candidate 0..C-1, interviewer 0..I-1, question 0..Q-1) and maps codes
back to names; everything here deals only in codes and parallel arrays of
equal length, one entry per rating. Every function is vectorised (bincount,
sparse matrices, sorting), so a million ratings take seconds.

One module per family: ``agreement`` (Krippendorff's alpha, Fleiss' kappa,
recommendation agreement), ``intraclass`` (Shrout and Fleiss ICCs),
``gtheory`` (variance components, G(q,k)), ``raters`` (leniency, the additive
model's severity), ``questions`` (discrimination) and ``summary`` (the
snapshot body and its flags). Import from this package; the names it exports
are listed in ``__all__``.

Undefined statistics (no pairable units, zero variance, too few pairs) are
None in Python results and NaN inside arrays; ``summarise`` turns both into
JSON null.

References
----------
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
Psychological Bulletin, 76(5), 378-382.

Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
Annenberg School for Communication Departmental Papers, University of
Pennsylvania.

McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
correlation coefficients. Psychological Methods, 1(1), 30-46.

Putka, D. J., Le, H., McCloy, R. A., & Diaz, T. (2008). Ill-structured
measurement designs in organizational research: implications for estimating
interrater reliability. Journal of Applied Psychology, 93(5), 959-981.

Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in
assessing rater reliability. Psychological Bulletin, 86(2), 420-428.
"""

from scoring.calibration.stats._arrays import CONFIDENCE, Z95
from scoring.calibration.stats.agreement import (
    BOOTSTRAP_RESAMPLES,
    LEVELS,
    Level,
    fleiss_kappa,
    fleiss_kappa_from_table,
    krippendorff_alpha,
    krippendorff_alpha_bootstrap,
    krippendorff_alpha_from_matrix,
    krippendorff_alphas,
    recommendation_agreement,
)
from scoring.calibration.stats.gtheory import (
    GqkResult,
    VarianceComponents,
    g_qk,
    g_qk_interval,
    putka_q,
    variance_components,
)
from scoring.calibration.stats.interviewers import FLAG_FDR, FLAG_MIN_POINTS, severity_flags
from scoring.calibration.stats.intraclass import ICC_FORMS, IccResult, icc, largest_complete_grid
from scoring.calibration.stats.questions import (
    MIN_CORRELATION_PAIRS,
    DiscriminationResult,
    question_discrimination,
)
from scoring.calibration.stats.raters import (
    AdditiveFit,
    Effect,
    LeniencyResult,
    SeverityAdjusted,
    fit_additive,
    leniency,
    panel_components,
    severity_adjusted_mean,
)
from scoring.calibration.stats.summary import (
    CEILING_FLOOR_MIN_RATINGS,
    CEILING_FLOOR_SHARE,
    ICC_MIN_CANDIDATES,
    LOW_DISCRIMINATION,
    LOW_DISCRIMINATION_MIN_PAIRS,
    summarise,
    to_jsonable,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "CEILING_FLOOR_MIN_RATINGS",
    "CEILING_FLOOR_SHARE",
    "CONFIDENCE",
    "FLAG_FDR",
    "FLAG_MIN_POINTS",
    "ICC_FORMS",
    "ICC_MIN_CANDIDATES",
    "LEVELS",
    "LOW_DISCRIMINATION",
    "LOW_DISCRIMINATION_MIN_PAIRS",
    "MIN_CORRELATION_PAIRS",
    "Z95",
    "AdditiveFit",
    "DiscriminationResult",
    "Effect",
    "GqkResult",
    "IccResult",
    "LeniencyResult",
    "Level",
    "SeverityAdjusted",
    "VarianceComponents",
    "fit_additive",
    "fleiss_kappa",
    "fleiss_kappa_from_table",
    "g_qk",
    "g_qk_interval",
    "icc",
    "krippendorff_alpha",
    "krippendorff_alpha_bootstrap",
    "krippendorff_alpha_from_matrix",
    "krippendorff_alphas",
    "largest_complete_grid",
    "leniency",
    "panel_components",
    "putka_q",
    "question_discrimination",
    "recommendation_agreement",
    "severity_adjusted_mean",
    "severity_flags",
    "summarise",
    "to_jsonable",
    "variance_components",
]
