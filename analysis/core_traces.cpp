// `allocstress._core`: the trace reader and writer (trace/trace_format.hpp) as numpy arrays, so
// that Python and C++ accept the same files.  read_trace merges all threads' events into one
// order (by TSC, ties by thread, then each thread's own order); write_trace checks every event
// before it creates the file, so bad input leaves nothing behind.
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

#include "analysis/core_bindings.hpp"
#include "trace/block_lifetimes.hpp"
#include "trace/recorded_order.hpp"
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"

namespace py = pybind11;

namespace allocstress::python {

namespace {

namespace tr = allocstress::trace;

// Raises OSError(message) in Python (pybind11 would turn std::runtime_error into RuntimeError).
[[noreturn]] void raise_os_error(const std::string& message) {
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw py::error_already_set();
}

// Where one event of the merged order comes from: out.threads[thread_pos].events[seq].
struct MergeKey {
  std::uint32_t thread_pos;
  std::uint64_t seq;
};

// The events of all threads in the trace's recorded order (trace/recorded_order.hpp: merged by TSC,
// each thread's own order kept, ties to the lower thread position), the one order that C++'s replay,
// fit, trace-info and block lifetimes walk too, so that an event index means the same event in
// Python's arrays and in _core.block_lifetimes' start and end columns.
std::vector<MergeKey> merged_order(const tr::TraceContents& t) {
  std::vector<MergeKey> keys;
  keys.reserve(t.events());
  tr::for_each_in_recorded_order(t, [&](std::size_t pos, const tr::TraceEvent& e) {
    keys.push_back({static_cast<std::uint32_t>(pos), static_cast<std::uint64_t>(&e - t.threads[pos].events.data())});
  });
  return keys;
}

// The metadata of a trace as a dict (everything but the events).
py::dict trace_metadata(const tr::TraceContents& t) {
  py::dict tids;
  for (const auto& thread : t.threads) tids[py::int_(thread.index)] = thread.tid;
  py::list op_names;
  for (unsigned i = 0; i < unsigned(tr::TraceOp::count); ++i) op_names.append(tr::op_name(tr::TraceOp(i)));
  using py::arg;
  return py::dict(arg("file") = t.file, arg("version") = t.header.version, arg("pid") = t.header.pid, arg("ppid") = t.header.ppid,
                  arg("command_line") = t.command_line, arg("flags") = t.header.flags, arg("call_sites") = t.call_sites(),
                  arg("imported") = (t.header.flags & tr::kFlagImported) != 0, arg("start_tsc") = t.header.start_tsc,
                  arg("start_monotonic_ns") = t.header.start_monotonic_ns, arg("start_realtime_ns") = t.header.start_realtime_ns,
                  arg("tsc_hz") = t.tsc_hz, arg("blocks") = t.blocks, arg("file_bytes") = t.file_bytes,
                  arg("encoded_bytes") = t.encoded_bytes, arg("truncation") = t.truncation, arg("truncated_at") = t.truncated_at,
                  arg("ended_by") = t.end_text(),    // "exit", "signal 11 (SIGSEGV)", "no end record" ...
                  arg("lost_events") = t.end.lost_events,
                  arg("cut_short") = t.cut_short(),  // "" when the trace is whole
                  arg("thread_tids") = tids, arg("op_names") = op_names);
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

// A column as a new numpy array of type Out.
template <class Out, class In>
py::array_t<Out> column(const std::vector<In>& values) {
  py::array_t<Out> a(static_cast<py::ssize_t>(values.size()));
  std::transform(values.begin(), values.end(), a.mutable_data(), [](In v) { return static_cast<Out>(v); });
  return a;
}

// The block lifetimes (trace/block_lifetimes.hpp) of events given as arrays in merged order.
py::dict block_lifetime_arrays(const U64Array& thread, const U64Array& op, const U64Array& address, const U64Array& old_address,
                               const U64Array& size) {
  const py::ssize_t n = thread.ndim() == 1 ? thread.shape(0) : -1;
  for (const U64Array* a : {&thread, &op, &address, &old_address, &size})
    if (a->ndim() != 1 || a->shape(0) != n) throw py::value_error("block_lifetimes: the event arrays must be 1-D and equally long");
  const std::uint64_t *thread_in = thread.data(), *op_in = op.data(), *address_in = address.data(), *old_in = old_address.data(),
                      *size_in = size.data();
  for (py::ssize_t i = 0; i < n; ++i)
    if (op_in[i] >= std::uint64_t(tr::TraceOp::count)) throw py::value_error("block_lifetimes: event " + std::to_string(i) + ": not a trace op");
  tr::BlockLifetimes b;
  {
    py::gil_scoped_release release;
    tr::BlockLifetimeLog log;
    for (py::ssize_t i = 0; i < n; ++i)
      log.add(static_cast<std::uint32_t>(thread_in[i]),
              tr::make_event(static_cast<tr::TraceOp>(op_in[i]), 0, address_in[i], size_in[i], old_in[i]));
    b = log.finish();
  }
  const tr::LifetimeCounts& c = b.counts;
  using py::arg;
  return py::dict(arg("start") = column<std::int64_t>(b.start), arg("end") = column<std::int64_t>(b.end),
                  arg("how") = column<std::uint8_t>(b.how), arg("size") = column<std::uint64_t>(b.size),
                  arg("address") = column<std::uint64_t>(b.address), arg("thread") = column<std::uint32_t>(b.thread),
                  arg("end_thread") = column<std::int64_t>(b.end_thread),
                  arg("counts") = py::dict(arg("unmatched_frees") = c.unmatched_frees, arg("unmatched_reallocs") = c.unmatched_reallocs,
                                           arg("null_frees") = c.null_frees, arg("failed_allocations") = c.failed_allocations,
                                           arg("failed_reallocs") = c.failed_reallocs, arg("cross_thread_frees") = c.cross_thread_frees));
}

}  // namespace

void bind_traces(py::module_& m) {
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
  m.def("block_lifetimes", &block_lifetime_arrays, py::arg("thread"), py::arg("op"), py::arg("address"), py::arg("old_address"),
        py::arg("size"),
        R"(The block lifetimes of events given as equally long 1-D arrays in merged order (trace/block_lifetimes.hpp:
the one matching rule of frees and reallocs to blocks).  Returns a dict of arrays, one entry per block in
start order: start, end (int64 event indexes; live at end: end = len), how (uint8: 0 freed, 1 reallocated,
2 live at end, 3 lost), size, address (uint64), thread (uint32), end_thread (int64, -1 when live at end);
and counts: {unmatched_frees, unmatched_reallocs, null_frees, failed_allocations, failed_reallocs,
cross_thread_frees}.)");
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

}  // namespace allocstress::python
