// Workloads `phase-ramp`, `phase-plateau`, `phase-peak`: the live heap follows a shape over time,
// so that the results show which allocators give memory back to the OS after a peak, and how fast.
//
// Model.  Each worker thread follows a target curve of live requested bytes over its operation
// clock t = 0..N-1 (N = iterations_per_thread), with L = live_bytes / threads:
//   ramp     target(t) = L t / N: grows steadily to L at the end.
//   plateau  grows linearly to L over the first R = max(N/10, L / (0.75 mean)) ops, then holds L.
//   peak     `peaks` cycles of "grow to L, then drop to low = (1 - drop_share) L", then a final
//            growth to L at op N: the "document opened and closed" pattern.
// One rule drives every op: if live < target(t) (or nothing is live) allocate a block (size from
// the size model, one 64-bit draw; written whole unless access = none), else free a uniformly
// random live block (one 64-bit draw; read back whole first with access = write_read).  So at a
// steady target the heap churns around it, and a rising target grows it with churn.  A drop sets
// the target to `low` at once: the thread frees blocks until live < low, and the growth that
// follows starts there.  Which blocks (drop_order): random, uniformly (it keeps the live sizes
// distributed as the size model, but with small blocks every page keeps some live ones), or
// newest (the default), the most recently allocated first (a document closed: the oldest survive).
// Blocks live in a harness array {block, size} mapped from the OS (cells/slot_array.hpp).
// With random drops a free swap-removes; with newest drops the array keeps allocation order: a
// free leaves a hole (size 0), random picks skip holes (redrawn), and the array is compacted
// (order kept) when holes exceed a quarter of it or it is full.  Live requested bytes never
// exceed L + the largest block; a drop stops at the free that takes live below low, so it
// overshoots by up to one block (with --sizes fleet, blocks reach 4 MiB).  Random frees read
// and free a random block of an L-byte heap: cycles per pair include those cache misses, so
// they are far above alloc-test's, whose Pareto slots keep the hot blocks in cache.
//
// Op budget (phase_params.hpp, make_phase_plan): a growth leg may ask for at most 0.75 mean blocks
// per op (at least one free per seven allocations); a drop is planned at its expected length
// (L - low) / mean ops and the growth legs share the rest in proportion to the bytes they grow;
// the growth after a drop starts where the drop actually ended and ends at its planned op (so a
// drop that took longer than expected makes the next growth a little steeper).  Plans that do
// not fit N are refused with the least N that fits.  Block array: 1.25 (L + largest block) / mean
// + 4096 entries (a live count beyond it is many standard deviations away); should it ever fill,
// the op frees instead of allocating and the record says how often.
//
// Checkpoints: where every thread meets the others at an untimed barrier and the process RSS and
// the threads' live bytes are read (ramp: N/2; plateau: end of the rise; peak: each peak and the
// end of each drop, then a pause of pause_ms with RSS sampled; cells/phases/phase_cell.cpp).
//
// The operation stream is a pure function of (parameters, seed, thread): same seed, same ops
// (op_stream_hash over (array index, malloc/free, size), as alloc-test), on every allocator.
// The void baseline runs the same stream: its cycles cover the rng, sizes, target bookkeeping,
// block array, writing and reading blocks (one cache-hot buffer) and the hash.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "workloads/alloc_test.hpp"
#include "workloads/phases/phase_params.hpp"

namespace allocstress {

// One thread's blocks: slots[0..count) are in use, of which `holes` are freed (size 0: newest
// drop order only); the rest of the array is unused.
struct PhaseBlocks {
  std::span<Slot> slots;
  std::size_t count = 0;
  std::size_t holes = 0;
  std::size_t live_blocks() const { return count - holes; }
};

struct PhaseThreadOutcome {
  AllocTestThreadOutcome ops;        // counts, peak/end live bytes, op_stream_hash, read checksum, failure
  std::uint64_t full_array_frees = 0;  // frees made because the block array was full (0 as planned)
  unsigned late_drops = 0;           // drops that ended after the next growth leg's planned end
};

// The loop's hooks, between operations (the cell times, samples RSS and meets other threads):
//   sample(t, live, stage)                  at t = 0, K, 2K, ... and at t = N (after the last op)
//   checkpoint(kind, ordinal, t, live)      when a leg with a checkpoint ends (ordinal from 1 per kind)
struct NoPhaseHooks {
  static constexpr void sample(std::uint64_t, std::uint64_t, PhaseStage) {}
  static constexpr void checkpoint(CheckpointKind, unsigned, std::uint64_t, std::uint64_t) {}
};

namespace detail {

// target(t) = from + floor((to - from) (t - start) / len), one step per op without division.
class LinearTarget {
 public:
  LinearTarget(std::uint64_t from, std::uint64_t to, std::uint64_t len)
      : value_(from), step_(len > 0 ? (to - from) / len : 0), rest_(len > 0 ? (to - from) % len : 0), len_(len) {}
  std::uint64_t value() const { return value_; }
  void advance() {
    value_ += step_;
    acc_ += rest_;
    if (acc_ >= len_) {
      acc_ -= len_;
      ++value_;
    }
  }

 private:
  std::uint64_t value_, step_, rest_, len_, acc_ = 0;
};

template <MemoryAccess kAccess, bool kNewestDrops, Allocator A, class Sizes, class Hooks>
class PhaseLoop {
 public:
  PhaseLoop(A& alloc, PhaseBlocks& blocks, const PhasePlan& plan, const Sizes& sizes, WorkloadRng& rng, Hooks& hooks)
      : alloc_(alloc), blocks_(blocks), plan_(plan), sizes_(sizes), rng_(rng), hooks_(hooks) {}

  PhaseThreadOutcome run() {
    unsigned ordinal[5] = {};
    std::uint64_t from = 0;
    PhaseStage stage = PhaseStage::grow;
    for (const PhaseLeg& leg : plan_.legs) {
      stage = leg.stage;
      const bool ok = leg.stage == PhaseStage::drop ? drop_to(leg.to_bytes) : follow(from, leg);
      if (!ok) break;  // an allocation failed: out_.ops.failed_allocation_bytes says which
      if (leg.checkpoint != CheckpointKind::none) hooks_.checkpoint(leg.checkpoint, ++ordinal[int(leg.checkpoint)], t_, live_);
      from = leg.to_bytes;
      after_drop_ = leg.stage == PhaseStage::drop;
    }
    hooks_.sample(t_, live_, stage);
    out_.ops.end_live_requested_bytes = live_;
    return out_;
  }

  // `ops` more ops of the rule at the last leg's target, continuing from `carry` (a run()'s
  // outcome, or a previous hold's), with no samples and no checkpoints.
  PhaseThreadOutcome hold(std::uint64_t ops, const PhaseThreadOutcome& carry) {
    out_ = carry;
    live_ = carry.ops.end_live_requested_bytes;
    t_ = plan_.ops;
    next_sample_ = ~std::uint64_t{0};
    const std::uint64_t target = plan_.legs.empty() ? 0 : plan_.legs.back().to_bytes;
    follow(target, PhaseLeg{t_ + ops, target, PhaseStage::hold, CheckpointKind::none});
    out_.ops.end_live_requested_bytes = live_;
    return out_;
  }

 private:
  void sample_if_due(PhaseStage stage) {
    if (t_ == next_sample_) [[unlikely]] {
      hooks_.sample(t_, live_, stage);
      next_sample_ += plan_.sample_every;
    }
  }

  // A growth or hold leg: the rule, from op t_ to the leg's planned end.
  bool follow(std::uint64_t from, const PhaseLeg& leg) {
    if (after_drop_ && t_ >= leg.end) ++out_.late_drops;
    const std::uint64_t end = t_ > leg.end ? t_ : leg.end;
    LinearTarget target(from, leg.to_bytes, end - t_);
    for (; t_ < end; ++t_, target.advance()) {
      sample_if_due(leg.stage);
      if (live_ < target.value() || blocks_.live_blocks() == 0) {
        if (blocks_.count < blocks_.slots.size() || make_room()) {
          if (!allocate()) return false;
          continue;
        }
        ++out_.full_array_frees;
      }
      free_random();
    }
    return true;
  }

  // A drop: free blocks until live < low (or nothing is live); never beyond op N.
  bool drop_to(std::uint64_t low) {
    for (; t_ < plan_.ops && live_ >= low && blocks_.live_blocks() > 0; ++t_) {
      sample_if_due(PhaseStage::drop);
      if constexpr (kNewestDrops) {
        while (blocks_.slots[blocks_.count - 1].size == 0) --blocks_.count, --blocks_.holes;
        free_at(blocks_.count - 1);
        --blocks_.count;
      } else {
        free_random();
      }
    }
    return true;
  }

  bool allocate() {
    const std::size_t size = sizes_.sample(rng_());
    NoObserver observer;
    void* block = detail::allocate_observed(alloc_, observer, size);
    if (block == nullptr) [[unlikely]] {
      out_.ops.failed_allocation_bytes = size;
      return false;
    }
    const std::size_t i = blocks_.count++;
    detail::write_block<kAccess>(block, size, static_cast<int>(i & 0xff));
    blocks_.slots[i] = Slot{block, size};
    live_ += size;
    if (live_ > out_.ops.peak_live_requested_bytes) out_.ops.peak_live_requested_bytes = live_;
    ++out_.ops.mallocs;
    out_.ops.op_stream_hash = detail::hash_op(out_.ops.op_stream_hash, i, true, size);
    return true;
  }

  std::size_t pick() {
    __extension__ using U128 = unsigned __int128;
    return std::size_t((U128{rng_()} * blocks_.count) >> 64);
  }

  void free_at(std::size_t i) {
    NoObserver observer;
    detail::free_counted<kAccess>(alloc_, observer, out_.ops, live_, blocks_.slots[i].block, blocks_.slots[i].size, i);
  }

  void free_random() {
    if constexpr (kNewestDrops) {
      std::size_t i = pick();
      while (blocks_.slots[i].size == 0) i = pick();
      free_at(i);
      blocks_.slots[i].size = 0;
      if (++blocks_.holes * 4 > blocks_.count) compact();
    } else {
      const std::size_t i = pick();
      free_at(i);
      blocks_.slots[i] = blocks_.slots[--blocks_.count];
    }
  }

  // Newest drop order: squeeze the holes out, keeping allocation order.
  void compact() {
    std::size_t j = 0;
    for (std::size_t i = 0; i < blocks_.count; ++i)
      if (blocks_.slots[i].size != 0) blocks_.slots[j++] = blocks_.slots[i];
    blocks_.count = j;
    blocks_.holes = 0;
  }
  bool make_room() {
    if (blocks_.holes == 0) return false;
    compact();
    return true;
  }

  A& alloc_;
  PhaseBlocks& blocks_;
  const PhasePlan& plan_;
  const Sizes& sizes_;
  WorkloadRng& rng_;
  Hooks& hooks_;
  PhaseThreadOutcome out_;
  std::uint64_t t_ = 0, live_ = 0, next_sample_ = 0;
  bool after_drop_ = false;
};

}  // namespace detail

// Runs one thread's plan on `blocks` (empty on entry; the live blocks stay there on return, for
// release_phase_blocks).  Nothing here allocates except through `alloc`.
namespace detail {
template <bool kNewestDrops, Allocator A, class Sizes, class Hooks>
PhaseThreadOutcome run_phase_loop(A& alloc, PhaseBlocks& blocks, const PhasePlan& plan, const Sizes& sizes, WorkloadRng& rng,
                                  MemoryAccess access, Hooks& hooks) {
  return with_memory_access(access, [&]<MemoryAccess kAccess>() {
    return PhaseLoop<kAccess, kNewestDrops, A, Sizes, Hooks>(alloc, blocks, plan, sizes, rng, hooks).run();
  });
}
}  // namespace detail

template <Allocator A, class Sizes, class Hooks = NoPhaseHooks>
PhaseThreadOutcome run_phase_thread(A& alloc, PhaseBlocks& blocks, const PhasePlan& plan, const Sizes& sizes, WorkloadRng& rng,
                                    MemoryAccess access, Hooks&& hooks = Hooks{}) {
  using H = std::remove_reference_t<Hooks>;
  if (plan.drop_order == PhaseDropOrder::newest) return detail::run_phase_loop<true, A, Sizes, H>(alloc, blocks, plan, sizes, rng, access, hooks);
  return detail::run_phase_loop<false, A, Sizes, H>(alloc, blocks, plan, sizes, rng, access, hooks);
}

// `ops` more ops holding the plan's final target on `blocks` after run_phase_thread (a soak,
// cells/modes/soak.hpp), continuing from its outcome `carry` (counts, live bytes, op hash).  The op
// stream goes on from `rng`; nothing is sampled.
template <Allocator A, class Sizes>
PhaseThreadOutcome hold_phase_thread(A& alloc, PhaseBlocks& blocks, const PhasePlan& plan, const Sizes& sizes, WorkloadRng& rng,
                                     MemoryAccess access, std::uint64_t ops, const PhaseThreadOutcome& carry) {
  NoPhaseHooks hooks;
  auto run = [&]<bool kNewestDrops>() {
    return with_memory_access(access, [&]<MemoryAccess kAccess>() {
      return detail::PhaseLoop<kAccess, kNewestDrops, A, Sizes, NoPhaseHooks>(alloc, blocks, plan, sizes, rng, hooks).hold(ops, carry);
    });
  };
  return plan.drop_order == PhaseDropOrder::newest ? run.template operator()<true>() : run.template operator()<false>();
}

// Frees every block still live (teardown, outside the measured phase).
template <Allocator A>
void release_phase_blocks(A& alloc, PhaseBlocks& blocks) {
  for (std::size_t i = 0; i < blocks.count; ++i)
    if (blocks.slots[i].size != 0) alloc.deallocate(blocks.slots[i].block, blocks.slots[i].size);
  blocks.count = blocks.holes = 0;
}

}  // namespace allocstress
