// The trace reader on bad input: a small multi-block trace cut at every byte offset, with every
// bit flipped in turn, foreign files and a wrong version.  The contract (trace_reader.hpp):
// only TraceError is ever thrown, naming the offset of what is wrong; a cut file returns its
// complete blocks; in format version 2 every flip of the file header (lengths, pid, clocks,
// command line) or of the end record is caught by their check values and blamed on them; a
// version 1 file (no check values, no end record) is still read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace allocstress::trace;

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

TraceEvent event(TraceOp op, std::uint64_t tsc, std::uint64_t address, std::uint64_t size, std::uint64_t extra = 0) {
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
Sample make_sample(std::uint32_t flags) {
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
bool read(const Bytes& bytes, TraceContents& out, TraceError*& error, std::vector<TraceError>& keep) {
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

bool same_events(const TraceContents& a, const TraceContents& b) {
  if (a.threads.size() != b.threads.size()) return false;
  for (std::size_t t = 0; t < a.threads.size(); ++t) {
    const auto &x = a.threads[t], &y = b.threads[t];
    if (x.index != y.index || x.tid != y.tid || x.events.size() != y.events.size()) return false;
    for (std::size_t i = 0; i < x.events.size(); ++i)
      if (std::memcmp(&x.events[i], &y.events[i], sizeof(TraceEvent)) != 0) return false;
  }
  return true;
}

TEST(TraceReader, SampleHasSeveralBlocksPerThread) {
  const Sample s = make_sample(kFlagCallSites);
  ASSERT_EQ(s.blocks.size(), 5u);
  EXPECT_EQ(s.contents.blocks, 5u);
  ASSERT_EQ(s.contents.threads.size(), 2u);
  EXPECT_EQ(s.contents.threads[0].events.size(), 7u);
  EXPECT_EQ(s.contents.threads[1].events.size(), 4u);
  EXPECT_EQ(s.contents.threads[0].events[2].old_address, 0x7f0000001000u);
  EXPECT_EQ(s.contents.threads[0].events[3].alignment, 64u);
  EXPECT_EQ(s.contents.threads[1].events[3].call_site, 0x400000u + 16 * 1045);
  EXPECT_EQ(s.contents.command_line, (std::vector<std::string>{"/usr/bin/example", "--flag", "x y"}));
  EXPECT_TRUE(s.contents.truncation.empty());
}

TEST(TraceReader, CutAtEveryOffsetReturnsTheCompleteBlocks) {
  for (std::uint32_t flags : {0u, kFlagCallSites}) {
    const Sample s = make_sample(flags);
    std::vector<TraceError> keep;
    for (std::size_t cut = 0; cut <= s.bytes.size(); ++cut) {
      const Bytes prefix(s.bytes.begin(), s.bytes.begin() + std::ptrdiff_t(cut));
      TraceContents c;
      TraceError* error = nullptr;
      const bool ok = read(prefix, c, error, keep);
      if (cut < s.header_end) {
        ASSERT_FALSE(ok) << "cut " << cut;
        ASSERT_NE(error, nullptr);
        EXPECT_LE(error->offset, cut);
        continue;
      }
      ASSERT_TRUE(ok) << "cut " << cut << ": " << (error ? error->what() : "");
      // Complete blocks: every block ending at or before the cut; the first other one is where it was cut.
      std::uint64_t events = 0, blocks = 0;
      const Block* cut_block = nullptr;
      for (const Block& b : s.blocks) {
        if (b.end <= cut) {
          events += b.events;
          ++blocks;
        } else if (!cut_block) {
          cut_block = &b;
        }
      }
      EXPECT_EQ(c.blocks, blocks) << "cut " << cut;
      EXPECT_EQ(c.events(), events) << "cut " << cut;
      const bool at_boundary = cut == s.bytes.size() || cut == s.end_record || (cut_block && cut_block->start == cut);
      EXPECT_EQ(c.truncation.empty(), at_boundary) << "cut " << cut << ": " << c.truncation;
      if (!at_boundary) {
        EXPECT_EQ(c.truncated_at, cut_block ? cut_block->start : s.end_record) << "cut " << cut;
      }
      // Only the whole file has its end record: every cut is reported as cut short.
      EXPECT_EQ(c.cut_short().empty(), cut == s.bytes.size()) << "cut " << cut << ": " << c.cut_short();
      for (const auto& t : c.threads) {  // each thread's events are a prefix of the full file's
        const auto& full = s.contents.threads[t.index].events;
        ASSERT_LE(t.events.size(), full.size());
        for (std::size_t i = 0; i < t.events.size(); ++i) EXPECT_EQ(std::memcmp(&t.events[i], &full[i], sizeof(TraceEvent)), 0);
      }
    }
  }
}

TEST(TraceReader, FlippedBitsFailAtTheirOffsetOrChangeNothing) {
  const Sample s = make_sample(kFlagCallSites);
  std::vector<TraceError> keep;
  std::size_t errors = 0, unchanged = 0;
  for (std::size_t offset = 0; offset < s.bytes.size(); ++offset) {
    for (int bit = 0; bit < 8; ++bit) {
      Bytes bytes = s.bytes;
      bytes[offset] = static_cast<unsigned char>(bytes[offset] ^ (1u << bit));
      TraceContents c;
      TraceError* error = nullptr;
      const bool ok = read(bytes, c, error, keep);
      ok ? ++unchanged : ++errors;
      const std::string where = "byte " + std::to_string(offset) + " bit " + std::to_string(bit) + ": " + (error ? error->what() : "read");
      const Block* block = nullptr;
      for (const Block& b : s.blocks)
        if (offset >= b.start && offset < b.end) block = &b;
      if (block && offset < block->payload) {  // block header: its check value catches every flip
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, block->start) << where;
      } else if (block) {  // payload: zstd's content checksum or the decoder catches it
        if (ok) {
          EXPECT_TRUE(same_events(c, s.contents)) << where;
        } else {
          EXPECT_EQ(error->offset, block->payload) << where;
        }
      } else if (offset < sizeof kFileMagic) {
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, 0u) << where;
        EXPECT_NE(std::string(error->what()).find("not an allocstress trace"), std::string::npos) << where;
      } else if (offset < offsetof(FileHeader, header_bytes)) {
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, offsetof(FileHeader, version)) << where;
      } else if (offset < kFileHeaderBytes) {  // lengths, pid, clocks, flags, check values
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, offsetof(FileHeader, header_check)) << where;
        EXPECT_NE(std::string(error->what()).find("file header check value mismatch"), std::string::npos) << where;
      } else if (offset < s.header_end) {  // command line
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, kFileHeaderBytes) << where;
        EXPECT_NE(std::string(error->what()).find("corrupt command line"), std::string::npos) << where;
      } else if (offset >= s.end_record) {
        ASSERT_FALSE(ok) << where;
        EXPECT_EQ(error->offset, s.end_record) << where;
      }
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_GT(unchanged, 0u);
}

TEST(TraceReader, ForeignFilesAreRejectedAtOffsetZero) {
  std::ifstream self("/proc/self/exe", std::ios::binary);
  Bytes elf(4096);
  self.read(reinterpret_cast<char*>(elf.data()), std::streamsize(elf.size()));
  elf.resize(std::size_t(self.gcount()));
  ASSERT_GE(elf.size(), 64u);
  const std::string text = "1 N 0x1000 100\n1 F 0x1000 100\n";
  const std::vector<std::pair<Bytes, std::string>> cases = {
      {elf, "not an allocstress trace"},
      {Bytes(text.begin(), text.end()), "not an allocstress trace"},
      {Bytes{'a', 'b', 'c'}, "not an allocstress trace"},
      {Bytes{}, "empty file"},
  };
  for (const auto& [bytes, want] : cases) {
    try {
      read_trace_bytes(bytes, "foreign");
      ADD_FAILURE() << "accepted " << bytes.size() << " foreign bytes";
    } catch (const TraceError& e) {
      EXPECT_EQ(e.offset, 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("foreign: offset 0: ", 0), 0u) << e.what();
    }
  }
}

TEST(TraceReader, FileHeaderErrorsNameTheirField) {
  const Sample s = make_sample(0);
  struct Case {
    std::size_t field;
    std::uint32_t value;
    std::size_t width;
    std::string want;
    std::uint64_t offset;
  };
  const std::vector<Case> cases = {
      {offsetof(FileHeader, version), 3, 2, "format version 3 (accepted: versions 1 to 2)", offsetof(FileHeader, version)},
      {offsetof(FileHeader, header_bytes), 32, 2, "header size 32 is below 64", offsetof(FileHeader, header_bytes)},
      {offsetof(FileHeader, command_line_bytes), kMaxCommandLineBytes + 1, 4, "command line of 1048577 bytes (limit 1048576)",
       offsetof(FileHeader, command_line_bytes)},
      {offsetof(FileHeader, command_line_bytes), 100000, 4, "file ends inside the command line", s.bytes.size()},
  };
  for (const Case& c : cases) {
    Bytes bytes = s.bytes;
    std::memcpy(bytes.data() + c.field, &c.value, c.width);  // little-endian: the low bytes first
    FileHeader h{};  // a consistent but wrong writer: the check value matches the wrong field
    std::memcpy(&h, bytes.data(), sizeof h);
    h.header_check = file_header_check(h);
    std::memcpy(bytes.data(), &h, sizeof h);
    try {
      read_trace_bytes(bytes, "header.ast");
      ADD_FAILURE() << "accepted: " << c.want;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.offset, c.offset) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
    }
  }
}

// Rewrites one block header field and its check value, as a consistent but wrong writer would.
void patch_block(Bytes& bytes, const Block& b, const std::function<void(BlockHeader&)>& change) {
  BlockHeader h{};
  std::memcpy(&h, bytes.data() + b.start, sizeof h);
  change(h);
  h.reserved = block_header_check(h);
  std::memcpy(bytes.data() + b.start, &h, sizeof h);
}

TEST(TraceReader, ConsistentButWrongBlockHeadersAreNamed) {
  const Sample s = make_sample(0);
  struct Case {
    std::size_t block;
    std::function<void(BlockHeader&)> change;
    std::string want;
    bool at_payload;
  };
  const std::vector<Case> cases = {
      {1, [](BlockHeader& h) { h.events = kMaxBlockEvents + 1; }, "events (accepted: 1..", false},
      {1, [](BlockHeader& h) { h.events = 0; }, "block claims 0 events", false},
      {1, [](BlockHeader& h) { h.encoded_bytes = 1; }, "encoded bytes", false},
      {2, [](BlockHeader& h) { h.block_seq = 7; }, "blocks missing or reordered", false},
      {0, [](BlockHeader& h) { h.events -= 1; }, "left over", true},
      {0, [](BlockHeader& h) { h.events += 1; }, "does not decode", true},
      {0, [](BlockHeader& h) { h.encoded_bytes += 1; }, "header says", true},
  };
  for (const Case& c : cases) {
    Bytes bytes = s.bytes;
    patch_block(bytes, s.blocks[c.block], c.change);
    try {
      read_trace_bytes(bytes, "patched.ast");
      ADD_FAILURE() << "accepted: " << c.want;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.offset, c.at_payload ? s.blocks[c.block].payload : s.blocks[c.block].start) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
    }
  }
}

TEST(TraceReader, MissingFileIsNotATraceError) {
  try {
    read_trace("/nonexistent/allocstress/trace.ast");
    ADD_FAILURE() << "opened a missing file";
  } catch (const TraceError&) {
    ADD_FAILURE() << "a missing file is not bad content";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

// A corrupt command line length (the evidence of issue 17: it was blamed on "offset 218: no
// block magic") is blamed on the file header; so are a flipped pid and flipped command line text.
TEST(TraceReader, CorruptHeaderFieldsAreBlamedOnTheHeader) {
  const Sample s = make_sample(0);
  struct Case {
    std::size_t offset;
    unsigned char xor_with;
    std::uint64_t want_offset;
    std::string want;
  };
  const std::vector<Case> cases = {
      {offsetof(FileHeader, command_line_bytes), 0x04, offsetof(FileHeader, header_check), "file header check value mismatch"},
      {offsetof(FileHeader, pid), 0x01, offsetof(FileHeader, header_check), "file header check value mismatch"},
      {kFileHeaderBytes + 3, 0x20, kFileHeaderBytes, "file header check value mismatch: corrupt command line"},
  };
  for (const Case& c : cases) {
    Bytes bytes = s.bytes;
    bytes[c.offset] ^= c.xor_with;
    try {
      read_trace_bytes(bytes, "header.ast");
      ADD_FAILURE() << "accepted a flip at " << c.offset;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.offset, c.want_offset) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
    }
  }
}

// Rewrites the end record, with its check value.
Bytes with_end(const Sample& s, const std::function<void(EndRecord&)>& change) {
  Bytes bytes = s.bytes;
  EndRecord r{};
  std::memcpy(&r, bytes.data() + s.end_record, sizeof r);
  change(r);
  r.check = end_record_check(r);
  std::memcpy(bytes.data() + s.end_record, &r, sizeof r);
  return bytes;
}

TEST(TraceReader, EndRecordSaysHowTheTraceEnded) {
  const Sample s = make_sample(0);
  EXPECT_TRUE(s.contents.end_recorded());
  EXPECT_EQ(s.contents.end.cause, std::uint32_t(EndCause::written));
  EXPECT_EQ(s.contents.end.events_written, 11u);
  EXPECT_EQ(s.contents.cut_short(), "");

  const TraceContents crashed = read_trace_bytes(with_end(s, [](EndRecord& r) {
    r.cause = std::uint32_t(EndCause::signal);
    r.signal = 11;
  }), "crashed.ast");
  EXPECT_EQ(crashed.end_text(), "signal 11 (SIGSEGV)");
  EXPECT_EQ(crashed.cut_short(), "");  // whole up to the signal

  const TraceContents lossy = read_trace_bytes(with_end(s, [](EndRecord& r) { r.lost_events = 3; }), "lossy.ast");
  EXPECT_NE(lossy.cut_short().find("3 events recorded but not written"), std::string::npos) << lossy.cut_short();

  const TraceContents resumed = read_trace_bytes(with_end(s, [](EndRecord& r) { r.cause = std::uint32_t(EndCause::resumed); }), "resumed.ast");
  EXPECT_NE(resumed.cut_short().find("no end record"), std::string::npos) << resumed.cut_short();

  const Bytes no_end(s.bytes.begin(), s.bytes.begin() + std::ptrdiff_t(s.end_record));
  const TraceContents killed = read_trace_bytes(no_end, "killed.ast");
  EXPECT_EQ(killed.events(), 11u);
  EXPECT_NE(killed.cut_short().find("no end record"), std::string::npos) << killed.cut_short();

  // A block after the end record (an end record in the middle).
  Bytes moved(s.bytes.begin(), s.bytes.begin() + std::ptrdiff_t(s.blocks.back().start));
  moved.insert(moved.end(), s.bytes.begin() + std::ptrdiff_t(s.end_record), s.bytes.end());
  moved.insert(moved.end(), s.bytes.begin() + std::ptrdiff_t(s.blocks.back().start), s.bytes.begin() + std::ptrdiff_t(s.blocks.back().end));
  EndRecord early{};
  std::memcpy(&early, moved.data() + s.blocks.back().start, sizeof early);
  early.events_written -= s.blocks.back().events;
  early.blocks_written -= 1;
  early.check = end_record_check(early);
  std::memcpy(moved.data() + s.blocks.back().start, &early, sizeof early);
  const TraceContents after = read_trace_bytes(moved, "after.ast");
  EXPECT_EQ(after.blocks_after_end, 1u);
  EXPECT_NE(after.cut_short().find("1 blocks after the end record"), std::string::npos) << after.cut_short();

  try {
    read_trace_bytes(with_end(s, [](EndRecord& r) { r.events_written += 1; }), "miscounted.ast");
    ADD_FAILURE() << "accepted an end record counting an event the file lacks";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.offset, s.end_record) << e.what();
    EXPECT_NE(std::string(e.what()).find("blocks missing"), std::string::npos) << e.what();
  }
}

// Format version 1 (before check values and end records) is still read; its end is unknown.
TEST(TraceReader, Version1IsStillRead) {
  const Sample s = make_sample(kFlagCallSites);
  Bytes v1(s.bytes.begin(), s.bytes.begin() + std::ptrdiff_t(s.end_record));
  FileHeader h{};
  std::memcpy(&h, v1.data(), sizeof h);
  h.version = 1;
  h.header_check = h.command_line_check = 0;
  std::memcpy(v1.data(), &h, sizeof h);
  const TraceContents c = read_trace_bytes(v1, "v1.ast");
  EXPECT_TRUE(same_events(c, s.contents));
  EXPECT_FALSE(c.end_recorded());
  EXPECT_EQ(c.cut_short(), "");
  EXPECT_NE(c.end_text().find("format version 1 has no end record"), std::string::npos) << c.end_text();
  v1[offsetof(FileHeader, pid)] ^= 1;  // version 1 cannot tell
  EXPECT_NO_THROW(read_trace_bytes(v1, "v1.ast"));
}

}  // namespace
