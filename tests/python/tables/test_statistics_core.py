"""The statistics rules are C++'s (platform/statistics.hpp, platform/rank_correlation.hpp) and the
Python names wrap `_core`: the wrappers agree with the rules as first written in Python on many
random inputs, and keep their NaN handling and answers on known data."""

import math

import numpy as np
import pytest
from scipy import stats

import allocstress
import allocstress._core as _core
from allocstress.stats import median_intervals as mi
from allocstress.stats import statistics as st


def binomial_order_statistic_interval(values, level):
    """The reference: the order statistics x(k), x(n+1-k) with the largest k whose coverage
    1 - 2 P(Bin(n, 1/2) < k) reaches `level`, else [min, max] (scipy's binomial law)."""
    a = np.sort(np.asarray(values, dtype=float))
    n = a.size
    best_k, best_cover = 1, 1 - 2 * stats.binom.cdf(0, n, 0.5)
    for k in range(2, n // 2 + 1):
        cover = 1 - 2 * stats.binom.cdf(k - 1, n, 0.5)
        if cover < level:
            break
        best_k, best_cover = k, cover
    return float(a[best_k - 1]), float(a[n - best_k]), float(best_cover)


def test_median_ci_agrees_with_the_binomial_rule_on_random_inputs():
    rng = np.random.default_rng(30)
    for trial in range(600):
        n = int(rng.integers(2, 301))
        values = rng.integers(0, 12, n).astype(float) if trial % 2 else rng.lognormal(3, 1, n)  # ties / none
        level = (0.95, 0.99, 0.9)[trial % 3]
        low, high, achieved = st.median_ci(values, level)
        ref_low, ref_high, ref_level = binomial_order_statistic_interval(values, level)
        assert (low, high) == (ref_low, ref_high), (n, level)
        assert achieved == pytest.approx(ref_level, abs=1e-12)


def test_median_ci_drops_missing_values_and_needs_two():
    assert st.median_ci([3, None, float("nan"), 1, float("inf")])[:2] == (1, 3)
    assert all(math.isnan(x) for x in st.median_ci([None, 2.0]))
    assert all(math.isnan(x) for x in allocstress.median_ci([]))


def test_the_unstable_mark_is_the_cpp_constant():
    assert st.UNSTABLE_HALF_WIDTH == allocstress.UNSTABLE_HALF_WIDTH == _core.unstable_relative_half_width == 0.10
    assert st.relative_half_width(90, 110, 100) == pytest.approx(0.1) and not st.is_unstable(0.1)
    assert math.isnan(st.relative_half_width(1, 2, 0)) and not st.is_unstable(math.nan)


def test_cv_is_the_cpp_summary_and_undefined_below_two_values():
    values = [80, 100, 120, 90, 110]
    assert st.coefficient_of_variation(values) == pytest.approx(np.std(values, ddof=1) / 100, rel=1e-14)
    assert _core.summarise([7.0])["cv"] == 0 and math.isnan(st.coefficient_of_variation([7.0]))


def test_ratio_interval_divides_the_intervals_or_returns_what_the_file_recorded():
    num, den = {"low": 10, "high": 20, "level": 0.96}, {"low": 4, "high": 5, "level": 0.97}
    r = mi.ratio_interval(num, den)
    assert (r["low"], r["high"]) == (2.0, 5.0) and r["level"] == pytest.approx(0.93) and r["method"] == mi.RATIO_METHOD
    assert mi.ratio_interval(num, {**den, "low": 0.0})["high"] == math.inf
    assert math.isnan(mi.ratio_interval({**num, "low": 0.0}, den)["low"])
    assert math.isnan(mi.ratio_interval({**num, "low": math.nan}, den)["low"])
    recorded = mi.ratio_interval(num, den, {"low": 1.25, "high": None, "level_at_least": 0.9})
    assert (recorded["low"], recorded["high"], recorded["level"]) == (1.25, math.inf, 0.9)


def test_overlap_verdict_is_the_cpp_interval_order():
    iv = lambda low, high: {"low": low, "high": high}  # noqa: E731
    assert mi.overlap_verdict(iv(1, 2), iv(3, 4), "faster", "slower") == "faster"
    assert mi.overlap_verdict(iv(5, 6), iv(3, 4), "faster", "slower") == "slower"
    assert mi.overlap_verdict(iv(1, 3), iv(3, 4), "faster", "slower") == "indistinguishable"
    assert mi.overlap_verdict(iv(math.nan, 3), iv(3, 4), "faster", "slower") == ""


def test_spearman_rows_agree_with_scipy_row_by_row():
    rng = np.random.default_rng(31)
    a = rng.integers(0, 5, size=(200, 6)).astype(float)  # ties in most rows
    b = rng.normal(size=(200, 6))
    rho = st.spearman_rows(a, b)
    for row in range(200):
        if np.unique(a[row]).size == 1:
            assert math.isnan(rho[row])
        else:
            assert rho[row] == pytest.approx(stats.spearmanr(a[row], b[row])[0], abs=1e-12)
    assert math.isnan(st.spearman_rows([1, 2], [3, 3])[0]) and st.spearman_rows([1, 2], [3, 4])[0] == 1.0
