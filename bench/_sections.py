"""Time the calibration job's sections with perf_counter (bench/calibrate.py --sections).

Wraps the job's functions in place, in the bench's child process only, and adds
up the wall time spent in each (inclusive of what it calls; a section called
again inside itself counts once). Cheaper and closer to the real times than
cProfile, which slows every Python call.
"""

import functools
import json
import time
from collections.abc import Callable
from typing import Any

CAL = "scoring.calibration"
# (label, "module:attribute" or "module:Class.attribute") in report order; the
# indentation shows what is part of the row above.
SECTIONS: list[tuple[str, str]] = [
    ("read: watermarks", f"{CAL}.ratings:watermarks"),
    ("  scorecards (_cards)", f"{CAL}.ratings:_cards"),
    ("  ratings (_asked)", f"{CAL}.ratings:_asked"),
    ("    fetch into numpy (_integers)", f"{CAL}.ratings:_integers"),
    ("  times (_times)", f"{CAL}.ratings:_times"),
    ("  open seats", f"{CAL}.ratings:_open_seats"),
    ("read: versions, arrays", f"{CAL}.ratings:_Read.ratings"),
    ("compute (role)", f"{CAL}.jobs:compute"),
    ("  codes", f"{CAL}.jobs:Codes.of"),
    ("  stats.summarise", f"{CAL}.stats:summarise"),
    ("    reliability", f"{CAL}.stats.summary:_reliability"),
    ("      alpha by question", f"{CAL}.stats.summary:_alpha_by_question"),
    ("      pooled alpha (krippendorff)", f"{CAL}.stats.summary:alphas_from_pairable"),
    ("      G(q,k) interval", f"{CAL}.stats.summary:g_qk_interval"),
    ("      largest complete grid", f"{CAL}.stats.summary:largest_complete_grid"),
    ("    discrimination", f"{CAL}.stats.summary:question_discrimination"),
    ("    fit_additive", f"{CAL}.stats.raters:fit_additive"),
    ("    stated period", f"{CAL}.stats.periods:Stated.of"),
    ("    previous period", f"{CAL}.stats.summary:previous_change"),
    ("    interviewer rows", f"{CAL}.stats.summary:interviewer_rows"),
    ("    candidate rows", f"{CAL}.stats.summary:_candidate_rows"),
    ("    to_jsonable", f"{CAL}.stats.summary:to_jsonable"),
    ("  labels: read", f"{CAL}.jobs:Labels.read"),
    ("  labels: apply", f"{CAL}.jobs:Labels.apply"),
    ("  own rows", f"{CAL}.jobs:own_rows"),
    ("ORM create (the job, each snapshot)", "django.db.models.query:QuerySet.create"),
    ("  json.dumps", "json:dumps"),
]
IMPORTS = "import the command's modules"
_spent: dict[str, float] = {}
_calls: dict[str, int] = {}
_active: set[str] = set()


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if label in _active:
            return fn(*args, **kwargs)
        _active.add(label)
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _spent[label] = _spent.get(label, 0.0) + time.perf_counter() - started
            _calls[label] = _calls.get(label, 0) + 1
            _active.discard(label)

    return wrapper


def install() -> None:
    """Import the command's modules (a section of its own: the job's call imports them
    when not profiled), then wrap every section's function (after django.setup())."""
    import importlib

    started = time.perf_counter()
    importlib.import_module("scoring.management.commands.calibrate")
    _spent[IMPORTS] = time.perf_counter() - started
    _calls[IMPORTS] = 1

    for label, where in SECTIONS:
        module_name, path = where.split(":")
        owner, _, name = path.rpartition(".")
        module = importlib.import_module(module_name)
        target = getattr(module, owner) if owner else module
        raw = target.__dict__[name] if owner else getattr(module, name)
        if isinstance(raw, classmethod):
            setattr(target, name, classmethod(_timed(label, raw.__func__)))
        else:
            setattr(target, name, _timed(label, raw))
    # The modules that imported fit_additive by name hold the original: rebind.
    from scoring.calibration.stats import periods, raters, summary

    periods.fit_additive = summary.fit_additive = raters.fit_additive


def report() -> str:
    """Return the sections' times as JSON: [[label, seconds, calls], ...]."""
    labels = [IMPORTS] + [label for label, _ in SECTIONS]
    rows = [[label, _spent.get(label, 0.0), _calls.get(label, 0)] for label in labels]
    return json.dumps(rows)
