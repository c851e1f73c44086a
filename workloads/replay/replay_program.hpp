// A trace turned into what the replay workload executes (workloads/replay/replay_loop.hpp): per recorded
// thread, its operations with slots instead of addresses, the allocstats sample points, and the
// blocks still live at the end.
//
// Building (build_replay_program): the events of all threads are merged in TSC order (ties: thread
// index, then the thread's own order); every block of trace::BlockMatcher (trace/block_lifetimes.hpp,
// the one matching rule) is a slot, numbered as the matcher numbers blocks, and the free or realloc
// it matches ends it.  What a trace can contain that has no op:
//   - a free of an address never allocated in the trace (allocated before tracing started, or by
//     a path the tracer did not see): skipped, counted as `unmatched_frees`;
//   - free(NULL) and failed allocations (address 0): skipped, counted;
//   - an allocation returning an address that is still live in the trace (its free was not seen):
//     the old block is freed right before, by the allocating thread, counted as `implicit_frees`;
//   - realloc(NULL, n) is an allocation; realloc(p, 0) returning NULL is a free; a realloc of an
//     unknown address is an allocation (counted in `unmatched_reallocs`).
// The theoretical peak (`peak_live_requested_bytes`, Steve's "peakmem") is the maximum of live
// requested bytes over the merged order.
//
// On disk (save/load): the process building the program is never the one measuring; the cell
// maps the file read-only, so the program's memory is not allocated through the allocator under
// test and costs no page faults inside the measured phase.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "trace/trace_reader.hpp"
#include "workloads/replay/replay_loop.hpp"

namespace allocstress {

struct ReplayThreadProgram {
  std::uint32_t trace_thread = 0, tid = 0;
  std::vector<ReplayOp> ops;
  std::vector<ReplaySamplePoint> samples;
  std::vector<ReplayLiveBlock> live_at_end;
};

// When a block lifetime (a slot) begins and ends in the merged order: the index of the op that
// produced it and of the op that consumed it (kNeverConsumed: live at the end), and its size.
struct ReplaySlotSpan {
  static constexpr std::uint64_t kNeverConsumed = UINT64_MAX;
  std::uint64_t produced_at = 0, consumed_at = kNeverConsumed, size = 0;
};

struct ReplayProgram {
  std::vector<ReplayThreadProgram> threads;
  std::uint32_t slots = 0;
  std::uint64_t max_block_bytes = 1;  // the largest footprint any op asks for (void needs it)
  std::uint64_t allocstats_every = 0;
  nlohmann::json stats;  // counts of the conversion and the trace (see the file comment)
  std::vector<ReplaySlotSpan> slot_spans;  // slot -> its span; filled only when asked (heap maps), not saved
};

// Throws std::invalid_argument when the trace has no replayable operation or more block
// lifetimes than slots can number (2^32 - 1).  allocstats_every = 0: no sample points.
// slot_spans: also fill ReplayProgram::slot_spans (24 bytes per block lifetime).
ReplayProgram build_replay_program(const trace::TraceContents& trace, std::uint64_t allocstats_every, bool slot_spans = false);

// allocstats_every for a program of `ops` operations when the user gave none: about 200 rows,
// at least 10,000 operations apart (a row reads /proc/self/statm, a few microseconds).
std::uint64_t default_allocstats_every(std::uint64_t ops);

// Writes the program (NAME.partial, then renamed).  Throws std::runtime_error.
void save_replay_program(const ReplayProgram& program, const std::filesystem::path& path);

// A saved program mapped read-only.  The spans point into the mapping.
class MappedReplayProgram {
 public:
  struct Thread {
    std::uint32_t trace_thread, tid;
    std::span<const ReplayOp> ops;
    std::span<const ReplaySamplePoint> samples;
    std::span<const ReplayLiveBlock> live_at_end;
  };
  // Throws std::runtime_error naming the file when it is not a program written by save_replay_program.
  explicit MappedReplayProgram(const std::filesystem::path& path);
  ~MappedReplayProgram();
  MappedReplayProgram(const MappedReplayProgram&) = delete;
  MappedReplayProgram& operator=(const MappedReplayProgram&) = delete;

  const std::vector<Thread>& threads() const { return threads_; }
  std::uint32_t slots() const { return slots_; }
  std::uint64_t max_block_bytes() const { return max_block_bytes_; }
  std::uint64_t allocstats_every() const { return allocstats_every_; }
  const nlohmann::json& stats() const { return stats_; }

 private:
  void* map_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<Thread> threads_;
  std::uint32_t slots_ = 0;
  std::uint64_t max_block_bytes_ = 1, allocstats_every_ = 0;
  nlohmann::json stats_;
};

}  // namespace allocstress
