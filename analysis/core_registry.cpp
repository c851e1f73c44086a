// `allocstress._core`: the workload registry and the metric catalogue (cells/), so that the Python
// tables label and define what the records carry as C++ does, and the program workloads
// (cells/programs/program_workloads.hpp): which names resolve to the registry's `program` entry.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <string>

#include "analysis/core_bindings.hpp"
#include "cells/metrics/metric_catalogue.hpp"
#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "plan/programs_file.hpp"

namespace py = pybind11;

namespace allocstress::python {

void bind_registry(py::module_& m) {
  // The workload registry and the metric catalogue (cells/): what the tables show, defined once.
  m.def(
      "workloads", [] { return as_python(workload_registry_json()); },
      "Every workload of the registry: name, family, summary, void_baseline, table (net_cost, structure or false_sharing), "
      "simulates_caches, profiles, runs_alone, companions, options, metrics");
  m.def(
      "metric_catalogue", [] { return as_python(metric_catalogue_json()); },
      "Every metric a workload's records carry, once: name, place (record, workload_metrics, placement_metrics), unit, label, "
      "decimals, mib, definition, headline, memory_headline, in_table, workloads");

  // Program workloads (cells/programs/program_workloads.hpp): a program is named by its definition (the
  // shipped programs file's prog-*, a user's programs file, `allocstress bench --name`), and its
  // name resolves to the registry's one `program` entry once declared.  Reading a results file
  // (read_results, verdict_markdown, aggregate_entries) declares the programs it carries; the
  // shipped file's are declared here, once, as the CLI does at start.
  std::string shipped_problem;
  try {
    shipped_problem = declare_shipped_programs();
  } catch (const std::exception& e) {
    shipped_problem = e.what();
  }
  m.attr("shipped_programs_problem") = shipped_problem;
  m.def(
      "resolve_workload",
      [](const std::string& name) -> py::object {
        const WorkloadEntry* e = find_workload(name);
        return e == nullptr ? py::object(py::none()) : py::object(py::str(std::string(e->name)));
      },
      py::arg("name"),
      "The name of the registry entry workload `name` (BASE, BASE:LABEL or a declared program's name) resolves to "
      "(find_workload: 'program' for 'prog-lua' or a bench's 'churn'), or None for a workload this process does not know");
  m.def(
      "is_program_workload", [](const std::string& name) { return is_program_workload(name); }, py::arg("name"),
      "Whether `name` resolves to the registry's `program` entry (a declared program workload; cells/workload_registry.hpp)");
  m.def(
      "declare_programs",
      [](const std::string& document_json) {
        nlohmann::json j;
        try {
          j = nlohmann::json::parse(document_json);
        } catch (const nlohmann::json::exception& e) {
          throw py::value_error(std::string("declare_programs: not JSON: ") + e.what());
        }
        declare_programs_of(j);
      },
      py::arg("document_json"),
      "Declare the program workloads a results document (or plan) given as JSON text carries: every workload_params entry "
      "and every record whose params hold a `program` definition (read_results does this for the files it reads)");
  m.def(
      "declared_programs", [] { return declared_program_names(); },
      "Every declared program workload name, sorted (the shipped file's and those of the results read so far)");
}

}  // namespace allocstress::python
