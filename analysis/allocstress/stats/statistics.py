"""Statistics over repetitions, kept small and pure so that each can be tested on known data.

Where the rules live: the median's interval (median_ci), the cell summary's median and cv, a
median's precision and the unstable mark (relative_half_width, UNSTABLE_HALF_WIDTH), and Spearman
(spearman_rows) are defined once, in C++ (platform/statistics.hpp, platform/rank_correlation.hpp),
and called here through `allocstress._core` (analysis/core_statistics.cpp); the functions below
only drop missing values and shape the answer.  So are the quotient interval and the overlap rule
of median_intervals.py.

What the repetitions measure: every repetition replays the same operation stream (same seed),
so spreads, intervals and tests describe run-to-run noise of machine and allocator on that
stream, not the randomness of the workload (run several seeds for that).

Per cell: the median, a distribution-free confidence interval of the median from order
statistics (binomial; with n <= 5 the best available is [min, max], whose true level
1 - 2^(1-n) is reported), and the coefficient of variation (sample sd / |mean|); the median is
unstable when its interval is wider than +-UNSTABLE_HALF_WIDTH of it.  Between two allocators: the
ratio of medians, whose interval is the quotient of the two medians' intervals
(median_intervals.ratio_interval), and a two-sided Mann-Whitney U test, computed exactly over all
rank permutations (mid-ranks for ties) for up to 20 values in all, by scipy's normal approximation above that.  With n1 and n2
repetitions and no ties the smallest reachable p-value is 2 / C(n1+n2, n1): 3 vs 3 can never
reach 5%, and `significance_mark` then says n/a.  Comparing many cells at once (`compare`), the
p-values are adjusted by the Benjamini-Hochberg method, so that an A/A comparison calls any cell
significant with probability at most ALPHA; the geometric mean of the cells' ratios gets a
percentile-bootstrap interval (every cell's repetitions resampled: a mean over many cells, named
"bootstrap interval of the geometric mean" wherever it is shown).  `compare` decides every cell by
its ratio's interval widened for the number of cells compared (Bonferroni: `familywise_level`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

import allocstress._core as _core

UNSTABLE_HALF_WIDTH = _core.unstable_relative_half_width  # wider than +-10% of the median: unstable (the C++ rule)
ALPHA = 0.05                # significance level of the tests
CONFIDENCE = 0.95           # nominal level of the intervals
BOOTSTRAP_RESAMPLES = 2000  # percentile bootstrap; fixed seed, so intervals are reproducible
BOOTSTRAP_SEED = 20180101
EXACT_TEST_MAX_VALUES = 20  # exact permutation Mann-Whitney up to this many values in all
RESAMPLED_VALUES_PER_CHUNK = 4_000_000  # resampled values held at once (bounds memory; same random stream)


def clean(values) -> np.ndarray:
    """The finite values (None and NaN dropped) as floats."""
    a = np.asarray([np.nan if v is None else v for v in np.ravel(np.asarray(values, dtype=object))], dtype=float)
    return a[np.isfinite(a)]


def coefficient_of_variation(values) -> float:
    """Sample standard deviation / |mean| (the C++ summarise); NaN for fewer than two values or a
    zero mean."""
    a = clean(values)
    return float(_core.summarise(a.tolist())["cv"]) if a.size >= 2 else math.nan


def median_ci(values, level: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, achieved level) of a distribution-free interval for the median (the C++
    median_interval): the order statistics x(k) and x(n+1-k) with the largest k whose coverage
    1 - 2 P(Bin(n, 1/2) < k) still reaches `level`; when no k does (n <= 5 at 95%), [min, max] with
    its own, lower level.  None and NaN values are dropped; (NaN, NaN, NaN) for fewer than two."""
    low, high, achieved = _core.median_interval(clean(values).tolist(), level)
    return (float(low), float(high), float(achieved))


def summarise_cell(values) -> dict:
    """n (finite values), median, ci_low, ci_high, ci_level, cv and unstable (the interval wider
    than ±UNSTABLE_HALF_WIDTH of the median) of one cell, by the C++ rules."""
    a = clean(values)
    summary = _core.summarise(a.tolist())
    median = float(summary["median"])
    lo, hi, level = median_ci(a)
    return {"n": int(a.size), "median": median, "ci_low": lo, "ci_high": hi, "ci_level": level,
            "cv": float(summary["cv"]) if a.size >= 2 else math.nan,  # as coefficient_of_variation
            "unstable": is_unstable(relative_half_width(lo, hi, median))}


def relative_half_width(low: float, high: float, median: float) -> float:
    """(high - low) / 2 / |median|: the precision of a median's interval (NaN without one or at 0)."""
    return float(_core.relative_half_width(float(low), float(high), float(median)))


def is_unstable(rel_half_width: float) -> bool:
    """Whether a median of this relative half-width is unstable (> UNSTABLE_HALF_WIDTH; False for NaN)."""
    return bool(_core.is_unstable(float(rel_half_width)))


def resampled_medians(rng: np.random.Generator, values: np.ndarray, resamples: int) -> np.ndarray:
    """The medians of `resamples` bootstrap resamples of `values` (drawn with replacement), computed
    in chunks of rows: the same numbers, from the same random stream, as one
    np.median(rng.choice(values, size=(resamples, n)), axis=1), without holding all of them."""
    rows = max(1, RESAMPLED_VALUES_PER_CHUNK // max(1, values.size))
    return np.concatenate([np.median(rng.choice(values, size=(min(rows, resamples - start), values.size)), axis=1)
                           for start in range(0, resamples, rows)])


def familywise_level(cells: int, level: float = CONFIDENCE) -> float:
    """The level each of `cells` intervals needs so that all of them hold their true values with
    probability at least `level` (Bonferroni: 1 - (1 - level) / cells; valid whatever the
    dependence between cells).  `level` itself for one cell or none."""
    return 1 - (1 - level) / max(1, cells)


def _exact_mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact p over every split of the pooled mid-ranks into groups of len(a), len(b)."""
    ranks = stats.rankdata(np.concatenate([a, b]))  # mid-ranks for ties
    n1 = a.size
    expected = n1 * (ranks.size + 1) / 2
    observed = abs(ranks[:n1].sum() - expected)
    extreme = total = 0
    for chosen in itertools.combinations(range(ranks.size), n1):
        total += 1
        if abs(ranks[list(chosen)].sum() - expected) >= observed - 1e-9:
            extreme += 1
    return extreme / total


def mann_whitney_p(a, b) -> float:
    """Two-sided Mann-Whitney U p-value (exact for small samples, ties included); NaN when either
    sample is empty; 1.0 when every value is the same."""
    a, b = clean(a), clean(b)
    if a.size == 0 or b.size == 0:
        return math.nan
    if np.all(np.concatenate([a, b]) == a[0]):
        return 1.0
    if a.size + b.size <= EXACT_TEST_MAX_VALUES:
        return _exact_mann_whitney_p(a, b)
    return float(stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic").pvalue)


def min_achievable_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value an exact Mann-Whitney test can give for these sizes."""
    if n1 == 0 or n2 == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def enough_repetitions(n1: int, n2: int, alpha: float = ALPHA) -> bool:
    return min_achievable_p(n1, n2) < alpha


def significance_mark(p: float, n1: int, n2: int, alpha: float = ALPHA) -> str:
    """'**' p < 0.01, '*' p < alpha, '' not significant, 'n/a' when the test cannot reach alpha
    with n1 and n2 values (or p is undefined)."""
    if not enough_repetitions(n1, n2, alpha) or math.isnan(p):
        return "n/a"
    return "**" if p < 0.01 else "*" if p < alpha else ""


def geometric_mean(values) -> float:
    """Geometric mean of the finite values (NaN ignored); NaN when none are left or any is <= 0
    (a geometric mean of ratios is undefined then)."""
    a = clean(values)
    if a.size == 0 or np.any(a <= 0):
        return math.nan
    return float(np.exp(np.log(a).mean()))


def fdr_adjust(pvalues) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (step-up; NaN stays NaN and is not counted).  Calling
    the cells whose adjusted p is below ALPHA keeps the expected share of false calls among them at
    ALPHA; when no cell differs (an A/A comparison) the chance of calling any is at most ALPHA."""
    p = [math.nan if v is None else float(v) for v in pvalues]
    finite = sorted((v, i) for i, v in enumerate(p) if not math.isnan(v))
    m = len(finite)
    out = [math.nan] * len(p)
    running = 1.0
    for rank in range(m, 0, -1):  # from the largest p down
        v, i = finite[rank - 1]
        running = min(running, m / rank * v)
        out[i] = running
    return out


def geomean_ratio_interval(pairs, level: float = CONFIDENCE, resamples: int = BOOTSTRAP_RESAMPLES,
                           seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile-bootstrap interval of the geometric mean over cells of median(b) / median(a), with
    every cell's a and b values resampled; `pairs` is a list of (a values, b values).  A resample in
    which some cell's median is <= 0 leaves that cell out of that resample's mean.  (NaN, NaN) with
    no cell of at least 2 values on each side."""
    rng = np.random.default_rng(seed)
    logs = []
    for a, b in pairs:
        a, b = clean(a), clean(b)
        if a.size < 2 or b.size < 2:
            continue
        ma = resampled_medians(rng, a, resamples)
        mb = resampled_medians(rng, b, resamples)
        with np.errstate(divide="ignore", invalid="ignore"):
            logs.append(np.where((ma > 0) & (mb > 0), np.log(mb / ma), np.nan))
    if not logs:
        return (math.nan, math.nan)
    with np.errstate(all="ignore"):
        means = np.nanmean(np.vstack(logs), axis=0)
    means = means[np.isfinite(means)]
    if means.size == 0:
        return (math.nan, math.nan)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return (float(np.exp(low)), float(np.exp(high)))


def spearman_rows(a, b) -> np.ndarray:
    """Spearman's rank correlation of each row of `a` with the same row of `b` (2-D arrays of one
    shape, or one row each as 1-D), by the C++ rule (platform/rank_correlation.hpp): the Pearson
    correlation of the rows' average ranks (ties share their mean rank), by 1 - 6 sum d^2 /
    (n (n^2 - 1)) where neither row has ties (exact: 1.0 for the same order, -1.0 for the reversed
    one).  NaN for rows of fewer than 2 values or where either row's values are all equal."""
    a, b = np.atleast_2d(np.asarray(a, dtype=float)), np.atleast_2d(np.asarray(b, dtype=float))
    return _core.spearman_rows(a, b)
