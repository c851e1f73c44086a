// The importers (Steve ops text, heaptrack data) and the trace totals behind `trace-info`:
// fixtures with known results (tests/data/traces/README.md), the pairing policies, and bad
// input (one error naming the file and line or offset, and no output file left behind).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/trace_totals.hpp"
#include "trace/import_heaptrack.hpp"
#include "trace/import_steve.hpp"
#include "trace/trace_reader.hpp"
#include "../support/scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;
using namespace allocstress;
using namespace allocstress::trace;

const fs::path kTraces = fs::path(ALLOCSTRESS_TEST_DATA_DIR) / "traces";

class ImportTest : public allocstress::testing::ScratchFolderTest {
 protected:
  ImportTest() : ScratchFolderTest("allocstress-import-") {}
  void SetUp() override {
    ScratchFolderTest::SetUp();
    out = dir / "out.ast";
  }

  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  // The importer throws one line containing every part of `want`, and leaves no output behind.
  template <typename Import>
  void expect_error(Import import, const fs::path& input, const std::vector<std::string>& want) {
    try {
      import(input, out, false);
      ADD_FAILURE() << "no error for " << input;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.rfind(input.string() + ": ", 0), 0u) << what;
      for (const auto& w : want) EXPECT_NE(what.find(w), std::string::npos) << "'" << w << "' not in: " << what;
    }
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  }

  fs::path out;
};

std::vector<TraceEvent> events_of(const TraceContents& c) {
  EXPECT_EQ(c.threads.size(), 1u);
  return c.threads.empty() ? std::vector<TraceEvent>{} : c.threads[0].events;
}

std::string compress(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// --- Steve ops text -----------------------------------------------------------------------

TEST_F(ImportTest, SteveFixtureGivesTheKnownEvents) {
  const SteveImport r = import_steve(kTraces / "steve-small.ops", out, false);
  EXPECT_EQ(r.events, 10u);
  EXPECT_EQ(r.allocations, 6u);
  EXPECT_EQ(r.frees, 4u);
  EXPECT_EQ(r.never_freed, 2u);
  EXPECT_EQ(r.lock_unlock_lines, 2u);
  EXPECT_EQ(r.blank_or_comment_lines, 4u);

  const TraceContents c = read_trace(out);
  EXPECT_TRUE(c.header.flags & kFlagImported);
  EXPECT_EQ(c.header.pid, 0u);
  EXPECT_TRUE(c.command_line.empty());
  const auto e = events_of(c);
  ASSERT_EQ(e.size(), 10u);
  // File order: N1 N2 N3 F2 N4 F3 F1 N2' N5 F4; the n-th N gets address 16n.
  const TraceOp M = TraceOp::malloc, F = TraceOp::free;
  const std::vector<TraceOp> ops = {M, M, M, F, M, F, F, M, M, F};
  const std::vector<std::uint64_t> addresses = {16, 32, 48, 32, 64, 48, 16, 80, 96, 64};
  const std::vector<std::uint64_t> sizes = {100, 200, 50, 0, 150, 0, 0, 1000, 8, 0};
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].op, ops[i]) << i;
    EXPECT_EQ(e[i].address, addresses[i]) << i;
    EXPECT_EQ(e[i].size, sizes[i]) << i;
    EXPECT_EQ(e[i].tsc, i);
  }

  const TraceTotals t = trace_totals(c);
  EXPECT_EQ(t.requested_bytes, 1508u);
  EXPECT_EQ(t.peak_live_bytes, 1158u);
  EXPECT_EQ(t.peak_at_event, 8u);
  EXPECT_EQ(t.live_bytes_at_end, 1008u);
  EXPECT_EQ(t.live_blocks_at_end, 2u);
  EXPECT_EQ(t.frees_matched, 4u);
  EXPECT_EQ(t.frees_unmatched, 0u);
}

TEST_F(ImportTest, SteveAcceptsCrlfTabsAndALastLineWithoutNewline) {
  const auto in = write("crlf.ops", "7\tN\t0\t24\r\n7 F 0 24\r\n8 N 0 0x10");
  const SteveImport r = import_steve(in, out, false);
  EXPECT_EQ(r.events, 3u);
  const auto e = events_of(read_trace(out));
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].size, 24u);
  EXPECT_EQ(e[2].size, 16u);
}

TEST_F(ImportTest, SteveBadInputNamesTheLine) {
  const auto steve = [](const fs::path& i, const fs::path& o, bool w) { return import_steve(i, o, w); };
  expect_error(steve, write("a.ops", "1 N 0 8\n2 F 0 8\n"), {"line 2", "F of handle '2' that is not live"});
  expect_error(steve, write("b.ops", "1 N 0 8\n1 F\n1 F\n"), {"line 3", "not live"});
  expect_error(steve, write("c.ops", "# x\n1 N 0 8\n1 N 0 16\n"), {"line 3", "N of handle '1' that is still live (new at line 2"});
  expect_error(steve, write("d.ops", "1 N 0 8\n1 X 0 8\n"), {"line 2", "unknown op 'X'"});
  expect_error(steve, write("e.ops", "1 N 0\n"), {"line 1", "3 fields in an N line"});
  expect_error(steve, write("f.ops", "1 N 0 lots\n"), {"line 1", "size 'lots' is not a number"});
  expect_error(steve, write("g.ops", "1 N 0 99999999999999999999\n"), {"line 1", "too large"});
  expect_error(steve, write("h.ops", "1 F 0x 8\n"), {"line 1", "address '0x' is not a number"});
  expect_error(steve, write("i.ops", "1 N 0 8 9\n"), {"line 1", "5 fields"});
  expect_error(steve, write("j.ops", "\x7f" "ELF\x02\x01\x01\0\0\0"), {"line 1", "not text: byte 0x02 at column 5"});
  expect_error(steve, write("k.ops", "# only a comment\n\n"), {"no N (new) lines"});
  expect_error(steve, write("l.ops", ""), {"no N (new) lines"});
  expect_error(steve, write("m.ops", "1 N 0 8\n" + std::string(5000, '1') + " N 0 8\n"), {"line 2", "longer than 4096 bytes"});
  expect_error(steve, dir / "missing.ops", {"cannot open"});
  expect_error(steve, dir, {"is a folder"});
}

TEST_F(ImportTest, SteveKeepsAnExistingOutputUnlessOverwriting) {
  std::ofstream(out) << "keep";
  EXPECT_THROW(import_steve(kTraces / "steve-small.ops", out, false), std::runtime_error);
  std::ifstream kept(out);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "keep");
  import_steve(kTraces / "steve-small.ops", out, true);
  EXPECT_EQ(read_trace(out).events(), 10u);
}

// --- heaptrack ----------------------------------------------------------------------------

TEST_F(ImportTest, HeaptrackFixtureGivesTheCountsOfItsLines) {
  // Expected values counted from the file's own lines (README.md), not by this importer.
  const HeaptrackImport r = import_heaptrack(kTraces / "heaptrack.sort.31720.zst", out, false);
  EXPECT_TRUE(r.compressed);
  // file version, allocations, frees, events, allocation infos, never freed
  EXPECT_EQ((std::vector<std::uint64_t>{r.file_version, r.allocations, r.frees, r.events, r.allocation_infos, r.never_freed}),
            (std::vector<std::uint64_t>{3, 219, 68, 287, 70, 151}));

  const TraceContents c = read_trace(out);
  EXPECT_EQ(c.header.pid, 31720u);
  EXPECT_EQ(c.command_line, std::vector<std::string>{"/usr/bin/sort /etc/hostname"});
  EXPECT_EQ(c.events(), 287u);
  const TraceTotals t = trace_totals(c);
  // requested, peak live and live bytes at the end, live blocks at the end, unmatched frees
  EXPECT_EQ((std::vector<std::uint64_t>{t.requested_bytes, t.peak_live_bytes, t.live_bytes_at_end, t.live_blocks_at_end, t.frees_unmatched}),
            (std::vector<std::uint64_t>{100747, 89748, 12188, 151, 0}));
}

// Two allocation infos (16 and 32 bytes) with interleaved blocks: frees pair LIFO per info.
const std::string kSmallHeaptrack =
    "v 10400 3\nX /bin/example arg\nI 1000 5e298d\ns 4 main\nt 1 0\ni 401000 1\n"
    "a 10 1\n+ 0\n+ 0\na 20 1\n+ 1\n- 0\nc a\n- 1\n- 0\n+ 1\nc 14\nR 41a\n\n# strings: 1\n";

TEST_F(ImportTest, HeaptrackPairsFreesLastInFirstOutPerAllocationInfo) {
  const HeaptrackImport r = import_heaptrack(write("plain.txt", kSmallHeaptrack), out, false);
  EXPECT_FALSE(r.compressed);
  EXPECT_EQ(r.duration_ms, 20u);
  EXPECT_EQ(r.skipped_lines, 7u);  // I s t i R, the empty line, the comment
  EXPECT_EQ(r.never_freed, 1u);
  const TraceContents c = read_trace(out);
  EXPECT_EQ(c.header.pid, 0u);  // the file name has no pid
  const auto e = events_of(c);
  ASSERT_EQ(e.size(), 7u);
  const std::vector<std::uint64_t> addresses = {16, 32, 48, 32, 48, 16, 64};  // the 2nd block of info 0 dies first
  const std::vector<std::uint64_t> sizes = {16, 16, 32, 0, 0, 0, 32};
  for (std::size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].op, sizes[i] ? TraceOp::malloc : TraceOp::free) << i;
    EXPECT_EQ(e[i].address, addresses[i]) << i;
    EXPECT_EQ(e[i].size, sizes[i]) << i;
  }
}

TEST_F(ImportTest, HeaptrackCommandLineWithNewlinesRunsOnToTheSystemInfoLine) {
  // As heaptrack 1.4 writes `heaptrack python3 -c '<newline>import x<newline>y = 1'`.
  const auto in = write("heaptrack.python3.77", "v 10400 3\nX /usr/bin/python3 -c \nimport x\n  y = 1\nI 1000 5e298d\na 8 1\n+ 0\n");
  const HeaptrackImport r = import_heaptrack(in, out, false);
  EXPECT_EQ(r.events, 1u);
  const TraceContents c = read_trace(out);
  EXPECT_EQ(c.command_line, std::vector<std::string>{"/usr/bin/python3 -c \nimport x\n  y = 1"});
  EXPECT_EQ(c.header.pid, 77u);
}

TEST_F(ImportTest, HeaptrackZstdAndPlainTextGiveTheSameTrace) {
  // Many lines, a 100 KB string line (read in part and skipped) and the text split over two
  // zstd frames: the decompressing reader refills its buffers many times.
  std::string text = "v 10400 3\nX big\nI 1000 5e298d\ns 186a0 " + std::string(100000, 'x') + "\na 8 1\na 18 2\n";
  for (int i = 0; i < 40000; ++i) text += i % 3 == 2 ? "- 0\n- 1\n" : "+ 0\n+ 1\n";
  const auto half = text.find('\n', text.size() / 2) + 1;
  const auto plain = write("big.txt", text);
  const auto zst = write("big.zst", compress(text.substr(0, half)) + compress(text.substr(half)));
  const HeaptrackImport a = import_heaptrack(plain, out, false);
  const auto from_text = events_of(read_trace(out));
  const HeaptrackImport b = import_heaptrack(zst, out, true);
  const auto from_zstd = events_of(read_trace(out));
  EXPECT_EQ(a.events, b.events);
  EXPECT_TRUE(b.compressed);
  ASSERT_EQ(from_text.size(), from_zstd.size());
  ASSERT_EQ(from_text.size(), 80000u);
  for (std::size_t i = 0; i < from_text.size(); ++i) {
    ASSERT_EQ(from_text[i].address, from_zstd[i].address) << i;
    ASSERT_EQ(from_text[i].size, from_zstd[i].size) << i;
  }
}

TEST_F(ImportTest, HeaptrackBadInputNamesTheLineOrOffset) {
  const auto heaptrack = [](const fs::path& i, const fs::path& o, bool w) { return import_heaptrack(i, o, w); };
  const std::string head = "v 10400 3\nX p\nI 1000 5e298d\n";
  expect_error(heaptrack, write("a.txt", head + "a 8 1\n+ 0\n- 0\n- 0\n"), {"line 7", "'-' of allocation info 0x0 that has no live block"});
  expect_error(heaptrack, write("b.txt", head + "a 8 1\n+ 1\n"), {"line 5", "allocation info 0x1 not defined (1 'a' lines"});
  expect_error(heaptrack, write("c.txt", head + "a 8 1\n+ zz\n"), {"line 5", "'zz' is not a hexadecimal number"});
  expect_error(heaptrack, write("d.txt", head + "a 8\n"), {"line 4", "missing trace index"});
  expect_error(heaptrack, write("e.txt", head + "a 8 1\n+ 0 1 7f00\n"), {"line 5", "unexpected '1 7f00'"});
  expect_error(heaptrack, write("f.txt", head + "x 4 /bin/p\n"), {"line 4", "raw heaptrack output"});
  expect_error(heaptrack, write("g.txt", head + "Q 1\n"), {"line 4", "unknown line kind 'Q'"});
  expect_error(heaptrack, write("h.txt", head + "X q\n"), {"line 4", "a second X"});
  expect_error(heaptrack, write("i.txt", "v 10400 4\n"), {"line 1", "file format version 4 (accepted: 1 to 3"});
  expect_error(heaptrack, write("j.txt", head + "a 8 1\n"), {"no allocations"});
  expect_error(heaptrack, write("j2.txt", "v 10400 3\nX p\na 8 1\n+ 0\n"), {"no 'I' line after the X line"});
  expect_error(heaptrack, write("k.txt", "hello world\n"), {"offset 0", "neither zstd-compressed nor heaptrack text"});
  expect_error(heaptrack, write("l.txt", ""), {"offset 0", "empty file"});
  expect_error(heaptrack, write("m.gz", "\x1f\x8b\x08\0\0\0\0\0"), {"offset 0", "gzip-compressed"});
  expect_error(heaptrack, write("n.zst", compress("hello\n")), {"line 1", "not heaptrack data"});
  const std::string zst = compress(kSmallHeaptrack);
  expect_error(heaptrack, write("o.zst", zst.substr(0, zst.size() - 5)), {"offset", "file ends inside a zstd frame"});
  std::string flipped = zst;
  flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x40);
  expect_error(heaptrack, write("p.zst", flipped), {"offset", "corrupt zstd data"});
  expect_error(heaptrack, dir / "missing.zst", {"cannot open"});
}

// --- trace totals -------------------------------------------------------------------------

TEST_F(ImportTest, TotalsFollowReallocsAcrossThreadsInTimestampOrder) {
  // Thread 0: malloc A(100)@1, realloc A->B(300)@4, free B@6, free X (never allocated)@7.
  // Thread 1: malloc C(50)@2, realloc(NULL)->D(10)@3, failed malloc(40)@5, realloc D->0 size 0 @8, free(NULL)@9.
  TraceContents c;
  auto ev = [](TraceOp op, std::uint64_t tsc, std::uint64_t address, std::uint64_t size, std::uint64_t old = 0) {
    return trace::make_event(op, tsc, address, size, old);
  };
  c.threads.push_back({0, 10, {ev(TraceOp::malloc, 1, 0xa0, 100), ev(TraceOp::realloc, 4, 0xb0, 300, 0xa0), ev(TraceOp::free, 6, 0xb0, 0),
                               ev(TraceOp::op_delete, 7, 0xf0, 0)}});
  c.threads.push_back({1, 11, {ev(TraceOp::op_new, 2, 0xc0, 50), ev(TraceOp::realloc, 3, 0xd0, 10, 0), ev(TraceOp::malloc, 5, 0, 40),
                               ev(TraceOp::realloc, 8, 0, 0, 0xd0), ev(TraceOp::free, 9, 0, 0)}});
  const TraceTotals t = trace_totals(c);
  EXPECT_EQ(t.events, 9u);
  EXPECT_EQ(t.allocations, 2u);  // malloc A, new C
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(t.requested_bytes, 100u + 50 + 10 + 300);
  // Live: 100, 150, 160, 360 (A->B at tsc 4), 360, 60 (free B), 60, 50 (realloc D,0), 50.
  EXPECT_EQ(t.peak_live_bytes, 360u);
  EXPECT_EQ(t.peak_at_event, 3u);
  EXPECT_EQ(t.frees_matched, 3u);  // A by realloc, B, D by realloc(D, 0)
  EXPECT_EQ(t.frees_unmatched, 1u);
  EXPECT_EQ(t.frees_null, 1u);
  EXPECT_EQ(t.live_bytes_at_end, 50u);
  EXPECT_EQ(t.live_blocks_at_end, 1u);
  EXPECT_EQ(t.ops[std::size_t(TraceOp::realloc)], 3u);
  EXPECT_EQ(t.first_tsc, 1u);
  EXPECT_EQ(t.last_tsc, 9u);
}

TEST_F(ImportTest, TotalsCountAnAllocationOverALiveAddressOnce) {
  TraceContents c;
  TraceEvent a;
  a.op = TraceOp::malloc;
  a.address = 0x10;
  a.size = 64;
  TraceEvent b = a;
  b.tsc = 1;
  b.size = 16;
  c.threads.push_back({0, 1, {a, b}});
  const TraceTotals t = trace_totals(c);
  EXPECT_EQ(t.allocations_over_live, 1u);
  EXPECT_EQ(t.peak_live_bytes, 64u);
  EXPECT_EQ(t.live_bytes_at_end, 16u);
  EXPECT_EQ(t.live_blocks_at_end, 1u);
}

}  // namespace
