"""JSON-safe values for the snapshot: plain Python numbers, NaN as None, no "-0.0"."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scoring.calibration.stats._arrays import FloatArray


def to_jsonable(obj: Any, ndigits: int | None = None) -> Any:
    """Return ``obj`` with numpy types made plain and NaN/inf replaced by None."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v, ndigits) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v, ndigits) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist(), ndigits)
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        value = float(obj)
        if not math.isfinite(value):
            return None
        return round(value, ndigits) if ndigits is not None else value
    return obj


def json_column(values: FloatArray, ndigits: int | None) -> list[float | None]:
    """Return a float array as a list with NaN/inf as None, optionally rounded."""
    a = np.asarray(values, dtype=np.float64)
    if ndigits is not None:
        a = np.round(a, ndigits)
    a = a + 0.0  # turn -0.0 into 0.0 so the JSON does not show "-0.0"
    out = a.astype(object)
    out[~np.isfinite(a)] = None
    return out.tolist()


def rating_key(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
