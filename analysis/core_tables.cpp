// `allocstress._core`: the tables' rows as C++ builds them, for the HTML report to render what the
// Markdown summary renders: the groups of the cells' warnings (results/tables/cell_warnings.hpp)
// and the rows of the workloads' tables (results/tables/results_table.hpp summary_rows), of the
// data-structure table (structure_rows.hpp) and of the workload-metrics tables (metric_rows.hpp).
// Results documents cross as JSON text; rows come back as the lists of dicts json.loads makes.
#include <pybind11/pybind11.h>

#include <string>

#include "analysis/core_bindings.hpp"
#include "results/tables/cell_warnings.hpp"
#include "results/tables/metric_rows.hpp"
#include "results/tables/results_table.hpp"
#include "results/tables/structure_rows.hpp"
#include "results/tables/table_parts.hpp"

namespace py = pybind11;

namespace allocstress::python {

namespace {

// `name`(results_json): the rows `rows` builds for a results document given as JSON text.
void bind_rows(py::module_& m, const char* name, nlohmann::json (*rows)(const nlohmann::json&), const char* doc) {
  m.def(name, [rows](const std::string& results_json) { return as_python(rows(nlohmann::json::parse(results_json))); },
        py::arg("results_json"), doc);
}

}  // namespace

void bind_tables(py::module_& m) {
  m.attr("baseline_no_overhead_note") = table_parts::kBaselineNoOverheadNote;
  m.attr("overhead_invalid_note") = table_parts::kOverheadInvalidNote;
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
  bind_rows(m, "summary_rows", &summary_rows,
            "The rows of the workloads' tables of the Markdown summary (results/tables/results_table.hpp summary_rows) of a "
            "results document given as JSON text: per (workload, allocator, threads) the headline median, cv, interval, unstable "
            "mark and the ratio to system with its interval and verdict, as the Markdown shows them; for workloads net of void "
            "also `columns`, every column of the report's comparison table but run and the p-values "
            "(results/tables/summary_columns.cpp)");

  // The rows of the data-structure and workload-metrics tables (tabulation/structures.py, workload_metrics.py).
  bind_rows(m, "structure_rows", &structure_rows,
            "The rows of the data-structure table (results/tables/structure_rows.hpp) of a results document given as JSON text: "
            "per timing cell of a structure workload the build and search medians, the search interval, cv and unstable mark, "
            "search_vs_system with its interval, the placement and overhead medians (null: n/a)");
  bind_rows(m, "workload_metric_rows", &workload_metric_rows,
            "The rows of the workload-metrics tables (results/tables/metric_rows.hpp) of a results document given as JSON text: "
            "per timing cell of a workload that is not a data structure the overhead median, the median of every "
            "workload_metrics key, the blowup against its companion with its interval, and notes (null: n/a)");
}

}  // namespace allocstress::python
