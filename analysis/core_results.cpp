// `allocstress._core`: the results reader (so Python and C++ reject bad files the same way), the
// aggregate entries and sections of the Markdown table as C++ computes them, and a record's
// identity (cells/record_identity.hpp): its key and name, the baseline and reference allocators.
// Results documents and records cross as JSON text or as the dicts json.loads makes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "analysis/core_bindings.hpp"
#include "cells/record_identity.hpp"
#include "results/results_reader.hpp"
#include "results/results_summary.hpp"
#include "results/tables/results_table.hpp"
#include "results/tables/timing_cells.hpp"

namespace py = pybind11;

namespace allocstress::python {

namespace {

// The identity fields of a record given as a mapping (a dict, a pandas row or a frame's
// to_dict("records") entry): workload, allocator, threads, mode and the run name, as
// record_key(json) reads them.  An optional field that is absent or not text (None, a frame's NaN)
// takes its default: mode "timing", the run name "name", else "".
nlohmann::json identity_fields(const py::object& record) {
  const auto text = [&](const char* field, const py::object& fallback) {
    const py::object value = record.attr("get")(field, fallback);
    return py::str(py::isinstance<py::str>(value) ? value : fallback).cast<std::string>();
  };
  nlohmann::json j = {{"workload", py::str(record[py::str("workload")]).cast<std::string>()},
                      {"allocator", py::str(record[py::str("allocator")]).cast<std::string>()},
                      {"threads", py::int_(record[py::str("threads")]).cast<unsigned>()},
                      {"mode", text("mode", py::str("timing"))}};
  j["run_name"] = text("run_name", py::str(text("name", py::str(""))));
  return j;
}

py::tuple key_tuple(const RecordKey& k) { return py::make_tuple(k.workload, k.allocator, k.threads, k.mode, k.instance); }

// A section of the Markdown table: `render` of a results document given as JSON text.
void bind_markdown(py::module_& m, const char* name, std::string (*render)(const nlohmann::json&), const std::string& doc) {
  m.def(name, [render](const std::string& results_json) { return render(nlohmann::json::parse(results_json)); }, py::arg("results_json"),
        (doc + " of a results document given as JSON text").c_str());
}

}  // namespace

void bind_results(py::module_& m) {
  m.def(
      "read_results",
      [](const std::string& path) {
        nlohmann::json j;
        try {
          j = read_results_file(path);
        } catch (const ResultsFileError& e) {
          throw py::value_error(e.what());
        }
        return as_python(j);
      },
      py::arg("path"), "Read and check a results file; ValueError with one line naming the file and the problem");
  m.def(
      "aggregate_entries",
      [](const std::string& records_json) {
        std::vector<nlohmann::json> records = nlohmann::json::parse(records_json).get<std::vector<nlohmann::json>>();
        return nlohmann::json(aggregate_entries(records)).dump();
      },
      py::arg("records_json"),
      "The aggregate entries (median, min, max, cv; intervals, vs_system) the results file would carry for these iteration "
      "records (a JSON array; net figures already attached), as JSON text (results/results_summary.hpp)");
  m.def(
      "entry_describes",
      [](const py::object& entry, std::size_t repetitions) {
        nlohmann::json fields = nlohmann::json::object();  // the one field the rule reads
        const py::object n = entry.attr("get")("repetitions_ok", py::none());
        if (py::isinstance<py::int_>(n) && !py::isinstance<py::bool_>(n)) fields["repetitions_ok"] = n.cast<long long>();
        return table_parts::entry_describes(fields, repetitions);
      },
      py::arg("entry"), py::arg("repetitions"),
      "Whether an aggregate entry (a dict) describes `repetitions` repetitions: it summarised as many (repetitions_ok); only "
      "then may a reader take its figures for them (results/tables/timing_cells.hpp)");
  bind_markdown(m, "verdict_markdown", &verdict_markdown,
                "The verdict section of the Markdown table (results/verdict.cpp; '' without a ranking)");
  bind_markdown(m, "counts_markdown", &counts_markdown,
                "The counts tier's tables of the Markdown table (results/tables/mode_tables.cpp; '' without counts cells)");
  bind_markdown(m, "memory_markdown", &memory_markdown,
                "The memory tables of the Markdown table (results/tables/memory_tables.cpp: limited cells, ageing penalty; '' without any)");

  // A record's identity (cells/record_identity.hpp): the one key and name C++ gives records.
  m.attr("baseline_allocator") = kBaselineAllocator;
  m.attr("reference_allocator") = kReferenceAllocator;
  m.def(
      "record_key", [](const py::object& record) { return key_tuple(record_key(identity_fields(record))); }, py::arg("record"),
      "The key of a record or aggregate entry (a mapping: a dict, a pandas row; workload, allocator, threads, mode, name/run_name; "
      "mode None/NaN or absent: timing): the tuple "
      "(workload, allocator, threads, mode, instance); two records are of the same cell when their keys are equal");
  m.def(
      "record_name",
      [](const std::string& workload, const std::string& allocator, unsigned threads, const std::string& mode, const std::string& instance) {
        try {
          return record_name(RecordKey{workload, allocator, threads, mode, instance});
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("workload"), py::arg("allocator"), py::arg("threads"), py::arg("mode") = "timing", py::arg("instance") = "",
      "A record's name: '<workload>/<allocator>/threads:<n>', then the mode's suffix ('/thp', '/aged', ...) and ':<instance>' "
      "when there is one ('alloc-test/system/threads:1/thp:always')");
}

}  // namespace allocstress::python
