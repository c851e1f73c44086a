"""The rule `compare` decides a cell by: better, worse or no change of B against A, from the
interval of the ratio B / A and an effect threshold t (a fraction: 0.05 for `--threshold 5`).

For a cost (higher is worse; every headline metric is one):
- worse      when the whole interval lies above 1 + t (B costs more than A by more than t, at the
             interval's level);
- better     when the whole interval lies below 1 - t;
- no change  otherwise: "within ±t" when the whole interval lies inside [1 - t, 1 + t] (any
             change is smaller than t), else "inconclusive: interval [a, b] crosses the threshold"
             (the runs cannot tell whether the change exceeds t).
For a metric where higher is better (HIGHER_IS_BETTER) worse and better swap.  An exact figure
(the counts tier) is its own interval: low = high = B / A.  A cell with no interval is `n/a` and
carries the reason.  Nothing here looks at p-values: the decision is the interval and t."""

from __future__ import annotations

import math

WORSE, BETTER, NO_CHANGE, NOT_AVAILABLE = "worse", "better", "no change", "n/a"
ORDER = {WORSE: 0, NO_CHANGE: 1, BETTER: 2, NOT_AVAILABLE: 3}  # the table's order: worst first
DEFAULT_THRESHOLD_PERCENT = 5.0
# Catalogued metrics that are not costs: a larger value is the better one (placement metrics of
# the data structures).  Every other metric compare accepts is a cost, a time or a memory figure.
HIGHER_IS_BETTER = frozenset({"cache_line_utilisation", "page_utilisation"})
EXIT_WORSE = 4  # `compare` exits with this when at least one cell or counts figure is worse
# ... and with this when void itself moved beyond the threshold between the runs (compare_reference.py):
# the machine's speed differed, so no timing cell's decision can be put down to the allocators (it
# takes precedence over a worse timing cell: a rerun on a steady machine is what the gate needs;
# a worse counts figure is exact, untouched by the machine's speed, and still gives EXIT_WORSE)
EXIT_REFERENCE_MOVED = 3


def parse_threshold(text: str) -> float:
    """`--threshold` as a fraction: "5" and "5%" are 0.05.  ValueError (one line, saying what is
    accepted) for anything but a finite number in [0, 100), with or without a trailing %."""
    body = str(text).strip()
    body = body[:-1].strip() if body.endswith("%") else body
    try:
        value = float(body)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value < 100:
        raise ValueError(f"--threshold '{text}' is not a percentage (accepted: a number from 0 up to 100, 100 "
                         f"excluded, e.g. 5 or 5%; default {DEFAULT_THRESHOLD_PERCENT:g})")
    return value / 100


def percent(threshold: float) -> str:
    """0.05 -> "5%", 0.025 -> "2.5%"."""
    return f"{threshold * 100:g}%"


def decide(low: float, high: float, threshold: float, higher_is_better: bool = False) -> tuple[str, str]:
    """(decision, reason) for a ratio B / A whose interval is [low, high] (low == high for an exact
    figure).  NaN bounds give n/a; the caller passes its own reason for that case instead."""
    if math.isnan(low) or math.isnan(high):
        return NOT_AVAILABLE, "no interval"
    above, below = low > 1 + threshold, high < 1 - threshold
    if above or below:
        decision = (BETTER if above else WORSE) if higher_is_better else (WORSE if above else BETTER)
        side = f"above +{percent(threshold)}" if above else f"below -{percent(threshold)}"
        what = "B / A" if low == high else "the whole interval"
        return decision, f"{what} lies {side}"
    if low >= 1 - threshold and high <= 1 + threshold:
        return NO_CHANGE, f"within ±{percent(threshold)}"
    return NO_CHANGE, f"inconclusive: interval [{low:.3f}, {high:.3f}] crosses the ±{percent(threshold)} threshold"


def verdict_counts(decisions) -> dict[str, int]:
    """How many of each decision, worse first (every key present, 0 included)."""
    decisions = list(decisions)
    return {d: decisions.count(d) for d in ORDER}


def exit_status(worse: int, reference_moved: bool = False, exact_worse: int = 0) -> int:
    """The exit code of `compare`: EXIT_WORSE when an exact figure (counts tier) is worse beyond the
    threshold; else EXIT_REFERENCE_MOVED when void moved beyond the threshold; else EXIT_WORSE when
    a timing cell is worse (`worse` of them); else 0."""
    if exact_worse:
        return EXIT_WORSE
    if reference_moved:
        return EXIT_REFERENCE_MOVED
    return EXIT_WORSE if worse else 0
