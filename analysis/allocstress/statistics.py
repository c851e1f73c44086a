"""Statistics over repetitions, kept small and pure so that each can be tested on known data.

Per cell: median, a bootstrap 95% confidence interval of the median, and the coefficient of
variation (sample sd / |mean|), flagged unstable at >= 5%.  Between two allocators: the ratio of
medians with a bootstrap CI (each group resampled independently), and a two-sided Mann-Whitney U
test (exact for small samples without ties).  With n1 and n2 repetitions the smallest p-value
the test can reach is 2 / C(n1+n2, n1): with 3 vs 3 it is 0.1, so no difference could ever be
called significant at 5%; `enough_repetitions` says when that is the case.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

UNSTABLE_CV = 0.05          # a cell whose CV reaches this is flagged unstable
ALPHA = 0.05                # significance level of the tests
CONFIDENCE = 0.95           # confidence level of the intervals
BOOTSTRAP_RESAMPLES = 2000  # percentile bootstrap; fixed seed, so intervals are reproducible
BOOTSTRAP_SEED = 20180101


def _clean(values) -> np.ndarray:
    a = np.asarray(values, dtype=float)
    return a[np.isfinite(a)]


def coefficient_of_variation(values) -> float:
    """Sample standard deviation / |mean|; NaN for fewer than two values or a zero mean."""
    a = _clean(values)
    if a.size < 2 or a.mean() == 0:
        return math.nan
    return float(a.std(ddof=1) / abs(a.mean()))


def bootstrap_median_ci(values, level: float = CONFIDENCE, resamples: int = BOOTSTRAP_RESAMPLES,
                        seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile-bootstrap interval of the median; (NaN, NaN) for fewer than two values."""
    a = _clean(values)
    if a.size < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    medians = np.median(rng.choice(a, size=(resamples, a.size), replace=True), axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(medians, [tail, 100 - tail])
    return (float(lo), float(hi))


def summarise_cell(values) -> dict:
    """n, median, ci_low, ci_high, cv and unstable (cv >= UNSTABLE_CV) of one cell's repetitions."""
    a = _clean(values)
    cv = coefficient_of_variation(a)
    lo, hi = bootstrap_median_ci(a)
    return {"n": int(a.size), "median": float(np.median(a)) if a.size else math.nan,
            "ci_low": lo, "ci_high": hi, "cv": cv, "unstable": bool(cv >= UNSTABLE_CV) if not math.isnan(cv) else False}


def ratio_of_medians(numerator, denominator, level: float = CONFIDENCE, resamples: int = BOOTSTRAP_RESAMPLES,
                     seed: int = BOOTSTRAP_SEED) -> dict:
    """median(numerator) / median(denominator) with a bootstrap CI.  The ratio is NaN when the
    denominator's median is <= 0, and the CI is NaN when any resampled denominator is <= 0
    (a cost indistinguishable from zero has no meaningful ratio)."""
    a, b = _clean(numerator), _clean(denominator)
    if a.size == 0 or b.size == 0:
        return {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    mb = float(np.median(b))
    ratio = float(np.median(a)) / mb if mb > 0 else math.nan
    lo = hi = math.nan
    if a.size >= 2 and b.size >= 2:
        rng = np.random.default_rng(seed)
        ma = np.median(rng.choice(a, size=(resamples, a.size)), axis=1)
        mbs = np.median(rng.choice(b, size=(resamples, b.size)), axis=1)
        if np.all(mbs > 0):
            tail = (1 - level) / 2 * 100
            lo, hi = (float(x) for x in np.percentile(ma / mbs, [tail, 100 - tail]))
    return {"ratio": ratio, "ci_low": lo, "ci_high": hi}


def mann_whitney_p(a, b) -> float:
    """Two-sided Mann-Whitney U p-value; NaN when either sample is empty."""
    a, b = _clean(a), _clean(b)
    if a.size == 0 or b.size == 0:
        return math.nan
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def min_achievable_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value an exact Mann-Whitney test can give for these sizes."""
    if n1 == 0 or n2 == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def enough_repetitions(n1: int, n2: int, alpha: float = ALPHA) -> bool:
    return min_achievable_p(n1, n2) < alpha


def significance_mark(p: float, n1: int, n2: int, alpha: float = ALPHA) -> str:
    """'**' p < 0.01, '*' p < alpha, '' not significant, 'n/a' when the test cannot reach alpha."""
    if not enough_repetitions(n1, n2, alpha) or math.isnan(p):
        return "n/a"
    return "**" if p < 0.01 else "*" if p < alpha else ""


def geometric_mean(values) -> float:
    """Geometric mean of the positive finite values; NaN when there are none."""
    a = _clean(values)
    a = a[a > 0]
    return float(np.exp(np.log(a).mean())) if a.size else math.nan
