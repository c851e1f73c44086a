// The replay: a hand-built trace with every case the program builder handles (cross-thread free,
// realloc, unmatched and NULL frees, an address reused without a free, a block live at the end)
// becomes exactly the expected operations and statistics; the program survives its file form;
// a heap map's frames list exactly the blocks live at each frame of the merged order;
// and replaying a multi-threaded program with cross-thread frees on real backends finishes
// (no deadlock), replays every operation and frees every block.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <barrier>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_set>
#include <unistd.h>

#include "allocators/pool_allocator.hpp"
#include "allocators/process_malloc_allocator.hpp"
#include "allocators/void_allocator.hpp"
#include "workloads/replay/heap_map_frames.hpp"
#include "workloads/replay/replay_program.hpp"

namespace allocstress {
namespace {

using trace::TraceOp;


trace::TraceContents two_threads() {
  trace::TraceContents t;
  t.threads.resize(2);
  t.threads[0].index = 0;
  t.threads[1].index = 1;
  t.threads[0].events = {
      trace::make_event(TraceOp::malloc, 1, 0xa000, 100),             // A
      trace::make_event(TraceOp::op_new, 2, 0xb000, 200),             // B
      trace::make_event(TraceOp::free, 3, 0xdead),                    // unmatched
      trace::make_event(TraceOp::free, 4, 0),                         // free(NULL)
      trace::make_event(TraceOp::free, 5, 0xa000),                    // A freed
      trace::make_event(TraceOp::realloc, 6, 0xc000, 300, 0xb000),    // B -> C
      trace::make_event(TraceOp::aligned_alloc, 8, 0xd000, 64, 0, 4096),  // D
      trace::make_event(TraceOp::calloc, 9, 0xd000, 32),              // D again without a free: implicit free of D
      trace::make_event(TraceOp::malloc, 10, 0, 1 << 20),             // failed in the trace
  };
  t.threads[1].events = {
      trace::make_event(TraceOp::op_delete_sized, 7, 0xc000, 300),    // C freed by the other thread
      trace::make_event(TraceOp::malloc, 11, 0xe000, 0),              // size 0 -> replayed as 1, live at the end
  };
  return t;
}

struct Want {
  ReplayOpKind kind;
  std::uint32_t slot, old_slot;
  std::uint64_t size, old_size;
  std::uint8_t wait, align_log2;
};

void expect_ops(const std::vector<ReplayOp>& got, const std::vector<Want>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i));
    EXPECT_EQ(got[i].kind, want[i].kind);
    EXPECT_EQ(got[i].slot, want[i].slot);
    EXPECT_EQ(got[i].size, want[i].size);
    EXPECT_EQ(got[i].wait, want[i].wait);
    EXPECT_EQ(got[i].align_log2, want[i].align_log2);
    if (want[i].kind == ReplayOpKind::reallocate) {
      EXPECT_EQ(got[i].old_slot, want[i].old_slot);
      EXPECT_EQ(got[i].old_size, want[i].old_size);
    }
  }
}

TEST(ReplayProgram, BuildsTheExpectedOperations) {
  const ReplayProgram p = build_replay_program(two_threads(), 2);
  ASSERT_EQ(p.threads.size(), 2u);
  using K = ReplayOpKind;
  expect_ops(p.threads[0].ops, {{K::allocate, 0, 0, 100, 0, 0, 0},
                                {K::allocate, 1, 0, 200, 0, 0, 0},
                                {K::free, 0, 0, 100, 0, 0, 0},
                                {K::reallocate, 2, 1, 300, 200, 0, 0},
                                {K::allocate, 3, 0, 64, 0, 0, 12},
                                {K::free, 3, 0, 64, 0, 0, 12},  // implicit: the address came back without a free
                                {K::allocate_zeroed, 4, 0, 32, 0, 0, 0}});
  expect_ops(p.threads[1].ops, {{K::free, 2, 0, 300, 0, 1, 0},  // waits for thread 0's realloc
                                {K::allocate, 5, 0, 1, 0, 0, 0}});
  EXPECT_EQ(p.slots, 6u);
  EXPECT_EQ(p.max_block_bytes, 64u + 4096u);  // the aligned block with room to align inside it
  const auto& s = p.stats;
  EXPECT_EQ(s["trace_events"], 11);
  EXPECT_EQ(s["ops"], 9);
  EXPECT_EQ(s["allocations"], 5);
  EXPECT_EQ(s["zeroed_allocations"], 1);
  EXPECT_EQ(s["frees"], 3);
  EXPECT_EQ(s["reallocations"], 1);
  EXPECT_EQ(s["unmatched_frees"], 1);
  EXPECT_EQ(s["null_frees"], 1);
  EXPECT_EQ(s["implicit_frees"], 1);
  EXPECT_EQ(s["failed_allocations_in_trace"], 1);
  EXPECT_EQ(s["cross_thread_consumes"], 1);
  EXPECT_EQ(s["aligned_allocations"], 1);
  EXPECT_EQ(s["peak_live_requested_bytes"], 300);
  EXPECT_EQ(s["end_live_requested_bytes"], 33);
  EXPECT_EQ(s["live_at_end"], 2);
  EXPECT_EQ(s["ops_by_kind"]["free"], 3);
  ASSERT_EQ(p.threads[0].live_at_end.size(), 1u);
  EXPECT_EQ(p.threads[0].live_at_end[0].slot, 4u);
  ASSERT_EQ(p.threads[1].live_at_end.size(), 1u);
  EXPECT_EQ(p.threads[1].live_at_end[0].slot, 5u);
  // Every 2 ops of a thread: (local index, index in recorded order, live bytes there).
  ASSERT_EQ(p.threads[0].samples.size(), 3u);
  EXPECT_EQ(p.threads[0].samples[0].global_index, 1u);
  EXPECT_EQ(p.threads[0].samples[0].used_bytes, 300u);
  EXPECT_EQ(p.threads[0].samples[2].local_index, 5u);
  EXPECT_EQ(p.threads[0].samples[2].global_index, 6u);
  EXPECT_EQ(p.threads[0].samples[2].used_bytes, 0u);
  ASSERT_EQ(p.threads[1].samples.size(), 1u);
  EXPECT_EQ(p.threads[1].samples[0].global_index, 8u);
  EXPECT_EQ(p.threads[1].samples[0].used_bytes, 33u);
}

TEST(ReplayProgram, RejectsATraceWithoutOperations) {
  trace::TraceContents t;
  t.threads.resize(1);
  t.threads[0].events = {trace::make_event(TraceOp::free, 1, 0x1234)};
  EXPECT_THROW(build_replay_program(t, 0), std::invalid_argument);
}

// A program with `threads` threads; about `cross` percent of frees by the next thread.
trace::TraceContents random_trace(unsigned threads, unsigned per_thread, unsigned cross) {
  trace::TraceContents t;
  t.threads.resize(threads);
  std::mt19937_64 rng(7);
  std::vector<std::vector<std::uint64_t>> mine(threads);
  std::uint64_t tsc = 0, address = 0x100000;
  for (unsigned i = 0; i < per_thread; ++i)
    for (unsigned th = 0; th < threads; ++th) {
      t.threads[th].index = th;
      if (mine[th].size() < 4 || rng() % 2) {
        address += 0x10000;
        t.threads[th].events.push_back(trace::make_event(rng() % 10 == 0 ? TraceOp::realloc : TraceOp::malloc, ++tsc, address, 8 + rng() % 2000,
                                          0));
        mine[rng() % 100 < cross ? (th + 1) % threads : th].push_back(address);
      } else {
        t.threads[th].events.push_back(trace::make_event(TraceOp::free, ++tsc, mine[th].back()));
        mine[th].pop_back();
      }
    }
  return t;
}

TEST(ReplayProgram, HeapMapFramesListTheBlocksLiveAtEachFrame) {
  EXPECT_TRUE(build_replay_program(two_threads(), 0).slot_spans.empty());  // only when asked
  const ReplayProgram p = build_replay_program(two_threads(), 0, true);
  ASSERT_EQ(p.stats.at("ops"), 9);
  // Merged order: 0 A, 1 B, 2 free A, 3 B -> C, 4 free C, 5 D, 6 implicit free of D, 7 D', 8 E (live at the end).
  const HeapMapFrames f = heap_map_frames(p, 3);
  EXPECT_EQ(f.op_index, (std::vector<std::uint64_t>{2, 5, 8}));
  // A and C live between frames only; B after op 2; D after op 5; D' and E after op 8 (the end).
  ASSERT_EQ(f.blocks.size(), 4u);
  const std::vector<std::array<std::uint64_t, 4>> want = {{200, 1, 0, 1}, {64, 3, 1, 2}, {32, 4, 2, 3}, {1, 5, 2, 3}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i));
    EXPECT_EQ(f.blocks[i].size, want[i][0]);
    EXPECT_EQ(f.blocks[i].slot, want[i][1]);
    EXPECT_EQ(f.blocks[i].first_frame, want[i][2]);
    EXPECT_EQ(f.blocks[i].end_frame, want[i][3]);
  }
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("heap-map-frames-" + std::to_string(::getpid()) + ".bin");
  save_heap_map_frames(f, path);
  const HeapMapFrames back = load_heap_map_frames(path);
  EXPECT_EQ(back.op_index, f.op_index);
  ASSERT_EQ(back.blocks.size(), f.blocks.size());
  EXPECT_EQ(std::memcmp(back.blocks.data(), f.blocks.data(), f.blocks.size() * sizeof(HeapMapBlock)), 0);
  {  // found by fuzzing: a block count (header byte 16) wrapping the size check is refused as such
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    const std::uint64_t wrapping = f.blocks.size() + (std::uint64_t{1} << 60);
    file.seekp(16);
    file.write(reinterpret_cast<const char*>(&wrapping), sizeof wrapping);
  }
  EXPECT_THROW(load_heap_map_frames(path), std::runtime_error);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
  EXPECT_THROW(load_heap_map_frames(path), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(ReplayProgram, SurvivesItsFileForm) {
  const ReplayProgram p = build_replay_program(random_trace(3, 2000, 20), 100);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("replay-program-test-" + std::to_string(getpid()) + ".bin");
  save_replay_program(p, file);
  {
    const MappedReplayProgram m(file);
    ASSERT_EQ(m.threads().size(), p.threads.size());
    EXPECT_EQ(m.slots(), p.slots);
    EXPECT_EQ(m.max_block_bytes(), p.max_block_bytes);
    EXPECT_EQ(m.allocstats_every(), 100u);
    EXPECT_EQ(m.stats(), p.stats);
    for (std::size_t i = 0; i < p.threads.size(); ++i) {
      ASSERT_EQ(m.threads()[i].ops.size(), p.threads[i].ops.size());
      EXPECT_EQ(std::memcmp(m.threads()[i].ops.data(), p.threads[i].ops.data(), p.threads[i].ops.size() * sizeof(ReplayOp)), 0);
      EXPECT_EQ(m.threads()[i].samples.size(), p.threads[i].samples.size());
      EXPECT_EQ(m.threads()[i].live_at_end.size(), p.threads[i].live_at_end.size());
    }
  }
  std::filesystem::resize_file(file, 100);
  EXPECT_THROW(MappedReplayProgram{file}, std::runtime_error);
  std::filesystem::remove(file);
}

// Found by fuzzing (tests/fuzz/replay_program_fuzz.cpp): the replay runs a mapped program's ops as
// they are, so the loader refuses a file whose ops name a slot beyond the program's slots, are of
// an unknown kind, or lie misaligned; and a statistics size near 2^64 no longer wraps the size
// check around (the statistics were parsed from beyond the mapping).  The file's layout
// (replay_program.cpp): a 48-byte header holding the statistics' size at byte 32, then per thread
// 56 bytes whose fourth 64-bit field (byte 32) is the ops' offset; an op holds its slot at byte 16
// and its kind at byte 24.
TEST(ReplayProgram, RefusesAFileTheReplayWouldRunOutOfBounds) {
  const ReplayProgram p = build_replay_program(two_threads(), 0);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("replay-program-bad-" + std::to_string(getpid()) + ".bin");
  save_replay_program(p, file);
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::uint64_t ops_offset = 0;
  std::memcpy(&ops_offset, bytes.data() + 48 + 32, sizeof ops_offset);
  auto refused = [&](std::size_t at, const void* value, std::size_t n) {
    std::string patched = bytes;
    std::memcpy(patched.data() + at, value, n);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << patched;
    try {
      MappedReplayProgram m(file);
      return false;
    } catch (const std::runtime_error& e) {
      return std::string(e.what()).find("not a valid replay program") != std::string::npos;
    }
  };
  const std::uint32_t beyond = p.slots;
  const std::uint8_t unknown_kind = 7;
  const std::uint64_t misaligned = ops_offset + 1;
  EXPECT_FALSE(refused(ops_offset + 16, &p.threads[0].ops[0].slot, sizeof beyond)) << "the unpatched file loads";
  EXPECT_TRUE(refused(ops_offset + 16, &beyond, sizeof beyond));
  EXPECT_TRUE(refused(ops_offset + 24, &unknown_kind, sizeof unknown_kind));
  EXPECT_TRUE(refused(48 + 32, &misaligned, sizeof misaligned));
  const std::uint64_t wrapping_stats = ~std::uint64_t{0};
  EXPECT_TRUE(refused(32, &wrapping_stats, sizeof wrapping_stats));
  std::filesystem::remove(file);
}

// Replays every thread of `p` on its own std::thread with backend A; returns the summed outcome.
// As in the cell, every thread's allocator outlives every thread (a block can move between
// per-thread instances through cross-thread frees).
template <class A>
ReplayThreadOutcome replay_all(const ReplayProgram& p, MemoryAccess access) {
  std::vector<std::atomic<void*>> blocks(p.slots);
  ReplayShared shared;
  shared.blocks = blocks.data();
  std::vector<ReplayThreadOutcome> outcomes(p.threads.size());
  std::vector<std::unique_ptr<A>> allocators;
  for (std::size_t i = 0; i < p.threads.size(); ++i) allocators.push_back(std::make_unique<A>(std::size_t(p.max_block_bytes)));
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < p.threads.size(); ++i)
    workers.emplace_back([&, i] { outcomes[i] = run_replay_thread(*allocators[i], p.threads[i].ops, shared, access); });
  for (auto& w : workers) w.join();
  for (std::size_t i = 0; i < p.threads.size(); ++i) release_replay_blocks(*allocators[i], shared, p.threads[i].live_at_end);
  ReplayThreadOutcome total;
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.failure, "");
    total.allocations += o.allocations;
    total.frees += o.frees;
    total.reallocations += o.reallocations;
  }
  // Every block produced was consumed once by the replay or released once at the end.
  std::uint64_t released = 0;
  for (const auto& t : p.threads) {
    released += t.live_at_end.size();
    for (const auto& b : t.live_at_end) EXPECT_EQ(blocks[b.slot].load(), nullptr) << "live block of slot " << b.slot << " not released";
  }
  EXPECT_EQ(total.allocations + total.reallocations, p.slots);
  EXPECT_EQ(total.frees + total.reallocations + released, p.slots);
  return total;
}

template <class A>
void replays_everything(MemoryAccess access) {
  const ReplayProgram p = build_replay_program(random_trace(3, 20000, 30), 0);
  ASSERT_GT(p.stats["cross_thread_consumes"].get<std::uint64_t>(), 1000u);
  const ReplayThreadOutcome o = replay_all<A>(p, access);
  EXPECT_EQ(o.allocations, p.stats["allocations"].get<std::uint64_t>());
  EXPECT_EQ(o.frees, p.stats["frees"].get<std::uint64_t>());
  EXPECT_EQ(o.reallocations, p.stats["reallocations"].get<std::uint64_t>());
}

TEST(ReplayLoop, CrossThreadFreesOnMallocWithContent) { replays_everything<ProcessMallocAllocator>(MemoryAccess::write_read); }
TEST(ReplayLoop, CrossThreadFreesOnPool) { replays_everything<PoolAllocator>(MemoryAccess::write_read); }
TEST(ReplayLoop, CrossThreadFreesOnVoid) { replays_everything<VoidAllocator>(MemoryAccess::none); }

TEST(ReplayLoop, HandCaseOnEveryBackendKind) {
  const ReplayProgram p = build_replay_program(two_threads(), 0);
  for (int round = 0; round < 2; ++round) {
    const ReplayThreadOutcome a = replay_all<ProcessMallocAllocator>(p, MemoryAccess::write_read);
    const ReplayThreadOutcome b = replay_all<PoolAllocator>(p, MemoryAccess::write_read);  // over-allocation for alignment 4096
    EXPECT_EQ(a.allocations, 5u);
    EXPECT_EQ(b.allocations, 5u);
    EXPECT_EQ(a.frees + b.frees, 6u);
  }
}

// Allocates with malloc and checks every free against the blocks it handed out: a block freed
// twice, or never, shows.  Shared by all worker threads (one instance, a mutex).
class LedgerAllocator {
 public:
  explicit LedgerAllocator(std::size_t) {}
  void* allocate(std::size_t n) {
    void* p = std::malloc(n);
    const std::lock_guard lock(mutex_);
    live_.insert(p);
    ++allocations_;
    return p;
  }
  void deallocate(void* p, std::size_t) {
    {
      const std::lock_guard lock(mutex_);
      if (live_.erase(p) != 1) ++bad_frees_;
    }
    std::free(p);
  }
  static constexpr std::string_view name() { return "ledger"; }
  std::size_t live() const { return live_.size(); }
  std::uint64_t allocations() const { return allocations_; }
  std::uint64_t bad_frees() const { return bad_frees_; }

 private:
  std::mutex mutex_;
  std::unordered_set<void*> live_;
  std::uint64_t allocations_ = 0, bad_frees_ = 0;
};

// A replay loop (the soak rounds of `replay`): after the first pass every worker replays its
// thread again, together, on the heap the last pass left.  Every pass replays the whole trace,
// cross-thread frees included (waits honour the cleared slot table), each pass after the first
// frees the blocks the one before left live, and after the release no block is live or was
// freed twice.
TEST(ReplayLoop, EveryPassReplaysTheWholeTraceOnTheSameHeap) {
  const ReplayProgram p = build_replay_program(random_trace(3, 5000, 30), 0);
  const std::size_t n = p.threads.size();
  std::uint64_t live_at_end = 0;
  for (const auto& t : p.threads) live_at_end += t.live_at_end.size();
  ASSERT_GT(live_at_end, 0u);
  std::vector<std::atomic<void*>> blocks(p.slots);
  std::barrier<> between_passes{std::ptrdiff_t(n)};
  ReplayShared shared;
  shared.blocks = blocks.data();
  shared.slots = p.slots;
  shared.between_passes = &between_passes;
  LedgerAllocator ledger(0);
  constexpr int kPasses = 4;
  std::vector<std::array<ReplayThreadOutcome, kPasses>> outcomes(n);
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < n; ++i)
    workers.emplace_back([&, i] {
      outcomes[i][0] = run_replay_thread(ledger, p.threads[i].ops, shared, MemoryAccess::write_read);
      for (int pass = 1; pass < kPasses; ++pass)
        outcomes[i][pass] = replay_thread_again(ledger, p.threads[i].ops, p.threads[i].live_at_end, shared, MemoryAccess::write_read, i, n);
    });
  for (auto& w : workers) w.join();
  EXPECT_EQ(ledger.live(), live_at_end);  // the last pass's
  for (std::size_t i = 0; i < n; ++i) release_replay_blocks(ledger, shared, p.threads[i].live_at_end);
  EXPECT_EQ(ledger.live(), 0u);
  EXPECT_EQ(ledger.bad_frees(), 0u);
  EXPECT_EQ(ledger.allocations(), kPasses * (p.stats["allocations"].get<std::uint64_t>() + p.stats["reallocations"].get<std::uint64_t>()));
  std::uint64_t first_checksum = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    ReplayThreadOutcome total;
    for (std::size_t i = 0; i < n; ++i) {
      const ReplayThreadOutcome& o = outcomes[i][pass];
      EXPECT_EQ(o.failure, "") << "pass " << pass << ", worker " << i;
      total.allocations += o.allocations;
      total.frees += o.frees;
      total.reallocations += o.reallocations;
      total.read_checksum += o.read_checksum;
    }
    EXPECT_EQ(total.allocations, p.stats["allocations"].get<std::uint64_t>()) << "pass " << pass;
    EXPECT_EQ(total.reallocations, p.stats["reallocations"].get<std::uint64_t>()) << "pass " << pass;
    EXPECT_EQ(total.frees, p.stats["frees"].get<std::uint64_t>() + (pass > 0 ? live_at_end : 0)) << "pass " << pass;
    first_checksum = pass == 0 ? total.read_checksum : first_checksum;
    EXPECT_EQ(total.read_checksum, first_checksum) << "pass " << pass << " read back other contents";
  }
}

}  // namespace
}  // namespace allocstress
