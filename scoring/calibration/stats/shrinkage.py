"""Shrinking interviewers' severities toward zero by how much their data can say.

A severity estimated from a handful of ratings is mostly noise: its standard
error is as large as the spread of true severities, so reporting it as is
names people on chance. The parametric empirical Bayes estimate (Morris 1983)
multiplies each estimate by its reliability ``tau² / (tau² + se²)``, where
``tau²``, the variance of true severities across the role's interviewers, is
estimated from the estimates themselves by the method of moments (DerSimonian
and Laird 1986, with the mean known: severities sum to zero).

References
----------
Morris, C. N. (1983). Parametric empirical Bayes inference: theory and
applications. Journal of the American Statistical Association, 78, 47-55.
DerSimonian, R., and Laird, N. (1986). Meta-analysis in clinical trials.
Controlled Clinical Trials, 7, 177-188.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from scoring.calibration.stats._arrays import CONFIDENCE, FloatArray

__all__ = ["Shrinkage", "shrink"]


@dataclass(frozen=True)
class Shrinkage:
    """Shrunk estimates, per entity (NaN where the estimate or its SE is missing)."""

    tau2: float  # the estimated variance of the true values across entities
    shrunk: FloatArray
    shrunk_se: FloatArray  # the posterior SD, given tau2
    reliability: FloatArray  # tau2 / (tau2 + se²), in [0, 1]
    ci_low: FloatArray
    ci_high: FloatArray


def shrink(estimate: npt.ArrayLike, se: npt.ArrayLike, confidence: float = CONFIDENCE) -> Shrinkage:
    """Return the estimates shrunk toward zero by their reliability.

    1. Entities with a finite estimate and a positive finite SE take part.
    2. ``tau² = max(0, (Σ w e² - (k - 1)) / Σ w)`` with weights ``w = 1 / se²``:
       under e ~ N(0, tau² + se²) the weighted sum of squares has expectation
       ``tau² Σ w + k``; one degree of freedom goes to the sum-to-zero constraint.
    3. Each estimate is multiplied by ``b = tau² / (tau² + se²)``; its posterior
       SD is ``sqrt(b) se`` and the interval the shrunk value ± z of it.

    With fewer than two entities, or no spread beyond noise, tau² is 0 and every
    estimate shrinks to 0 with reliability 0: the data cannot tell them apart.
    """
    e = np.asarray(estimate, dtype=np.float64)
    s = np.asarray(se, dtype=np.float64)
    if e.shape != s.shape:
        raise ValueError("estimate and se must have the same shape")
    usable = np.isfinite(e) & np.isfinite(s) & (s > 0)
    k = int(np.count_nonzero(usable))
    tau2 = 0.0
    if k >= 2:
        w = 1.0 / (s[usable] ** 2)
        tau2 = max(0.0, float((np.sum(w * e[usable] ** 2) - (k - 1)) / np.sum(w)))
    nan = np.full(e.shape, np.nan)
    reliability, shrunk, shrunk_se = nan.copy(), nan.copy(), nan.copy()
    reliability[usable] = tau2 / (tau2 + s[usable] ** 2)
    shrunk[usable] = reliability[usable] * e[usable]
    shrunk_se[usable] = np.sqrt(reliability[usable]) * s[usable]
    z = float(special.ndtri(0.5 + confidence / 2))
    return Shrinkage(
        tau2=tau2,
        shrunk=shrunk,
        shrunk_se=shrunk_se,
        reliability=reliability,
        ci_low=shrunk - z * shrunk_se,
        ci_high=shrunk + z * shrunk_se,
    )
