// The trace reader on wrong fields (the contract of trace_reader.hpp): foreign files and a wrong
// version are refused at offset 0 or at their field; in format version 2 every flip of the file
// header (lengths, pid, clocks, command line) or of the end record is caught by their check values
// and blamed on them; the end record says how the trace ended; a version 1 file (no check values,
// no end record) is still read.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "trace_reader_sample.hpp"

namespace {

using namespace allocstress::trace;
using namespace allocstress::trace::reader_testing;

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
    expect_refused(bytes, "header.ast", c.offset, c.want, c.want);
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
    expect_refused(bytes, "patched.ast", c.at_payload ? s.blocks[c.block].payload : s.blocks[c.block].start, c.want, c.want);
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
    expect_refused(bytes, "header.ast", c.want_offset, c.want, "a flip at " + std::to_string(c.offset));
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

  expect_refused(with_end(s, [](EndRecord& r) { r.events_written += 1; }), "miscounted.ast", s.end_record, "blocks missing",
                 "an end record counting an event the file lacks");
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
