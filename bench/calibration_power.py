"""How well the calibration engine's interviewer numbers hold up on simulated sparse rosters.

Run from the repository root:  python bench/calibration_power.py [ROSTERS] [--seed S]

Each scenario draws ROSTERS (default 200) rosters with
``tests.support.sparse_panels.simulate_sparse_panels`` (150 candidates, 50
interviewers of whom a quarter have 10 ratings or fewer, panels of 4,
personal question repertoires, ratings 1-4 with a scorecard halo), runs each
through ``scoring.calibration.stats.summarise`` and prints one table, a
column per scenario:

* null, equal questions: every interviewer identical, every question alike;
* null, questions differ: every interviewer identical, easiness sd 0.3;
* differ, random panels: severity sd 0.4, panels drawn at random;
* differ, assortative: severity sd 0.4, harsher interviewers meet stronger
  candidates (--assortativity, default 0.4, over scorecards);
* one solo interviewer: the assortative scenario where one interviewer asks
  only questions nobody else asks (not separable from them).

Rows (pooled over rosters; "n/a" where nothing qualifies):

* rosters with any flag: share of rosters with at least one interviewer flag;
* |sev|>0.5 flagged right: share of interviewers with true severity beyond
  0.5 points whose flag says "harsh" (true > 0) or "lenient" (true < 0);
* flags within 0.2 of neutral: share of all flags on interviewers whose true
  severity is within 0.2 of zero;
* coverage all / <=10 ratings: share of interviewers whose 95% interval
  (estimate +- 1.96 SE, or --interval) holds the true severity;
* RMSE <=10 ratings, and the RMSE of saying 0 for the same interviewers;
* slope estimate~truth: least-squares slope of estimate on true severity
  (rounding to whole points attenuates effects below 1);
* the same coverage, RMSE and slope against ``severity_points``, the
  severity in expected rating points (what the model estimates);
* not separable given a number: share of interviewers who alone ask all their
  questions but still get an estimate;
* others marked not separable: share of the other comparable interviewers
  reported as not separable from their questions (the criterion's cost).

The truths are on the model's scale (mean-zero severities, positive =
harsher, in latent points before rounding; see SparsePanels). Interviewers
without an estimate (null: not comparable or not separable) are left out of
coverage and RMSE and count as unflagged only if their flag is null.
--estimate/--se/--interval name the interviewer row's keys, so a shrunk
estimate can be measured the same way. No assertions.
"""

import argparse
import inspect
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scoring.calibration.stats import summarise
from tests.support.sparse_panels import SparsePanels, simulate_sparse_panels

Z95 = 1.959963984540054
BIG = 0.5  # |true severity| that the flags should catch
NEUTRAL = 0.2  # |true severity| that a flag should not land on
THIN = 10  # ratings


@dataclass
class Tally:
    rosters: int = 0
    rosters_flagged: int = 0
    big: int = 0
    big_right: int = 0
    flags: int = 0
    flags_neutral: int = 0
    covered: list[bool] = field(default_factory=list)
    covered_thin: list[bool] = field(default_factory=list)
    err_thin: list[float] = field(default_factory=list)
    zero_thin: list[float] = field(default_factory=list)
    truth: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    covered_points: list[bool] = field(default_factory=list)
    err_thin_points: list[float] = field(default_factory=list)
    estimate: list[float] = field(default_factory=list)
    not_separable: int = 0
    not_separable_numbered: int = 0
    separable: int = 0
    separable_unnumbered: int = 0


def direction(flag: Any) -> int:
    """Return +1 for a harsh flag, -1 for a lenient one, 0 for none or another wording."""
    if not flag:
        return 0
    text = str(flag).lower()
    return 1 if "harsh" in text else -1 if "lenient" in text else 0


def measure(
    tally: Tally, roster: SparsePanels, rows: list[dict[str, Any]], keys: argparse.Namespace
) -> None:
    counts = np.bincount(roster.interviewer, minlength=roster.severity.size)
    tally.rosters += 1
    tally.rosters_flagged += any(row.get("flag") for row in rows)
    for code, row in enumerate(rows):
        true = float(roster.severity[code])
        true_points = float(roster.severity_points[code])
        flagged = bool(row.get("flag"))
        if abs(true) > BIG:
            tally.big += 1
            tally.big_right += direction(row.get("flag")) == (1 if true > 0 else -1)
        if flagged:
            tally.flags += 1
            tally.flags_neutral += abs(true) < NEUTRAL
        if roster.not_separable[code]:
            tally.not_separable += 1
            tally.not_separable_numbered += row.get(keys.estimate) is not None
        elif counts[code] and row.get("comparable"):
            tally.separable += 1
            tally.separable_unnumbered += row.get("separable") is False
        estimate = row.get(keys.estimate)
        if estimate is None:
            continue
        if keys.interval:
            bounds = row.get(keys.interval)
            low, high = (math.nan, math.nan) if bounds is None else bounds
        else:
            se = row.get(keys.se)
            half = math.nan if se is None else Z95 * se
            low, high = estimate - half, estimate + half
        covered = bool(low <= true <= high)
        tally.covered.append(covered)
        tally.truth.append(true)
        tally.points.append(true_points)
        tally.covered_points.append(bool(low <= true_points <= high))
        tally.estimate.append(estimate)
        if counts[code] <= THIN:
            tally.covered_thin.append(covered)
            tally.err_thin.append(estimate - true)
            tally.zero_thin.append(true)
            tally.err_thin_points.append(estimate - true_points)


def share(numerator: float, denominator: float) -> str:
    return "n/a" if denominator == 0 else f"{numerator / denominator:.3f}"


def mean_of(values: list[bool]) -> str:
    return share(sum(values), len(values))


def rms(values: list[float]) -> str:
    return "n/a" if not values else f"{math.sqrt(np.mean(np.square(values))):.3f}"


def slope(truth: list[float], tally: Tally) -> str:
    x = np.asarray(truth)
    if x.size < 2 or x.std() == 0:
        return "n/a"
    return f"{np.polyfit(x, np.asarray(tally.estimate), 1)[0]:.3f}"


def rows_of(tally: Tally) -> dict[str, str]:
    return {
        "rosters with any flag": share(tally.rosters_flagged, tally.rosters),
        f"|sev|>{BIG} flagged right": share(tally.big_right, tally.big),
        f"  (interviewers |sev|>{BIG})": str(tally.big),
        f"flags within {NEUTRAL} of neutral": share(tally.flags_neutral, tally.flags),
        "  (flags)": str(tally.flags),
        "95% coverage, all": mean_of(tally.covered),
        f"95% coverage, <={THIN} ratings": mean_of(tally.covered_thin),
        f"RMSE, <={THIN} ratings": rms(tally.err_thin),
        f"RMSE of saying 0, <={THIN} ratings": rms(tally.zero_thin),
        "slope estimate~truth": slope(tally.truth, tally),
        "95% coverage, all (point truth)": mean_of(tally.covered_points),
        f"RMSE, <={THIN} ratings (point truth)": rms(tally.err_thin_points),
        "slope estimate~point truth": slope(tally.points, tally),
        "not separable given a number": share(tally.not_separable_numbered, tally.not_separable),
        "others marked not separable": share(tally.separable_unnumbered, tally.separable),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rosters", nargs="?", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20240616)
    parser.add_argument("--assortativity", type=float, default=0.4)
    parser.add_argument("--estimate", default="severity", help="interviewer row key")
    parser.add_argument("--se", default="severity_se", help="interviewer row key")
    parser.add_argument("--interval", default="", help="row key of a [low, high] interval")
    keys = parser.parse_args()

    rho = keys.assortativity
    scenarios: dict[str, dict[str, Any]] = {
        "null, equal q": {"severity_sd": 0.0, "easiness_sd": 0.0},
        "null, q differ": {"severity_sd": 0.0, "easiness_sd": 0.3},
        "differ, random": {"severity_sd": 0.4, "easiness_sd": 0.3},
        "differ, assort.": {"severity_sd": 0.4, "easiness_sd": 0.3, "assortativity": rho},
        "one solo": {
            "severity_sd": 0.4,
            "easiness_sd": 0.3,
            "assortativity": rho,
            "solo_interviewers": 1,
        },
    }
    accepts = inspect.signature(summarise).parameters
    extra: Callable[[SparsePanels], dict[str, Any]] = (
        (lambda r: {"scorecard": r.scorecard}) if "scorecard" in accepts else (lambda r: {})
    )
    results: dict[str, dict[str, str]] = {}
    started = time.perf_counter()
    # One child seed per scenario, then one per roster: scenarios are independent
    # of each other and of ROSTERS' order.
    for seq, (name, options) in zip(
        np.random.SeedSequence(keys.seed).spawn(len(scenarios)), scenarios.items(), strict=True
    ):
        tally = Tally()
        for child in seq.spawn(keys.rosters):
            roster = simulate_sparse_panels(np.random.default_rng(child), **options)
            out = summarise(
                roster.candidate,
                roster.interviewer,
                roster.question,
                roster.rating,
                n_candidates=roster.ability.size,
                n_interviewers=roster.severity.size,
                n_questions=roster.easiness.size,
                scale_max=float(roster.scale_max),
                bootstrap_resamples=0,
                ndigits=None,
                **extra(roster),
            )
            measure(tally, roster, out["interviewers"], keys)
        results[name] = rows_of(tally)
    elapsed = time.perf_counter() - started

    print(
        f"{keys.rosters} rosters per scenario, seed {keys.seed}, assortativity {rho}, "
        f"estimate {keys.estimate!r} +- 1.96 x {keys.se!r}"
        + (f" (interval {keys.interval!r})" if keys.interval else "")
        + f", {elapsed:.1f} s"
    )
    labels = list(next(iter(results.values())))
    width = max(len(label) for label in labels)
    columns = list(results)
    col = max(10, *(len(c) for c in columns))
    print(" " * width + "  " + "  ".join(f"{c:>{col}}" for c in columns))
    for label in labels:
        cells = "  ".join(f"{results[c][label]:>{col}}" for c in columns)
        print(f"{label:<{width}}  {cells}")


if __name__ == "__main__":
    main()
