// The trace format's event codec (trace/trace_format.hpp) and the C++ writer -> reader round
// trip (trace_writer.hpp, trace_reader.hpp): every op kind, with and without call sites,
// extreme values, several blocks and threads, truncation at every cut of the last block.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "trace/trace_format.hpp"
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "../support/scratch_folder.hpp"

namespace allocstress::trace {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// An event of `op` carrying only the fields its op class encodes (the decoder leaves the rest 0).
TraceEvent event_of(TraceOp op, std::uint64_t tsc, std::uint64_t address, std::uint64_t old, std::uint64_t size, std::uint64_t alignment,
                    std::uint64_t call_site) {
  TraceEvent e;
  e.op = op;
  e.tsc = tsc;
  e.address = address;
  e.call_site = call_site;
  const OpClass c = op_class(op);
  if (c == OpClass::realloc) e.old_address = old;
  if (c != OpClass::free || op_has_free_size(op)) e.size = size;
  if (op_has_alignment(op)) e.alignment = alignment;
  return e;
}

void expect_same(const TraceEvent& want, const TraceEvent& got, bool call_sites, std::size_t i) {
  SCOPED_TRACE("event " + std::to_string(i) + " (" + op_name(want.op) + ")");
  EXPECT_EQ(got.op, want.op);
  EXPECT_EQ(got.tsc, want.tsc);
  EXPECT_EQ(got.address, want.address);
  EXPECT_EQ(got.old_address, want.old_address);
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.alignment, want.alignment);
  EXPECT_EQ(got.call_site, call_sites ? want.call_site : 0);
}

// Events of every op, with values that exercise negative deltas, zero and the 64-bit extremes.
std::vector<TraceEvent> every_op_with_extremes() {
  std::vector<TraceEvent> events;
  const std::uint64_t values[][6] = {
      // tsc, address, old, size, alignment, call site
      {1000, 0x7f0000001000, 0x7f0000000800, 24, 16, 0x401000},
      {999, 0x1000, 0x7fffffffffff, 0, 1, 0x400ff0},                      // TSC and addresses going backwards
      {kMax, kMax, 0, kMax, std::uint64_t(1) << 63, kMax},                   // everything at its maximum
      {0, 0, kMax, 1, 4096, 0},                                              // failed call (address 0), zero TSC
      {std::uint64_t(1) << 63, 0x8000000000000000, 0x7fffffffffffffff, 123456789, 65536, 1},
  };
  for (unsigned op = 0; op < unsigned(TraceOp::count); ++op)
    for (const auto& v : values) events.push_back(event_of(TraceOp(op), v[0], v[1], v[2], v[3], v[4], v[5]));
  return events;
}

TEST(TraceCodec, EveryOpRoundTripsWithAndWithoutCallSites) {
  const std::vector<TraceEvent> events = every_op_with_extremes();
  for (const bool call_sites : {false, true}) {
    SCOPED_TRACE(call_sites ? "with call sites" : "without call sites");
    std::vector<unsigned char> bytes(events.size() * kMaxEncodedEventBytes);
    CodecState enc;
    unsigned char* out = bytes.data();
    for (const TraceEvent& e : events) {
      unsigned char* const next = encode_event(out, enc, e, call_sites);
      ASSERT_LE(std::size_t(next - out), kMaxEncodedEventBytes);
      ASSERT_GE(next - out, 2);  // op byte + at least one varint: the reader's lower bound
      out = next;
    }
    CodecState dec;
    const unsigned char* in = bytes.data();
    for (std::size_t i = 0; i < events.size(); ++i) {
      TraceEvent got;
      ASSERT_TRUE(decode_event(in, out, dec, got, call_sites)) << "event " << i;
      expect_same(events[i], got, call_sites, i);
    }
    EXPECT_EQ(in, out);
  }
}

TEST(TraceCodec, CutEventsDoNotDecode) {
  for (const TraceEvent& e : every_op_with_extremes()) {
    unsigned char bytes[kMaxEncodedEventBytes];
    CodecState enc;
    const unsigned char* const end = encode_event(bytes, enc, e, true);
    for (const unsigned char* cut = bytes; cut < end; ++cut) {
      CodecState dec;
      const unsigned char* in = bytes;
      TraceEvent got;
      EXPECT_FALSE(decode_event(in, cut, dec, got, true)) << op_name(e.op) << " cut after " << (cut - bytes) << " bytes";
    }
  }
}

TEST(TraceCodec, UnknownOpDoesNotDecode) {
  const unsigned char bytes[] = {static_cast<unsigned char>(TraceOp::count), 0, 0, 0};
  const unsigned char* in = bytes;
  CodecState s;
  TraceEvent e;
  EXPECT_FALSE(decode_event(in, bytes + sizeof bytes, s, e, false));
}

class TraceRoundTrip : public allocstress::testing::ScratchFolderTest {
 protected:
  TraceRoundTrip() : ScratchFolderTest("allocstress-trace-codec-") {}

  // Three threads interleaved, blocks of 7 events: every op kind crosses block boundaries.
  std::vector<std::vector<TraceEvent>> write_three_threads(const fs::path& path, bool call_sites) {
    TraceOrigin origin;
    origin.pid = 4242;
    origin.ppid = 1;
    origin.flags = call_sites ? kFlagCallSites : 0;
    origin.command_line = {"prog", "--flag", "", "last arg"};
    origin.start_tsc = 5;
    TraceWriter w(path, origin, false, 7);
    std::vector<std::vector<TraceEvent>> per_thread(3);
    const std::vector<TraceEvent> events = every_op_with_extremes();
    for (std::size_t i = 0; i < events.size(); ++i) {
      const std::uint32_t thread = std::uint32_t(i % 3);
      w.add(thread, 100 + thread, events[i]);
      per_thread[thread].push_back(events[i]);
    }
    w.finish();
    return per_thread;
  }
};

TEST_F(TraceRoundTrip, WriterAndReaderAgreeOnEveryEvent) {
  for (const bool call_sites : {false, true}) {
    const fs::path path = dir / (call_sites ? "sites.ast" : "plain.ast");
    const auto want = write_three_threads(path, call_sites);
    const TraceContents t = read_trace(path);
    EXPECT_EQ(t.header.pid, 4242u);
    EXPECT_EQ(t.call_sites(), call_sites);
    EXPECT_EQ(t.command_line, (std::vector<std::string>{"prog", "--flag", "", "last arg"}));
    EXPECT_TRUE(t.truncation.empty());
    ASSERT_EQ(t.threads.size(), 3u);
    std::uint64_t blocks = 0;
    for (std::size_t th = 0; th < 3; ++th) {
      EXPECT_EQ(t.threads[th].index, th);
      EXPECT_EQ(t.threads[th].tid, 100 + th);
      ASSERT_EQ(t.threads[th].events.size(), want[th].size());
      for (std::size_t i = 0; i < want[th].size(); ++i) expect_same(want[th][i], t.threads[th].events[i], call_sites, i);
      blocks += (want[th].size() + 6) / 7;
    }
    EXPECT_EQ(t.blocks, blocks);
  }
}

TEST_F(TraceRoundTrip, CutInsideTheLastBlockKeepsEveryCompleteBlock) {
  const fs::path path = dir / "cut.ast";
  write_three_threads(path, false);
  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const TraceContents whole = read_trace_bytes(bytes, "whole");
  // The start of the last block: header, then the blocks before it.
  std::uint64_t last_block = 0, last_end = 0;
  for (std::uint64_t at = kFileHeaderBytes + whole.header.command_line_bytes; at < bytes.size();) {
    BlockHeader h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.magic == kEndMagic) break;  // the end record after the last block
    last_block = at;
    at += kBlockHeaderBytes + h.compressed_bytes;
    last_end = at;
  }
  std::uint64_t events_before_last = 0;
  {
    const TraceContents before = read_trace_bytes(std::span(bytes).first(last_block), "before");
    EXPECT_TRUE(before.truncation.empty());
    events_before_last = before.events();
  }
  ASSERT_LT(events_before_last, whole.events());
  for (std::uint64_t cut = last_block + 1; cut < last_end; ++cut) {
    const TraceContents t = read_trace_bytes(std::span(bytes).first(cut), "cut");
    EXPECT_FALSE(t.truncation.empty()) << "cut at " << cut;
    EXPECT_EQ(t.truncated_at, last_block);
    EXPECT_EQ(t.events(), events_before_last) << "cut at " << cut;
  }
}

TEST_F(TraceRoundTrip, WriterNeverLeavesAHalfWrittenFile) {
  const fs::path path = dir / "unfinished.ast";
  {
    TraceWriter w(path, TraceOrigin{});
    w.add(0, 1, event_of(TraceOp::malloc, 1, 0x1000, 0, 8, 0, 0));
  }  // destroyed without finish()
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".partial"));
  { std::ofstream(path) << "x"; }
  EXPECT_THROW(TraceWriter(path, TraceOrigin{}), std::runtime_error);
}

}  // namespace
}  // namespace allocstress::trace
