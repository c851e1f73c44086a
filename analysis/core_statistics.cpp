// `allocstress._core`: the statistics rules of platform/statistics.hpp and
// platform/rank_correlation.hpp, so that the Python package renders what C++ defines and never
// keeps a second copy: the median's interval, the cell summary (median, min, max, cv), a median's
// precision and the unstable mark, the interval of a quotient of two medians, the order of two
// intervals (faster / slower / indistinguishable), and Spearman's rho row by row.  NaN stands for
// "undefined" in every returned number; None where the C++ rule gives nothing at all.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <vector>

#include "analysis/core_bindings.hpp"
#include "platform/rank_correlation.hpp"
#include "platform/statistics.hpp"

namespace py = pybind11;

namespace allocstress::python {

namespace {

using Rows = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Spearman's rho of each row of a with the same row of b (2-D arrays of one shape).
py::array_t<double> spearman_rows(const Rows& a, const Rows& b) {
  if (a.ndim() != 2 || b.ndim() != 2 || a.shape(0) != b.shape(0) || a.shape(1) != b.shape(1))
    throw py::value_error("spearman_rows: a and b must be 2-D arrays of one shape");
  const py::ssize_t rows = a.shape(0), n = a.shape(1);
  py::array_t<double> out(rows);
  auto va = a.unchecked<2>();
  auto vb = b.unchecked<2>();
  auto vo = out.mutable_unchecked<1>();
  {
    py::gil_scoped_release release;
    std::vector<double> ra(static_cast<std::size_t>(n)), rb(static_cast<std::size_t>(n));
    for (py::ssize_t r = 0; r < rows; ++r) {
      for (py::ssize_t i = 0; i < n; ++i) {
        ra[static_cast<std::size_t>(i)] = va(r, i);
        rb[static_cast<std::size_t>(i)] = vb(r, i);
      }
      vo(r) = spearman_correlation(ra, rb);
    }
  }
  return out;
}

const char* order_name(IntervalOrder order) {
  return order == IntervalOrder::below ? "below" : order == IntervalOrder::above ? "above" : "overlap";
}

}  // namespace

void bind_statistics(py::module_& m) {
  m.attr("unstable_relative_half_width") = kUnstableRelativeHalfWidth;
  m.def(
      "median_interval",
      [](std::vector<double> values, double level) {
        const MedianInterval ci = median_interval(std::move(values), level);
        return py::make_tuple(ci.low, ci.high, ci.level);
      },
      py::arg("values"), py::arg("level") = 0.95,
      "(low, high, real level) of the distribution-free order-statistic interval of the median of `values` "
      "(finite numbers); (nan, nan, nan) below 2 values (platform/statistics.hpp median_interval)");
  m.def(
      "summarise",
      [](std::vector<double> values) {
        py::dict out;
        out["count"] = values.size();
        if (values.empty()) {
          for (const char* k : {"median", "min", "max", "cv"}) out[k] = NAN;
          return out;
        }
        const Summary s = summarise(std::move(values));
        out["median"] = s.median;
        out["min"] = s.min;
        out["max"] = s.max;
        out["cv"] = s.cv;
        return out;
      },
      py::arg("values"),
      "{count, median, min, max, cv} of `values` (finite numbers) as the C++ aggregates compute them: cv is the sample sd / "
      "|mean|, 0 for one value, nan at mean 0; all nan for no value (platform/statistics.hpp summarise)");
  m.def("relative_half_width", &relative_half_width, py::arg("low"), py::arg("high"), py::arg("median"),
        "(high - low) / 2 / |median|: a median's precision; nan when a figure is not finite or the median is 0");
  m.def("is_unstable", &is_unstable_half_width, py::arg("relative_half_width"),
        "Whether a median with this relative half-width is unstable (wider than unstable_relative_half_width; False for nan)");
  m.def(
      "ratio_interval",
      [](double num_low, double num_high, double num_level, double den_low, double den_high, double den_level) -> py::object {
        const auto q = quotient_of_intervals({num_low, num_high, num_level}, {den_low, den_high, den_level});
        if (!q) return py::none();
        return py::make_tuple(q->low, q->high, q->level_at_least);
      },
      py::arg("num_low"), py::arg("num_high"), py::arg("num_level"), py::arg("den_low"), py::arg("den_high"), py::arg("den_level"),
      "(low, high, level_at_least) of median(num) / median(den) from the two medians' intervals (Bonferroni: level at least "
      "num_level + den_level - 1); high inf where den_low <= 0; None where num_low <= 0, den_high <= 0 or a bound is not finite");
  m.def(
      "interval_order",
      [](double mine_low, double mine_high, double ref_low, double ref_high) -> py::object {
        const auto order = interval_order(mine_low, mine_high, ref_low, ref_high);
        if (!order) return py::none();
        return py::str(order_name(*order));
      },
      py::arg("mine_low"), py::arg("mine_high"), py::arg("ref_low"), py::arg("ref_high"),
      "'below' / 'above' where interval mine lies wholly below / above ref, 'overlap' where they overlap "
      "(indistinguishable); None where a bound is nan");
  m.def("spearman_rows", &spearman_rows, py::arg("a"), py::arg("b"),
        "Spearman's rho of each row of a with the same row of b (2-D float arrays of one shape), nan where undefined "
        "(fewer than 2 values, or a row whose values are all equal) (platform/rank_correlation.hpp)");
}

}  // namespace allocstress::python
