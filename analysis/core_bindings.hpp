// The parts of the pybind11 extension `allocstress._core` (core_module.cpp defines the module):
// each core_*.cpp binds one part of the C++ core and adds it to the module here.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

namespace allocstress::python {

// Workload distributions exactly as the benchmark draws them (core_distributions.cpp).
void bind_distributions(pybind11::module_& m);
// The results reader, aggregates, the Markdown tables' sections and a record's identity (core_results.cpp).
void bind_results(pybind11::module_& m);
// The workload registry, the metric catalogue and the program workloads (core_registry.cpp).
void bind_registry(pybind11::module_& m);
// The trace reader and writer as numpy arrays (core_traces.cpp).
void bind_traces(pybind11::module_& m);
// The statistics rules: intervals of medians and of their quotients, the unstable mark, Spearman (core_statistics.cpp).
void bind_statistics(pybind11::module_& m);
// The tables' rows as C++ builds them: the groups of the cells' warnings (core_tables.cpp).
void bind_tables(pybind11::module_& m);

// A JSON value as the Python object json.loads makes of it (invalid UTF-8 replaced).
pybind11::object as_python(const nlohmann::json& j);

}  // namespace allocstress::python
