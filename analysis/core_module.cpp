// The pybind11 extension `allocstress._core`: the C++ core seen from Python.  It exposes the
// workload distributions exactly as the benchmark draws them (to plot and test them), the
// results reader (so Python and C++ reject bad files the same way), the workload registry and the
// metric catalogue (so the Python tables label and define what the records carry as C++ does),
// and the trace reader and writer (trace/trace_format.hpp) as numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cells/metrics/metric_catalogue.hpp"
#include "cells/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "plan/programs_file.hpp"
#include "results/results_file.hpp"
#include "results/results_reader.hpp"
#include "results/results_summary.hpp"
#include "results/results_table.hpp"
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "workloads/inverse_size_sampler.hpp"
#include "workloads/pareto_slot_picker.hpp"
#include "workloads/workload_rng.hpp"

namespace py = pybind11;
using namespace allocstress;

namespace {

// n draws of `draw(bits)` from worker thread 0's random stream for `seed`.
template <class Draw>
py::array_t<std::uint64_t> draw_many(std::size_t n, std::uint64_t seed, Draw draw) {
  py::array_t<std::uint64_t> out(static_cast<py::ssize_t>(n));
  auto view = out.mutable_unchecked<1>();
  WorkloadRng rng = make_thread_rng(seed, 0);
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) view(static_cast<py::ssize_t>(i)) = draw(rng());
  }
  return out;
}

// --- traces -------------------------------------------------------------------------------

namespace tr = allocstress::trace;

// Raises OSError(message) in Python (pybind11 would turn std::runtime_error into RuntimeError).
[[noreturn]] void raise_os_error(const std::string& message) {
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw py::error_already_set();
}

// Where one event of the merged order comes from: out.threads[thread_pos].events[seq].
struct MergeKey {
  std::uint64_t tsc;
  std::uint32_t thread_pos;
  std::uint64_t seq;
  bool operator<(const MergeKey& o) const {
    if (tsc != o.tsc) return tsc < o.tsc;
    if (thread_pos != o.thread_pos) return thread_pos < o.thread_pos;
    return seq < o.seq;
  }
};

// The events of all threads merged: by TSC, ties by thread index, then by the thread's own order.
// (TraceContents::threads is ordered by thread index, so its positions order like the indexes.)
std::vector<MergeKey> merged_order(const tr::TraceContents& t) {
  std::vector<MergeKey> keys;
  keys.reserve(t.events());
  for (std::uint32_t pos = 0; pos < t.threads.size(); ++pos)
    for (std::uint64_t seq = 0; seq < t.threads[pos].events.size(); ++seq) keys.push_back({t.threads[pos].events[seq].tsc, pos, seq});
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
  return keys;
}

// The metadata of a trace as a dict (everything but the events).
py::dict trace_metadata(const tr::TraceContents& t) {
  py::dict tids;
  for (const auto& thread : t.threads) tids[py::int_(thread.index)] = thread.tid;
  py::list op_names;
  for (unsigned i = 0; i < unsigned(tr::TraceOp::count); ++i) op_names.append(tr::op_name(tr::TraceOp(i)));
  py::dict d;
  d["file"] = t.file;
  d["version"] = t.header.version;
  d["pid"] = t.header.pid;
  d["ppid"] = t.header.ppid;
  d["command_line"] = t.command_line;
  d["flags"] = t.header.flags;
  d["call_sites"] = t.call_sites();
  d["imported"] = (t.header.flags & tr::kFlagImported) != 0;
  d["start_tsc"] = t.header.start_tsc;
  d["start_monotonic_ns"] = t.header.start_monotonic_ns;
  d["start_realtime_ns"] = t.header.start_realtime_ns;
  d["tsc_hz"] = t.tsc_hz;
  d["blocks"] = t.blocks;
  d["file_bytes"] = t.file_bytes;
  d["encoded_bytes"] = t.encoded_bytes;
  d["truncation"] = t.truncation;
  d["truncated_at"] = t.truncated_at;
  d["ended_by"] = t.end_text();      // "exit", "signal 11 (SIGSEGV)", "no end record" ...
  d["lost_events"] = t.end.lost_events;
  d["cut_short"] = t.cut_short();    // "" when the trace is whole
  d["thread_tids"] = tids;
  d["op_names"] = op_names;
  return d;
}

py::dict read_trace_arrays(const std::string& path) {
  tr::TraceContents t;
  std::vector<MergeKey> order;
  std::string cannot_read;
  {
    py::gil_scoped_release release;
    try {
      t = tr::read_trace(path);
    } catch (const tr::TraceError&) {
      throw;  // translated into TraceFormatError
    } catch (const std::runtime_error& e) {
      cannot_read = e.what();  // cannot open or read the file
    }
    if (cannot_read.empty()) order = merged_order(t);
  }
  if (!cannot_read.empty()) raise_os_error(cannot_read);

  const auto n = static_cast<py::ssize_t>(order.size());
  py::array_t<std::uint32_t> thread(n);
  py::array_t<std::uint8_t> op(n);
  py::array_t<std::uint64_t> tsc(n), address(n), old_address(n), size(n), alignment(n), call_site(n), seq(n);
  std::uint32_t* thread_out = thread.mutable_data();
  std::uint8_t* op_out = op.mutable_data();
  std::uint64_t *tsc_out = tsc.mutable_data(), *address_out = address.mutable_data(), *old_out = old_address.mutable_data(),
                *size_out = size.mutable_data(), *alignment_out = alignment.mutable_data(), *call_site_out = call_site.mutable_data(),
                *seq_out = seq.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const tr::ThreadEvents& th = t.threads[order[i].thread_pos];
      const tr::TraceEvent& e = th.events[order[i].seq];
      thread_out[i] = th.index;
      op_out[i] = static_cast<std::uint8_t>(e.op);
      tsc_out[i] = e.tsc;
      address_out[i] = e.address;
      old_out[i] = e.old_address;
      size_out[i] = e.size;
      alignment_out[i] = e.alignment;
      call_site_out[i] = e.call_site;
      seq_out[i] = order[i].seq;
    }
  }
  py::dict d = trace_metadata(t);
  d["thread"] = thread;
  d["op"] = op;
  d["tsc"] = tsc;
  d["address"] = address;
  d["old_address"] = old_address;
  d["size"] = size;
  d["alignment"] = alignment;
  d["call_site"] = call_site;
  d["seq"] = seq;
  return d;
}

using U64Array = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;

// The first field of `e` that its op does not carry but is non-zero (the format would drop it),
// or nullptr.
const char* dropped_field(const tr::TraceEvent& e) {
  const tr::OpClass c = tr::op_class(e.op);
  if (c != tr::OpClass::realloc && e.old_address != 0) return "old_address";
  if (c == tr::OpClass::free && !tr::op_has_free_size(e.op) && e.size != 0) return "size";
  if (!tr::op_has_alignment(e.op) && e.alignment != 0) return "alignment";
  return nullptr;
}

std::uint64_t write_trace_arrays(const std::string& path, const U64Array& thread, const U64Array& op, const U64Array& tsc,
                                 const U64Array& address, const U64Array& old_address, const U64Array& size, const U64Array& alignment,
                                 const std::optional<U64Array>& call_site, std::uint32_t pid, std::uint32_t ppid,
                                 const std::vector<std::string>& command_line, std::uint32_t flags,
                                 const std::map<std::uint32_t, std::uint32_t>& tids, bool overwrite, std::uint32_t block_events) {
  const std::vector<std::pair<const char*, const U64Array*>> columns = {
      {"thread", &thread}, {"op", &op}, {"tsc", &tsc}, {"address", &address}, {"old_address", &old_address},
      {"size", &size}, {"alignment", &alignment}};
  const py::ssize_t n = thread.ndim() == 1 ? thread.shape(0) : -1;
  for (const auto& [name, a] : columns)
    if (a->ndim() != 1 || a->shape(0) != n)
      throw py::value_error(std::string("write_trace: '") + name + "' must be a 1-D array as long as 'thread'");
  if (call_site && (call_site->ndim() != 1 || call_site->shape(0) != n))
    throw py::value_error("write_trace: 'call_site' must be a 1-D array as long as 'thread'");
  if (block_events == 0 || block_events > tr::kMaxBlockEvents)
    throw py::value_error("write_trace: block_events must be in 1.." + std::to_string(tr::kMaxBlockEvents));
  if (call_site) flags |= tr::kFlagCallSites;

  const std::uint64_t *thread_in = thread.data(), *op_in = op.data(), *tsc_in = tsc.data(), *address_in = address.data(),
                      *old_in = old_address.data(), *size_in = size.data(), *alignment_in = alignment.data(),
                      *call_site_in = call_site ? call_site->data() : nullptr;
  auto event_at = [&](py::ssize_t i) {
    tr::TraceEvent e;
    e.op = static_cast<tr::TraceOp>(op_in[i]);
    e.tsc = tsc_in[i];
    e.address = address_in[i];
    e.old_address = old_in[i];
    e.size = size_in[i];
    e.alignment = alignment_in[i];
    e.call_site = call_site_in != nullptr ? call_site_in[i] : 0;
    return e;
  };
  // Check everything before creating the file, so that bad input leaves nothing behind.
  for (py::ssize_t i = 0; i < n; ++i) {
    const std::string where = "write_trace: event " + std::to_string(i) + ": ";
    if (thread_in[i] > std::numeric_limits<std::uint32_t>::max()) throw py::value_error(where + "thread does not fit 32 bits");
    if (op_in[i] >= std::uint64_t(tr::TraceOp::count))
      throw py::value_error(where + "op " + std::to_string(op_in[i]) + " is not a trace op (0.." +
                            std::to_string(unsigned(tr::TraceOp::count) - 1) + ")");
    if (const char* field = dropped_field(event_at(i)))
      throw py::value_error(where + tr::op_name(tr::TraceOp(op_in[i])) + " does not carry '" + field +
                            "' (it must be 0; the format would drop it)");
  }

  std::error_code ec;
  if (!overwrite && std::filesystem::exists(path, ec)) {
    PyErr_SetString(PyExc_FileExistsError, (path + ": exists (pass overwrite=True to replace it)").c_str());
    throw py::error_already_set();
  }

  tr::TraceOrigin origin;
  origin.pid = pid;
  origin.ppid = ppid;
  origin.flags = flags;
  origin.command_line = command_line;
  std::uint64_t written = 0;
  std::string failure;
  {
    py::gil_scoped_release release;
    try {
      tr::TraceWriter writer(path, origin, overwrite, block_events);
      for (py::ssize_t i = 0; i < n; ++i) {
        const auto th = static_cast<std::uint32_t>(thread_in[i]);
        const auto tid = tids.find(th);
        writer.add(th, tid != tids.end() ? tid->second : 0, event_at(i));
      }
      writer.finish();
      written = writer.events();
    } catch (const std::runtime_error& e) {
      failure = e.what();
    }
  }
  if (!failure.empty()) raise_os_error(failure);
  return written;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "allocstress C++ core: workload distributions, the results reader, the trace reader and writer";
  m.attr("schema_version") = kResultsSchemaVersion;
  m.attr("oldest_readable_schema_version") = kOldestReadableSchemaVersion;

  m.def(
      "sample_sizes",
      [](std::size_t n, unsigned max_size_exp, std::uint64_t seed) {
        const InverseSizeSampler sizes(max_size_exp);
        return draw_many(n, seed, [&](std::uint64_t bits) { return std::uint64_t(sizes.sample(bits)); });
      },
      py::arg("n"), py::arg("max_size_exp") = 16, py::arg("seed") = 1,
      "n block sizes drawn with the alloc-test p ~ 1/size law (sizes < 2^max_size_exp)");
  m.def(
      "sample_slots",
      [](std::size_t n, std::size_t slot_count, std::uint64_t seed) {
        const ParetoSlotPicker picker(slot_count);
        return draw_many(n, seed, [&](std::uint64_t bits) { return std::uint64_t(picker.pick(bits)); });
      },
      py::arg("n"), py::arg("slot_count") = 1u << 20, py::arg("seed") = 1,
      "n slot indexes drawn with the Pareto 80/20-six-times rule over slot_count slots");
  m.def(
      "slot_groups",
      [](std::size_t slot_count) {
        const ParetoSlotPicker picker(slot_count);
        py::list groups;
        for (int g = 0; g < ParetoSlotPicker::kGroups; ++g)
          groups.append(py::dict(py::arg("begin") = picker.group_begin(g), py::arg("size") = picker.group_size(g),
                                 py::arg("op_probability") = picker.group_probability(g)));
        return groups;
      },
      py::arg("slot_count"), "The 7 slot groups: first slot, slot count, probability of an operation");
  m.def(
      "size_bucket_probabilities",
      [](unsigned max_size_exp) {
        const InverseSizeSampler sizes(max_size_exp);
        py::dict buckets;
        for (unsigned k = InverseSizeSampler::kMinBucket; k < max_size_exp; ++k) buckets[py::int_(k)] = sizes.bucket_probability(k);
        return buckets;
      },
      py::arg("max_size_exp") = 16, "Model probability of each power-of-two size bucket k (sizes in [2^k, 2^(k+1)))");
  m.def(
      "mean_size", [](unsigned max_size_exp) { return InverseSizeSampler(max_size_exp).mean_size(); },
      py::arg("max_size_exp") = 16, "The model's mean block size in bytes");
  m.def(
      "read_results",
      [](const std::string& path) {
        nlohmann::json j;
        try {
          j = read_results_file(path);
        } catch (const ResultsFileError& e) {
          throw py::value_error(e.what());
        }
        return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
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
      "verdict_markdown",
      [](const std::string& results_json) { return verdict_markdown(nlohmann::json::parse(results_json)); },
      py::arg("results_json"),
      "The verdict section of the Markdown table (results/verdict.cpp) of a results document given as JSON text; '' without a ranking");
  m.def(
      "counts_markdown",
      [](const std::string& results_json) { return counts_markdown(nlohmann::json::parse(results_json)); },
      py::arg("results_json"),
      "The counts tier's tables of the Markdown table (results/mode_tables.cpp) of a results document given as JSON text; '' without counts cells");
  m.def(
      "memory_markdown",
      [](const std::string& results_json) { return memory_markdown(nlohmann::json::parse(results_json)); },
      py::arg("results_json"),
      "The memory tables of the Markdown table (results/memory_tables.cpp: limited cells, ageing penalty) of a results document given as JSON text; '' without any");

  // The workload registry and the metric catalogue (cells/): what the tables show, defined once.
  auto as_python = [](const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); };
  m.def(
      "workloads", [as_python] { return as_python(workload_registry_json()); },
      "Every workload of the registry: name, family, summary, void_baseline, table (net_cost, structure or false_sharing), "
      "simulates_caches, profiles, runs_alone, companions, options, metrics");
  m.def(
      "metric_catalogue", [as_python] { return as_python(metric_catalogue_json()); },
      "Every metric a workload's records carry, once: name, place (record, workload_metrics, placement_metrics), unit, label, "
      "decimals, mib, definition, headline, memory_headline, in_table, workloads");

  // Program workloads (cells/program_workloads.hpp): a program is named by its definition (the
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

  // Traces (trace/trace_format.hpp).
  py::register_exception<tr::TraceError>(m, "TraceFormatError", PyExc_ValueError);
  py::list op_names, op_classes;
  for (unsigned i = 0; i < unsigned(tr::TraceOp::count); ++i) {
    op_names.append(tr::op_name(tr::TraceOp(i)));
    const tr::OpClass c = tr::op_class(tr::TraceOp(i));
    op_classes.append(c == tr::OpClass::allocation ? "allocation" : c == tr::OpClass::free ? "free" : "realloc");
  }
  m.attr("trace_op_names") = op_names;
  m.attr("trace_op_classes") = op_classes;
  m.attr("trace_flag_call_sites") = tr::kFlagCallSites;
  m.attr("trace_flag_imported") = tr::kFlagImported;
  m.def("read_trace", &read_trace_arrays, py::arg("path"),
        R"(Read a whole allocstress trace (the C++ reader, so Python and C++ accept the same files).

Returns a dict.  Metadata: file, version, pid, ppid, command_line (list), flags, call_sites,
imported, start_tsc, start_monotonic_ns, start_realtime_ns, tsc_hz (0.0 when unknown), blocks,
file_bytes, encoded_bytes, truncation ('' or why reading stopped at an incomplete block: the
complete blocks before it are returned), truncated_at, thread_tids ({thread: kernel tid}),
op_names (names indexed by op code).  Events, one array row each, all threads merged and sorted by
(tsc, thread, the thread's own order): thread (uint32), op (uint8 op code), tsc, address,
old_address, size, alignment, call_site, seq (uint64; seq = position in the thread's own order).
Fields an op does not carry are 0.

Raises TraceFormatError (a ValueError) "FILE: offset N: what" for a foreign or corrupt file and
OSError when the file cannot be opened.)");
  m.def("write_trace", &write_trace_arrays, py::arg("path"), py::arg("thread"), py::arg("op"), py::arg("tsc"), py::arg("address"),
        py::arg("old_address"), py::arg("size"), py::arg("alignment"), py::arg("call_site") = py::none(), py::kw_only(),
        py::arg("pid") = 0, py::arg("ppid") = 0, py::arg("command_line") = std::vector<std::string>{}, py::arg("flags") = 0,
        py::arg("tids") = std::map<std::uint32_t, std::uint32_t>{}, py::arg("overwrite") = false, py::arg("block_events") = 65536,
        R"(Write events given as equally long 1-D integer arrays as an allocstress trace (TraceWriter).

Each thread's events are taken in array order (that is its own order).  Fields an op does not
carry (e.g. alignment of malloc) must be 0, so that read_trace gives back exactly what was written.
call_site, when given, sets the call-site flag.  tids maps thread index -> kernel tid (default 0).
The file appears only when complete (written as PATH.partial, then renamed).  No TSC rate is
recorded, so read_trace reports tsc_hz 0.  Returns the number of events written.  ValueError on bad
arrays (nothing is written), FileExistsError when PATH exists and not overwrite, OSError when
writing fails.)");
}
