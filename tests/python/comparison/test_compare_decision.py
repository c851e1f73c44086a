"""The decision rule of `compare` (compare_decision.py) and the interval settings it relies on
(statistics.py), on constructed values whose answers are known."""

import math

import numpy as np
import pytest

from allocstress.comparison import compare_decision as rule
from allocstress.stats import statistics as st


@pytest.mark.parametrize("low,high,decision,reason", [
    (1.06, 1.20, rule.WORSE, "the whole interval lies above +5%"),
    (0.80, 0.94, rule.BETTER, "the whole interval lies below -5%"),
    (0.96, 1.04, rule.NO_CHANGE, "within ±5%"),
    (0.95, 1.05, rule.NO_CHANGE, "within ±5%"),          # the band's edges are inside it
    (0.90, 1.10, rule.NO_CHANGE, "inconclusive: interval [0.900, 1.100] crosses the ±5% threshold"),
    (1.02, 1.30, rule.NO_CHANGE, "inconclusive: interval [1.020, 1.300] crosses the ±5% threshold"),
    (1.051, 1.051, rule.WORSE, "B / A lies above +5%"),   # an exact figure is its own interval
    (1.05, 1.05, rule.NO_CHANGE, "within ±5%"),
    (0.90, 0.90, rule.BETTER, "B / A lies below -5%"),
])
def test_decision_of_an_interval_against_the_threshold(low, high, decision, reason):
    assert rule.decide(low, high, 0.05) == (decision, reason)


def test_higher_is_better_swaps_worse_and_better():
    assert rule.decide(1.2, 1.3, 0.05, higher_is_better=True)[0] == rule.BETTER
    assert rule.decide(0.7, 0.8, 0.05, higher_is_better=True)[0] == rule.WORSE
    assert rule.decide(0.99, 1.01, 0.05, higher_is_better=True)[0] == rule.NO_CHANGE


def test_threshold_zero_calls_any_interval_that_excludes_one():
    assert rule.decide(1.001, 1.01, 0.0)[0] == rule.WORSE
    assert rule.decide(0.999, 1.01, 0.0)[1].startswith("inconclusive")


def test_no_interval_is_not_available():
    assert rule.decide(math.nan, math.nan, 0.05)[0] == rule.NOT_AVAILABLE


@pytest.mark.parametrize("text,fraction", [("5", 0.05), ("5%", 0.05), (" 2.5 % ", 0.025), ("0", 0.0), ("99.5", 0.995)])
def test_threshold_accepts_percentages(text, fraction):
    assert rule.parse_threshold(text) == pytest.approx(fraction)


@pytest.mark.parametrize("text", ["-1", "-0.5%", "abc", "", "%", "nan", "inf", "100", "5%%", "1e9"])
def test_threshold_refuses_everything_else(text):
    with pytest.raises(ValueError) as e:
        rule.parse_threshold(text)
    assert "accepted: a number from 0 up to 100" in str(e.value) and "\n" not in str(e.value)


def test_exit_status_and_tally():
    assert rule.exit_status(0) == 0 and rule.exit_status(3) == rule.EXIT_WORSE == 4
    # void moved: the timing cells cannot gate, a rerun is needed (3); an exact counts figure still gates (4)
    assert rule.exit_status(0, True) == rule.exit_status(5, True) == rule.EXIT_REFERENCE_MOVED == 3
    assert rule.exit_status(0, True, 1) == rule.exit_status(0, False, 1) == 4
    assert rule.verdict_counts([rule.WORSE, rule.NO_CHANGE, rule.NO_CHANGE]) == \
        {rule.WORSE: 1, rule.NO_CHANGE: 2, rule.BETTER: 0, rule.NOT_AVAILABLE: 0}


def test_familywise_level_is_bonferroni():
    assert st.familywise_level(1) == pytest.approx(0.95)
    assert st.familywise_level(0) == pytest.approx(0.95)
    assert st.familywise_level(18) == pytest.approx(1 - 0.05 / 18)


def test_chunked_resampled_medians_are_the_unchunked_ones(monkeypatch):
    values = np.arange(1.0, 38.0)
    whole = np.median(np.random.default_rng(3).choice(values, size=(1001, values.size)), axis=1)
    monkeypatch.setattr(st, "RESAMPLED_VALUES_PER_CHUNK", 37 * 97)  # 97 rows per chunk: 11 chunks
    assert np.array_equal(st.resampled_medians(np.random.default_rng(3), values, 1001), whole)


def test_a_cells_interval_is_the_quotient_of_the_medians_intervals_at_half_the_missed_level():
    from allocstress.comparison.sides import quotient_of_medians, side_level
    a = np.linspace(90, 110, 21)
    b = a * 1.2
    narrow, wide = quotient_of_medians(a, b, 0.95), quotient_of_medians(a, b, st.familywise_level(20))
    assert narrow["ratio"] == wide["ratio"] == pytest.approx(1.2)
    assert wide["ci_low"] <= narrow["ci_low"] <= 1.2 <= narrow["ci_high"] <= wide["ci_high"]
    lo_a, hi_a, level_a = st.median_ci(a, side_level(0.95))
    lo_b, hi_b, level_b = st.median_ci(b, side_level(0.95))
    assert (narrow["ci_low"], narrow["ci_high"]) == (lo_b / hi_a, hi_b / lo_a)
    assert narrow["ci_level"] == pytest.approx(level_a + level_b - 1) and narrow["ci_level"] >= 0.95
    few = quotient_of_medians(np.array([9.0, 10, 11]), np.array([18.0, 20, 22]), 0.95)  # [min, max] at 75% each
    assert (few["ci_low"], few["ci_high"], few["ci_level"]) == (18 / 11, 22 / 9, 0.5)
