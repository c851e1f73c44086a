// `allocstress._core`: the tables' rows as C++ builds them, for the HTML report to render what the
// Markdown summary renders: the groups of the cells' warnings (results/tables/cell_warnings.hpp).
// Results documents cross as JSON text; rows come back as the lists of dicts json.loads makes.
#include <pybind11/pybind11.h>

#include <string>

#include "analysis/core_bindings.hpp"
#include "results/tables/cell_warnings.hpp"

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
}

}  // namespace allocstress::python
