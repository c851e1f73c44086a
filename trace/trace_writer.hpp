// Writing allocstress trace files from ordinary C++ (importers, tests, tools).  The preloaded
// tracer does not use this class: it writes the same format with its own allocation-free code.
//
// Contract: events are buffered per thread and written as blocks of up to `block_events`; the
// file appears under its final name only when finish() succeeds (it is written to NAME.partial
// and renamed), so a failed or interrupted import never leaves a half-written trace behind.  The
// file is format version 2: header check values, and an end record (cause `written`) at the end.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "trace_format.hpp"

namespace allocstress::trace {

struct TraceOrigin {
  std::uint32_t pid = 0, ppid = 0;
  std::uint32_t flags = 0;                 // kFlag*
  std::vector<std::string> command_line;
  std::uint64_t start_tsc = 0, start_monotonic_ns = 0, start_realtime_ns = 0;
};

class TraceWriter {
 public:
  // Throws std::runtime_error when `path` exists (unless overwrite) or its folder is not writable.
  TraceWriter(std::filesystem::path path, const TraceOrigin& origin, bool overwrite = false, std::uint32_t block_events = 65536,
              int zstd_level = 3);
  ~TraceWriter();  // without finish(): removes the partial file
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Appends one event of thread `thread` (kernel id `tid`).
  void add(std::uint32_t thread, std::uint32_t tid, const TraceEvent& event);
  // Writes the remaining blocks, fsyncs and renames into place.  Throws std::runtime_error.
  void finish();
  std::uint64_t events() const { return events_; }

 private:
  struct Pending {
    std::uint32_t tid = 0, next_seq = 0;
    std::vector<TraceEvent> events;
  };
  void write_block(std::uint32_t thread, Pending& p);
  void write_bytes(const void* data, std::size_t n);

  std::filesystem::path path_, partial_;
  TraceOrigin origin_;
  std::uint32_t block_events_;
  int level_;
  int fd_ = -1;
  std::uint64_t events_ = 0, blocks_ = 0;
  std::map<std::uint32_t, Pending> pending_;
};

}  // namespace allocstress::trace
