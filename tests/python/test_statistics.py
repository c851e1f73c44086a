"""Statistics on data whose answers are known by hand."""

import math

import numpy as np
import pytest

from allocstress import statistics as st


def test_cv_on_known_values():
    assert st.coefficient_of_variation([1, 3, 5]) == pytest.approx(2 / 3)  # sd 2, mean 3
    assert math.isnan(st.coefficient_of_variation([4]))
    assert math.isnan(st.coefficient_of_variation([-1, 1]))


def test_cell_summary_flags_instability_at_five_percent():
    steady = st.summarise_cell([100, 101, 99, 100, 100])
    assert steady["median"] == 100 and not steady["unstable"] and steady["n"] == 5
    assert steady["ci_low"] <= 100 <= steady["ci_high"]
    noisy = st.summarise_cell([80, 100, 120, 90, 110])
    assert noisy["unstable"] and noisy["cv"] == pytest.approx(np.std([80, 100, 120, 90, 110], ddof=1) / 100)


def test_bootstrap_interval_of_a_constant_is_a_point_and_reproducible():
    assert st.bootstrap_median_ci([7, 7, 7, 7]) == (7, 7)
    data = [3, 9, 4, 8, 5, 7]
    assert st.bootstrap_median_ci(data) == st.bootstrap_median_ci(data)
    lo, hi = st.bootstrap_median_ci(data)
    assert 3 <= lo <= np.median(data) <= hi <= 9
    assert all(math.isnan(x) for x in st.bootstrap_median_ci([1]))


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


def test_ratio_of_medians_and_its_interval():
    r = st.ratio_of_medians([10, 10, 10], [5, 5, 5])
    assert r == {"ratio": 2.0, "ci_low": 2.0, "ci_high": 2.0}
    r = st.ratio_of_medians([9, 10, 11, 10, 12], [4, 5, 6, 5, 5])
    assert r["ratio"] == pytest.approx(2.0) and r["ci_low"] < 2.0 < r["ci_high"]
    undefined = st.ratio_of_medians([10, 10], [-1, 0])
    assert math.isnan(undefined["ratio"]) and math.isnan(undefined["ci_low"])


def test_geometric_mean():
    assert st.geometric_mean([2, 8]) == pytest.approx(4)
    assert st.geometric_mean([2, 8, float("nan"), -1]) == pytest.approx(4)
    assert math.isnan(st.geometric_mean([]))
