// The pybind11 extension `allocstress._core`: the C++ core seen from Python.  It exposes the
// workload distributions exactly as the benchmark draws them (to plot and test them), the
// results reader (so Python and C++ reject bad files the same way), a record's key and name and
// the baseline and reference allocators (cells/record_identity.hpp), the workload registry and
// the metric catalogue (so the Python tables label and define what the records carry as C++ does),
// the trace reader and writer (trace/trace_format.hpp) as numpy arrays, and the statistics rules
// (platform/statistics.hpp, platform/rank_correlation.hpp).  This file defines the
// module; each part is bound in its own core_*.cpp (core_bindings.hpp).
#include <pybind11/pybind11.h>

#include "analysis/core_bindings.hpp"
#include "results/results_file.hpp"

namespace py = pybind11;

namespace allocstress::python {

py::object as_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace allocstress::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "allocstress C++ core: workload distributions, the results reader, the trace reader and writer";
  m.attr("schema_version") = allocstress::kResultsSchemaVersion;
  m.attr("oldest_readable_schema_version") = allocstress::kOldestReadableSchemaVersion;
  allocstress::python::bind_distributions(m);
  allocstress::python::bind_results(m);
  allocstress::python::bind_registry(m);
  allocstress::python::bind_traces(m);
  allocstress::python::bind_statistics(m);
  allocstress::python::bind_tables(m);
}
