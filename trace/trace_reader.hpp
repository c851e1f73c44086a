// Reading allocstress trace files (format: trace_format.hpp) into memory.
//
// Contract: read_trace() either returns every event of every complete block, or throws
// TraceError whose message is "FILE: offset N: what is wrong (what is accepted)".  It never
// crashes on a foreign, corrupt or truncated file, and never allocates more than the file's own
// block headers justify (bounded by kMaxBlockEvents per block).  A file that ends inside a block
// is not an error: the complete blocks are returned and `truncation` says where the file was cut.
// Versions 1 and 2 are read (kOldestFormatVersion..kFormatVersion); version 2's header check
// values and end records are verified (a mismatch is a TraceError naming the header or record).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace_format.hpp"

namespace allocstress::trace {

struct TraceError : std::runtime_error {
  TraceError(const std::string& file, std::uint64_t offset, const std::string& what);
  std::string file;
  std::uint64_t offset;
};

// The events of one thread of the traced process, in that thread's order.
struct ThreadEvents {
  std::uint32_t index = 0;  // BlockHeader::thread
  std::uint32_t tid = 0;
  std::vector<TraceEvent> events;
};

struct TraceContents {
  std::string file;
  FileHeader header{};
  std::vector<std::string> command_line;
  std::vector<ThreadEvents> threads;  // ordered by thread index; indexes without events are absent
  std::uint64_t blocks = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t encoded_bytes = 0;     // Σ decompressed block content
  std::string truncation;              // "" or why reading stopped early (file cut inside a block)
  std::uint64_t truncated_at = 0;      // offset of the incomplete block
  double tsc_hz = 0;                   // from the file header and the last block; 0 when unknown
  EndRecord end{};                     // the last end record (version 2); end.magic 0 when none
  std::uint64_t end_offset = 0, end_records = 0;
  std::uint64_t blocks_after_end = 0;  // blocks after the last end record
  std::uint64_t events() const;
  bool end_recorded() const;
  // How the process's tracing ended, for people: "exit", "signal 11 (SIGSEGV)", "no end record" ...
  std::string end_text() const;
  // Why the trace is not whole, "" when it is: the file is cut inside a record, it has no end
  // record (version 2; the last is `resumed`), blocks follow the end record, or events were lost.
  // A version 1 file has no end record: only a cut is known.
  std::string cut_short() const;
  bool call_sites() const { return (header.flags & kFlagCallSites) != 0; }
};

// Reads a whole trace file.  Throws TraceError (bad content) or std::runtime_error (cannot open).
TraceContents read_trace(const std::filesystem::path& path);
// The same from bytes already in memory; `name` stands for the file in messages.
TraceContents read_trace_bytes(std::span<const unsigned char> bytes, const std::string& name);

// True when the first bytes are an allocstress trace's magic.
bool looks_like_trace(std::span<const unsigned char> first_bytes);

}  // namespace allocstress::trace
