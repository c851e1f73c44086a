// The trace reader on damaged files (the contract of trace_reader.hpp): a small multi-block trace
// cut at every byte offset returns its complete blocks, and every bit flipped in turn either fails
// with a TraceError at its offset or changes nothing; only TraceError is ever thrown.
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

}  // namespace
