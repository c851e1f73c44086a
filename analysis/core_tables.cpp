// `allocstress._core`: the tables' rows as C++ builds them, for the HTML report to render what the
// Markdown summary renders: the groups of the cells' warnings (results/tables/cell_warnings.hpp)
// and the rows of the workloads' tables (results/tables/results_table.hpp summary_rows).
// Results documents cross as JSON text; rows come back as the lists of dicts json.loads makes.
#include <pybind11/pybind11.h>

#include <string>

#include "analysis/core_bindings.hpp"
#include "results/tables/cell_warnings.hpp"
#include "results/tables/results_table.hpp"

namespace py = pybind11;

namespace allocstress::python {

void bind_tables(py::module_& m) {
  m.def(
      "cell_warning_groups",
      [](const std::string& results_json) {
        const nlohmann::json doc = nlohmann::json::parse(results_json);
        return as_python(cell_warning_groups_json(cell_warning_groups(doc.value("benchmarks", nlohmann::json::array()))));
      },
      py::arg("results_json"),
      "The warnings of a results document's cells (given as JSON text), grouped as the Markdown summary lists them "
      "(results/tables/cell_warnings.hpp): [{workload, threads, mode, text, cells: [{allocator, with, of, first}], "
      "everywhere}] in order of first appearance; `first` is the index in benchmarks of the cell's first record with it");
  m.def(
      "summary_rows", [](const std::string& results_json) { return as_python(summary_rows(nlohmann::json::parse(results_json))); },
      py::arg("results_json"),
      "The rows of the workloads' tables of the Markdown summary (results/tables/results_table.hpp summary_rows) of a results "
      "document given as JSON text: per (workload, allocator, threads) the headline median, cv, interval, unstable mark and "
      "the ratio to system with its interval and verdict, as the Markdown shows them; for workloads net of void also `columns`, "
      "every column of the report's comparison table but run and the p-values (results/tables/summary_columns.cpp)");
}

}  // namespace allocstress::python
