// Workload `replay` (BACKGROUND §5, Steve): a program's recorded allocation stream, replayed
// against an allocator.
//
// Model: a trace (trace/trace_format.hpp) is turned beforehand (workloads/replay/replay_program.hpp) into
// one operation list per recorded thread.  Every block lifetime of the trace gets a slot: an
// allocation (or realloc) produces a slot's block, a free (or realloc) consumes it.  Worker
// thread i replays the recorded thread i's operations in their recorded order.  A block freed by
// another thread than the one that allocated it is the only synchronisation: the consuming
// operation carries `wait` and spins (then yields) until the producer has published the block,
// so the replay follows the recorded happens-before order and cannot deadlock (the recording
// itself is an order in which every wait was already satisfied).
//
// Memory access (MemoryAccess, workloads/alloc_test.hpp): `touch` (the default) writes one byte in
// every page of every produced block, so that the RSS counts what the program allocated (a trace
// does not say what the program touched; untouched blocks made allocators that reserve without
// touching look leaner than the heap they give out); `write` writes every produced block whole,
// `write_read` also reads every block back whole before it is consumed; `none` only allocates.  calloc, realloc and
// aligned requests go to the allocator's own calloc/realloc/posix_memalign when it has them
// (drop-in allocators, the void baseline); in-tree backends without them get the emulation a
// program would need: allocate + memset, allocate + copy + deallocate, and alignments above 16
// by over-allocating `size + alignment` and aligning inside the block.
#pragma once

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <thread>

#include "allocators/allocator.hpp"
#include "workloads/alloc_test.hpp"

namespace allocstress {

enum class ReplayOpKind : std::uint8_t { allocate, allocate_zeroed, free, reallocate };

// One operation (32 bytes).  Sizes are >= 1 (a recorded size 0 is replayed as 1).
struct ReplayOp {
  std::uint64_t size;      // allocate*/reallocate: bytes requested; free: the block's requested size
  std::uint64_t old_size;  // reallocate: the consumed block's requested size
  std::uint32_t slot;      // allocate*/reallocate: the slot produced; free: the slot consumed
  std::uint32_t old_slot;  // reallocate: the slot consumed
  ReplayOpKind kind;
  std::uint8_t wait;             // 1: the consumed slot is produced by another thread
  std::uint8_t align_log2;       // produced block's alignment (free: the consumed block's); 0 = default
  std::uint8_t old_align_log2;   // reallocate: the consumed block's alignment
  std::uint32_t reserved;
};
static_assert(sizeof(ReplayOp) == 32);

// Where the sampling thread takes an allocstats row: after its local operation `local_index`,
// which is operation `global_index` of the trace's merged (recorded) order, when the recorded
// live requested bytes were `used_bytes`.
struct ReplaySamplePoint {
  std::uint64_t local_index, global_index, used_bytes;
};

// One allocstats row as measured: the point, the TSC then and the process's RSS then.
struct ReplaySample {
  ReplaySamplePoint point;
  std::uint64_t tsc, rss_bytes;
};

struct ReplayThreadOutcome {
  std::uint64_t allocations = 0, frees = 0, reallocations = 0;
  std::uint64_t waits = 0;          // consuming ops whose block was not yet published when reached
  std::uint64_t read_checksum = 0;
  std::uint64_t failed_allocation_bytes = 0;  // != 0: the allocator returned nullptr for this size
  std::string failure;              // "" or why this thread stopped early
};

// State every worker shares: one published block pointer per slot, and the stop flag a failing
// worker raises so that no other worker waits for a block that will never come.
struct ReplayShared {
  std::atomic<void*>* blocks = nullptr;  // slot -> block (nullptr = not produced yet)
  std::atomic<bool> stop{false};
  // The teardown leaves every slot's address in place (a heap map reads them after the phase);
  // otherwise it clears the slots it frees.
  bool keep_addresses = false;
  // Replay loops (replay_thread_again): the number of slots, and a barrier with a place per worker.
  std::uint32_t slots = 0;
  std::barrier<>* between_passes = nullptr;
};

// Optional allocator capabilities used by the replay when present.
template <class A>
concept HasReallocate = requires(A& a, void* p, std::size_t n) {
  { a.reallocate(p, n, n) } -> std::same_as<void*>;
};
template <class A>
concept HasAlignedAllocate = requires(A& a, std::size_t n) {
  { a.allocate_aligned(n, n) } -> std::same_as<void*>;
};
template <class A>
concept HasZeroedAllocate = requires(A& a, std::size_t n) {
  { a.allocate_zeroed(n) } -> std::same_as<void*>;
};

namespace replay_detail {

inline constexpr unsigned kDefaultAlignLog2 = 4;  // alignof(max_align_t): every backend gives it

// In-tree backends without allocate_aligned over-allocate; the slot holds the base pointer.
template <Allocator A>
constexpr bool over_allocates(unsigned align_log2) {
  return !HasAlignedAllocate<A> && align_log2 > kDefaultAlignLog2;
}

template <Allocator A>
std::size_t footprint(std::uint64_t size, unsigned align_log2) {
  return over_allocates<A>(align_log2) ? std::size_t(size + (std::uint64_t{1} << align_log2)) : std::size_t(size);
}

template <Allocator A>
unsigned char* user_pointer(void* base, unsigned align_log2) {
  auto* p = static_cast<unsigned char*>(base);
  if (!over_allocates<A>(align_log2)) return p;
  const std::uintptr_t mask = (std::uintptr_t{1} << align_log2) - 1;
  return p + ((mask + 1 - (reinterpret_cast<std::uintptr_t>(p) & mask)) & mask);
}

template <Allocator A>
void* allocate(A& a, const ReplayOp& op) {
  if (op.align_log2 > kDefaultAlignLog2) {
    if constexpr (HasAlignedAllocate<A>) return a.allocate_aligned(op.size, std::size_t{1} << op.align_log2);
    else return a.allocate(footprint<A>(op.size, op.align_log2));
  }
  if (op.kind == ReplayOpKind::allocate_zeroed) {
    if constexpr (HasZeroedAllocate<A>) {
      return a.allocate_zeroed(op.size);
    } else {
      void* p = a.allocate(op.size);
      if (p != nullptr) std::memset(p, 0, op.size);
      return p;
    }
  }
  return a.allocate(op.size);
}

template <Allocator A>
void* reallocate(A& a, void* old_base, const ReplayOp& op) {
  if constexpr (HasReallocate<A>) {
    if (op.align_log2 <= kDefaultAlignLog2 && !over_allocates<A>(op.old_align_log2)) return a.reallocate(old_base, op.old_size, op.size);
  }
  void* fresh = allocate(a, op);
  if (fresh == nullptr) return nullptr;
  std::memcpy(user_pointer<A>(fresh, op.align_log2), user_pointer<A>(old_base, op.old_align_log2),
              std::size_t(op.size < op.old_size ? op.size : op.old_size));
  a.deallocate(old_base, footprint<A>(op.old_size, op.old_align_log2));
  return fresh;
}

// Waits until another thread publishes `slot`'s block, or until a worker stopped the replay (nullptr).
[[gnu::noinline]] inline void* wait_for(ReplayShared& shared, std::uint32_t slot, ReplayThreadOutcome& out) {
  ++out.waits;
  void* p = nullptr;
  for (unsigned spins = 0; (p = shared.blocks[slot].load(std::memory_order_acquire)) == nullptr; ++spins) {
    if (shared.stop.load(std::memory_order_relaxed)) return nullptr;
    if (spins < 256) __builtin_ia32_pause();
    else std::this_thread::yield();  // more replay threads than PUs: let the producer run
  }
  return p;
}

// The consumed slot's block: at once when this thread produced it, else once published.
[[gnu::always_inline]] inline void* take(ReplayShared& shared, std::uint32_t slot, bool wait, ReplayThreadOutcome& out) {
  void* p = shared.blocks[slot].load(std::memory_order_acquire);
  if (p != nullptr || !wait) [[likely]] return p;
  return wait_for(shared, slot, out);
}

template <MemoryAccess kAccess, Allocator A, class Sampler>
ReplayThreadOutcome run(A& a, std::span<const ReplayOp> ops, ReplayShared& shared, Sampler& sampler) {
  ReplayThreadOutcome out;
  auto fail = [&](std::string why) {
    out.failure = std::move(why);
    shared.stop.store(true, std::memory_order_relaxed);
  };
  auto produced = [&](const ReplayOp& op, void* block) {
    detail::write_block<kAccess>(user_pointer<A>(block, op.align_log2), std::size_t(op.size), int(op.slot & 0xff));
    shared.blocks[op.slot].store(block, std::memory_order_release);
  };
  // The allocator returned nullptr: the replay stops here, and every other worker with it.
  auto refused = [&](const char* what, std::uint64_t size) {
    out.failed_allocation_bytes = size;
    fail(what + std::to_string(size) + " bytes returned nullptr");
    return out;
  };
  // A consumed slot without a block: the replay was stopped by another worker, or the program is wrong.
  auto missing = [&](std::uint32_t slot) {
    if (out.failure.empty() && !shared.stop.load()) fail("replay program: slot " + std::to_string(slot) + " consumed before it was produced");
    return out;
  };
  auto consumed = [&](void* block, std::uint64_t size, unsigned align_log2) {
    if constexpr (kAccess == MemoryAccess::write_read) out.read_checksum += detail::read_block(user_pointer<A>(block, align_log2), size);
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const ReplayOp& op = ops[i];
    switch (op.kind) {
      case ReplayOpKind::allocate:
      case ReplayOpKind::allocate_zeroed: {
        void* block = allocate(a, op);
        if (block == nullptr) [[unlikely]]
          return refused("allocation of ", op.size);
        produced(op, block);
        ++out.allocations;
        break;
      }
      case ReplayOpKind::free: {
        void* block = take(shared, op.slot, op.wait != 0, out);
        if (block == nullptr) [[unlikely]]
          return missing(op.slot);
        consumed(block, op.size, op.align_log2);
        a.deallocate(block, footprint<A>(op.size, op.align_log2));
        ++out.frees;
        break;
      }
      case ReplayOpKind::reallocate: {
        void* old_block = take(shared, op.old_slot, op.wait != 0, out);
        if (old_block == nullptr) [[unlikely]]
          return missing(op.old_slot);
        consumed(old_block, op.old_size, op.old_align_log2);
        void* block = reallocate(a, old_block, op);
        if (block == nullptr) [[unlikely]]
          return refused("reallocation to ", op.size);
        produced(op, block);
        ++out.reallocations;
        break;
      }
    }
    sampler.after(i);
  }
  return out;
}

}  // namespace replay_detail

// Samples nothing; compiles to nothing.
struct NoReplaySampler {
  static constexpr void after(std::size_t) {}
};

// Replays one thread's operations on `a` (contract: file comment).  The caller times the call.
// `sampler.after(i)` runs after operation i (allocstats rows).
template <Allocator A, class Sampler = NoReplaySampler>
ReplayThreadOutcome run_replay_thread(A& a, std::span<const ReplayOp> ops, ReplayShared& shared, MemoryAccess access,
                                      Sampler&& sampler = Sampler{}) {
  return with_memory_access(access, [&]<MemoryAccess kAccess>() { return replay_detail::run<kAccess>(a, ops, shared, sampler); });
}

// A block the trace never frees: released by the thread that produced it, after the replay.
struct ReplayLiveBlock {
  std::uint64_t size;
  std::uint32_t slot;
  std::uint8_t align_log2;
  std::uint8_t reserved[3];
};
static_assert(sizeof(ReplayLiveBlock) == 16);

// Frees `blocks` (teardown, outside the measured phase), clearing their slots unless
// shared.keep_addresses (a slot is produced and consumed once, so its address stays readable).
// Returns how many it freed.
template <Allocator A>
std::uint64_t release_replay_blocks(A& a, ReplayShared& shared, std::span<const ReplayLiveBlock> blocks) {
  std::uint64_t freed = 0;
  for (const ReplayLiveBlock& b : blocks) {
    void* block = shared.keep_addresses ? shared.blocks[b.slot].load(std::memory_order_acquire) : shared.blocks[b.slot].exchange(nullptr);
    if (block == nullptr) continue;
    a.deallocate(block, replay_detail::footprint<A>(b.size, b.align_log2));
    ++freed;
  }
  return freed;
}

// A replay loop's next pass (a soak round of `replay`): the trace again, on the heap the last
// pass left.  Worker `worker` of `workers` frees the blocks its last pass left live, as the
// program's exit would (counted as frees of the pass: they are timed); when every worker has,
// it empties its share of the slot table; when every worker has, it replays its operations
// again, without allocstats rows.  Every worker calls it the same number of times, after one
// run_replay_thread (pre: shared.between_passes has a place per worker, shared.slots is the
// table's size).
template <Allocator A>
ReplayThreadOutcome replay_thread_again(A& a, std::span<const ReplayOp> ops, std::span<const ReplayLiveBlock> live_at_end, ReplayShared& shared,
                                        MemoryAccess access, std::size_t worker, std::size_t workers) {
  const std::uint64_t freed = release_replay_blocks(a, shared, live_at_end);
  shared.between_passes->arrive_and_wait();  // no block of the last pass is live; nobody reads a slot
  const std::uint64_t begin = std::uint64_t(shared.slots) * worker / workers, end = std::uint64_t(shared.slots) * (worker + 1) / workers;
  for (std::uint64_t slot = begin; slot < end; ++slot) shared.blocks[slot].store(nullptr, std::memory_order_relaxed);
  shared.between_passes->arrive_and_wait();  // the table is empty: every slot waits for its producer again
  ReplayThreadOutcome out = run_replay_thread(a, ops, shared, access);
  out.frees += freed;
  return out;
}

}  // namespace allocstress
