// One worker thread of a phase cell (phase_cell.cpp; the model: workloads/phases/memory_phases.hpp).
//
// Timing.  run_measured_phase counts each worker's whole run(); a phase worker also waits at
// checkpoint barriers, sits through pauses and records series rows, none of which is allocator
// work.  So each worker counts its work segments itself (a TSC read at every boundary: series
// row, checkpoint), and those sums replace the measurement's worker cycles before the record is
// built.  Wall time, cpu_time (rusage), faults and peak RSS still cover the whole phase.
//
// RSS.  Worker 0 reads the process RSS (RssReader: one pread of /proc/self/statm, no allocation)
// at each of its series rows, between two segments, so the reading is never in the cycles
// (the replay's AllocstatsSampler counts its readings; here they fall between the TSC reads that
// close and reopen a segment).  At a checkpoint the thread that completes the barrier reads the
// RSS and sums the threads' live bytes while all others wait; after a drop it goes on sampling
// the RSS through the pause (every max(1, pause_ms / 100) ms: about 100 rows per pause).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allocators/in_tree_registry.hpp"
#include "cells/phases/phase_checkpoints.hpp"
#include "cells/slot_array.hpp"
#include "workloads/phases/memory_phases.hpp"

namespace allocstress {

struct PhaseWorkerResult {
  PhaseThreadOutcome outcome;
  std::uint64_t cycles = 0;     // work segments only
  std::uint64_t start_tsc = 0;  // 0: did not run
  std::vector<SeriesRow> rows;
};

// One phase worker thread on allocator A (contract: measured_phase.hpp).
template <Allocator A, class Sizes>
class PhaseWorker {
 public:
  PhaseWorker(std::size_t index, const PhasePlan& plan, const Sizes& sizes, const AllocTestParams& p, PhaseShared* shared)
      : index_(index), plan_(plan), sizes_(sizes), access_(p.access), rng_(make_thread_rng(p.seed, unsigned(index))), shared_(*shared) {}

  std::string setup() {
    try {
      array_.emplace(plan_.block_capacity);  // mapped and touched now: harness memory, part of "RSS before"
      blocks_.slots = array_->span();
      alloc_.emplace(sizes_.max_size());
      result.rows.reserve(plan_.series_rows());
      return "";
    } catch (const std::exception& e) {
      shared_.leave();  // the other threads must not wait for this one at the checkpoints
      return e.what();
    }
  }
  void run() {
    result.start_tsc = segment_ = cycle_counter_begin();
    result.outcome = run_phase_thread(*alloc_, blocks_, plan_, sizes_, rng_, access_, Hooks{*this});
    result.cycles += cycle_counter_end() - segment_;
    if (result.outcome.ops.failed_allocation_bytes != 0) shared_.leave();
  }
  // A soak round (measured_phase.hpp; phase-plateau only soaks): a tenth of the plan's ops more
  // of the hold, on the same blocks, with no series rows.
  bool soak_round() {
    const std::uint64_t c0 = cycle_counter_begin();
    result.outcome = hold_phase_thread(*alloc_, blocks_, plan_, sizes_, rng_, access_, std::max<std::uint64_t>(plan_.ops / 10, 1), result.outcome);
    result.cycles += cycle_counter_end() - c0;
    return result.outcome.ops.failed_allocation_bytes == 0;
  }
  void inspect() {}
  void release() { release_phase_blocks(*alloc_, blocks_); }

  PhaseWorkerResult result;

 private:
  struct Hooks {
    PhaseWorker& w;
    void sample(std::uint64_t t, std::uint64_t live, PhaseStage stage) {
      const std::uint64_t now = w.close_segment();
      w.result.rows.push_back({t, now, live, w.index_ == 0 ? w.shared_.rss().read() : 0, stage});
      w.segment_ = cycle_counter_begin();
    }
    void checkpoint(CheckpointKind, unsigned, std::uint64_t, std::uint64_t live) {
      w.close_segment();
      w.shared_.meet(w.index_, live);
      w.segment_ = cycle_counter_begin();
    }
  };
  std::uint64_t close_segment() {
    const std::uint64_t now = cycle_counter_end();
    result.cycles += now - segment_;
    return now;
  }

  std::size_t index_;
  const PhasePlan& plan_;
  const Sizes& sizes_;
  MemoryAccess access_;
  WorkloadRng rng_;
  PhaseShared& shared_;
  std::optional<SlotArray> array_;
  PhaseBlocks blocks_;
  std::optional<A> alloc_;
  std::uint64_t segment_ = 0;
};

}  // namespace allocstress
