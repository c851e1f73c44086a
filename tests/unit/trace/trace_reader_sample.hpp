// Test support for the trace reader's bad-input tests (trace_reader_damage_test.cpp,
// trace_reader_fields_test.cpp): a small two-thread trace written by TraceWriter with blocks of at
// most 3 events (Sample: its bytes, where its header, blocks and end record lie, and its contents
// as read intact), a read that fails the test on any exception but TraceError, an event-by-event
// comparison, and a check that bytes are refused at an offset with a message.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"

namespace allocstress::trace::reader_testing {

namespace fs = std::filesystem;

using Bytes = std::vector<unsigned char>;

struct Block {
  std::size_t start = 0, payload = 0, end = 0;
  std::uint32_t thread = 0, events = 0;
};

struct Sample {
  Bytes bytes;
  std::size_t header_end = 0;  // file header + command line
  std::vector<Block> blocks;
  std::size_t end_record = 0;  // offset of the end record (the last kBlockHeaderBytes)
  TraceContents contents;      // as read from the intact file
};

inline TraceEvent event(TraceOp op, std::uint64_t tsc, std::uint64_t address, std::uint64_t size, std::uint64_t extra = 0) {
  TraceEvent e;
  e.op = op;
  e.tsc = tsc;
  e.address = address;
  e.size = size;
  if (op_class(op) == OpClass::realloc) e.old_address = extra;
  if (op_has_alignment(op)) e.alignment = extra;
  e.call_site = 0x400000 + 16 * tsc;
  return e;
}

// Two threads, blocks of at most 3 events: thread 0 writes blocks of 3, 3 and 1 events,
// thread 1 blocks of 3 and 1, interleaved in flush order.
inline Sample make_sample(std::uint32_t flags) {
  const fs::path path = fs::temp_directory_path() / ("allocstress-reader-" + std::to_string(::getpid()) + ".ast");
  fs::remove(path);
  {
    TraceOrigin origin;
    origin.pid = 4242;
    origin.ppid = 1;
    origin.flags = flags;
    origin.command_line = {"/usr/bin/example", "--flag", "x y"};
    origin.start_tsc = 1000;
    origin.start_monotonic_ns = 5000;
    TraceWriter w(path, origin, false, 3);
    const std::vector<TraceEvent> t0 = {
        event(TraceOp::malloc, 1010, 0x7f0000001000, 24),  event(TraceOp::calloc, 1020, 0x7f0000002000, 4096),
        event(TraceOp::realloc, 1030, 0x7f0000003000, 9000, 0x7f0000001000), event(TraceOp::posix_memalign, 1040, 0x7f0000004000, 64, 64),
        event(TraceOp::op_delete_sized, 1050, 0x7f0000004000, 64), event(TraceOp::free, 1060, 0x7f0000003000, 0),
        event(TraceOp::op_new_aligned, 1070, 0x7f0000005000, 128, 32)};
    const std::vector<TraceEvent> t1 = {event(TraceOp::op_new, 1015, 0x7e0000001000, 40), event(TraceOp::op_new_array, 1025, 0x7e0000002000, 400),
                                        event(TraceOp::op_delete, 1035, 0x7e0000001000, 0), event(TraceOp::free, 1045, 0x7f0000002000, 0)};
    for (std::size_t i = 0; i < t0.size() || i < t1.size(); ++i) {
      if (i < t0.size()) w.add(0, 100, t0[i]);
      if (i < t1.size()) w.add(1, 101, t1[i]);
    }
    w.finish();
  }
  Sample s;
  std::ifstream in(path, std::ios::binary);
  s.bytes.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(path);
  FileHeader h{};
  std::memcpy(&h, s.bytes.data(), sizeof h);
  s.header_end = h.header_bytes + h.command_line_bytes;
  s.end_record = s.bytes.size() - kBlockHeaderBytes;
  for (std::size_t at = s.header_end; at < s.end_record;) {
    BlockHeader b{};
    std::memcpy(&b, s.bytes.data() + at, sizeof b);
    s.blocks.push_back({at, at + kBlockHeaderBytes, at + kBlockHeaderBytes + b.compressed_bytes, b.thread, b.events});
    at = s.blocks.back().end;
  }
  s.contents = read_trace_bytes(s.bytes, "sample.ast");
  return s;
}

// Reads `bytes`; fails the test on any exception other than TraceError.  Returns whether the
// read succeeded; `error` gets the TraceError, `out` the contents.
inline bool read(const Bytes& bytes, TraceContents& out, TraceError*& error, std::vector<TraceError>& keep) {
  error = nullptr;
  try {
    out = read_trace_bytes(bytes, "sample.ast");
    return true;
  } catch (const TraceError& e) {
    keep.assign(1, e);
    error = &keep[0];
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a TraceError: " << e.what();
  }
  return false;
}

inline bool same_events(const TraceContents& a, const TraceContents& b) {
  if (a.threads.size() != b.threads.size()) return false;
  for (std::size_t t = 0; t < a.threads.size(); ++t) {
    const auto &x = a.threads[t], &y = b.threads[t];
    if (x.index != y.index || x.tid != y.tid || x.events.size() != y.events.size()) return false;
    for (std::size_t i = 0; i < x.events.size(); ++i)
      if (std::memcmp(&x.events[i], &y.events[i], sizeof(TraceEvent)) != 0) return false;
  }
  return true;
}

// Reads `bytes` as file `name`: they must be refused with a TraceError at `offset` whose message
// holds `want` (`damage` names what is wrong in the failure when they are accepted).
inline void expect_refused(const Bytes& bytes, const std::string& name, std::uint64_t offset, const std::string& want,
                           const std::string& damage) {
  try {
    read_trace_bytes(bytes, name);
    ADD_FAILURE() << "accepted " << damage;
  } catch (const TraceError& e) {
    EXPECT_EQ(e.offset, offset) << e.what();
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

}  // namespace allocstress::trace::reader_testing
