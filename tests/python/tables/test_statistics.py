"""Statistics on data whose answers are known by hand."""

import math

import numpy as np
import pytest

from allocstress.stats import statistics as st


def test_cv_on_known_values():
    assert st.coefficient_of_variation([1, 3, 5]) == pytest.approx(2 / 3)  # sd 2, mean 3
    assert math.isnan(st.coefficient_of_variation([4]))
    assert math.isnan(st.coefficient_of_variation([-1, 1]))


def test_cell_summary_flags_an_interval_wider_than_ten_percent_of_the_median():
    steady = st.summarise_cell([100, 101, 99, 100, 100])
    assert steady["median"] == 100 and not steady["unstable"] and steady["n"] == 5
    assert (steady["ci_low"], steady["ci_high"]) == (99, 101) and steady["ci_level"] == pytest.approx(0.9375)
    assert not st.summarise_cell([90, 100, 110, 95, 105])["unstable"]  # [90, 110]: exactly ±10%, not wider
    noisy = st.summarise_cell([80, 100, 120, 90, 110])  # [80, 120]: ±20%
    assert noisy["unstable"] and noisy["cv"] == pytest.approx(np.std([80, 100, 120, 90, 110], ddof=1) / 100)


def test_median_interval_from_order_statistics():
    # 5 values cannot reach 95%: [min, max], whose level is 1 - 2 * 0.5^5 = 0.9375.
    assert st.median_ci([5, 1, 3, 2, 4]) == (1, 5, pytest.approx(0.9375))
    # 20 values: the textbook 95% interval of the median is [x(6), x(15)], level 0.9586.
    lo, hi, level = st.median_ci(list(range(1, 21)))
    assert (lo, hi) == (6, 15) and level == pytest.approx(0.95861, abs=1e-5)
    assert st.median_ci([7, 7, 7, 7])[:2] == (7, 7)
    assert all(math.isnan(x) for x in st.median_ci([1]))
    assert st.median_ci([1, None, float("nan"), 3])[:2] == (1, 3)  # missing values are dropped


def test_mann_whitney_is_exact_with_ties():
    # [1,2,3,4] vs [4,5,6,7]: 4 of the 70 rank splits are at least as extreme (mid-rank 4.5 for the tie).
    assert st.mann_whitney_p([1, 2, 3, 4], [4, 5, 6, 7]) == pytest.approx(4 / 70)
    assert st.mann_whitney_p([1.0] * 4, [2.0] * 4) == pytest.approx(2 / 70)
    assert st.mann_whitney_p([3, 3, 3], [3, 3, 3]) == 1.0
    assert math.isnan(st.mann_whitney_p([], [1, 2]))


def test_mann_whitney_on_fully_separated_samples():
    # Exact two-sided p for 5 vs 5 with no overlap: 2 / C(10, 5) = 2 / 252.
    assert st.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    assert st.min_achievable_p(5, 5) == pytest.approx(2 / 252)
    assert st.min_achievable_p(3, 3) == pytest.approx(0.1)
    assert not st.enough_repetitions(3, 3) and st.enough_repetitions(4, 4)


def test_significance_marks():
    assert st.significance_mark(0.005, 5, 5) == "**"
    assert st.significance_mark(0.03, 5, 5) == "*"
    assert st.significance_mark(0.3, 5, 5) == ""
    assert st.significance_mark(0.001, 3, 3) == "n/a"


def test_geometric_mean():
    assert st.geometric_mean([2, 8]) == pytest.approx(4)
    assert st.geometric_mean([2, 8, float("nan"), None]) == pytest.approx(4)  # missing values are skipped
    assert math.isnan(st.geometric_mean([0.5, -1, 2]))  # undefined, never silently dropped
    assert math.isnan(st.geometric_mean([]))


def test_fdr_adjust_matches_benjamini_hochberg_by_hand():
    # sorted p 0.01, 0.02, 0.03, 0.5 with m = 4: 0.04, 0.04, 0.04, 0.5 (step-up keeps them monotone)
    assert st.fdr_adjust([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.04, 0.5, 0.04, 0.04])
    out = st.fdr_adjust([0.2, None, float("nan")])
    assert out[0] == pytest.approx(0.2) and math.isnan(out[1]) and math.isnan(out[2])


def test_geomean_interval_holds_a_known_factor_and_is_nan_without_data():
    rng = np.random.default_rng(7)
    pairs = [(a, 1.5 * a) for a in (rng.normal(100, 5, 20) for _ in range(4))]
    low, high = st.geomean_ratio_interval(pairs)
    assert low <= 1.5 <= high and high - low < 0.2
    assert all(math.isnan(x) for x in st.geomean_ratio_interval([([1.0], [2.0])]))
