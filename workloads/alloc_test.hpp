// Workload `alloc-test` (BACKGROUND §1, the 2018 study "Testing Memory Allocators").
// Model: each worker thread owns an array of slots.  Every iteration picks a slot with the Pareto
// 80/20-six-times rule; an empty slot gets a block of a p ~ 1/size size, written whole (memset);
// a full slot has its block read back whole (the sum is kept live) and freed.  Only malloc/free;
// threads never free each other's blocks.  The operation stream is a pure function of
// (parameters, seed, thread index) and does not depend on the allocator: same seed, same ops.
// Not reproduced: calloc/realloc, cross-thread frees, phases, sizes beyond 2^E, the study's
// piecewise-linear in-bucket size shapes (ours are uniform per bucket).  With `--sizes fleet` the
// sizes come from the fleet table instead (fleet_size_sampler.hpp); everything else is the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "../allocators/allocator.hpp"
#include "pareto_slot_picker.hpp"
#include "size_model.hpp"
#include "workload_rng.hpp"

namespace allocstress {

// What a workload does with the blocks it gets: nothing; `touch`: one byte written in every 4 KiB
// page a block spans, so that every block is resident and counts in the RSS (as fleetbench
// touches each allocation) at a cost that does not grow with the block's bytes; `write`: every
// byte written; `write_read`: every byte written, and read back whole before the block is freed
// (the alloc-test model).
enum class MemoryAccess { none, touch, write, write_read };

std::string_view to_string(MemoryAccess access);
// Throws std::invalid_argument naming the accepted spellings (none, touch, write, write_read).
MemoryAccess parse_memory_access(std::string_view text);

// f.template operator()<kAccess>() with `access` as the template argument kAccess: the one place
// every workload turns its runtime access mode into its loop's compile-time one.
template <class F>
decltype(auto) with_memory_access(MemoryAccess access, F&& f) {
  switch (access) {
    case MemoryAccess::none: return f.template operator()<MemoryAccess::none>();
    case MemoryAccess::touch: return f.template operator()<MemoryAccess::touch>();
    case MemoryAccess::write: return f.template operator()<MemoryAccess::write>();
    case MemoryAccess::write_read: break;
  }
  return f.template operator()<MemoryAccess::write_read>();
}

struct AllocTestParams {
  std::uint64_t slots_total = 1u << 20;        // split equally across threads
  unsigned max_size_exp = 16;                  // E: sizes < 2^E
  std::uint64_t iterations_per_thread = 1'000'000;
  MemoryAccess access = MemoryAccess::write_read;
  std::uint64_t seed = 1;
  unsigned threads = 1;
  SizeModel sizes = SizeModel::inverse;        // inverse: p ~ 1/size below 2^E; fleet, fit: E does not apply
  std::vector<ValueRange> size_table;          // fit: the rows sizes are drawn from (a fit file's sizes)

  std::uint64_t slots_per_thread() const { return slots_total / threads; }
};

// Upper bounds: the slot picker's multiply-shift needs groups below 2^32 slots (2^32 slots are
// 64 GiB of harness memory anyway); 1e12 iterations are days of work per cell.
inline constexpr std::uint64_t kMaxSlotsPerThread = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kMaxIterationsPerThread = 1'000'000'000'000;

// Throws std::invalid_argument with one line naming the bad parameter and the accepted range.
void validate(const AllocTestParams& params);

// One slot: the block it holds (if size != 0) and that block's requested size.
struct Slot {
  void* block;
  std::uint64_t size;  // 0 = empty; sizes are >= 4, so 0 is never a real size
};

// What one worker thread did.  All counts are exact.
struct AllocTestThreadOutcome {
  std::uint64_t mallocs = 0;
  std::uint64_t frees = 0;
  std::uint64_t peak_live_requested_bytes = 0;
  std::uint64_t end_live_requested_bytes = 0;
  // Over (slot, op, size) of every op.  Computed inside the loop (one xor-multiply per op, no
  // memory traffic) so that every record proves which stream it measured; the void baseline
  // pays the same cost, so it cancels out of net figures.
  std::uint64_t op_stream_hash = 0xcbf29ce484222325ULL;
  std::uint64_t read_checksum = 0;   // sum of every word read back; keeps the reads live
  std::uint64_t failed_allocation_bytes = 0;  // != 0: allocate() returned nullptr for this size
};

// The loop's hook for profiling (cells/profiling/latency_profile.hpp): begin_op() before each
// operation returns a start token (0 = this operation is not timed), end_malloc/end_free after
// it.  NoObserver compiles to nothing, so timing runs pay no cost.
struct NoObserver {
  static constexpr std::uint64_t begin_op() { return 0; }
  static constexpr void end_malloc(std::uint64_t, void*, std::size_t) {}
  static constexpr void end_free(std::uint64_t, void*, std::size_t) {}
};

namespace detail {

inline std::uint64_t hash_op(std::uint64_t h, std::size_t slot, bool is_malloc, std::uint64_t size) {
  return (h ^ (std::uint64_t{slot} << 1 | std::uint64_t{is_malloc}) ^ (size << 40)) * 0x100000001b3ULL;
}

inline std::uint64_t read_block(const void* block, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(block);
  std::uint64_t sum = 0;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    sum += word;
  }
  for (; i < bytes; ++i) sum += p[i];
  return sum;
}

inline constexpr std::size_t kTouchStride = 4096;  // MemoryAccess::touch writes one byte per page of this size

// Writes a block just allocated as kAccess says (see MemoryAccess), every written byte = `fill`.
template <MemoryAccess kAccess>
inline void write_block(void* block, std::size_t size, int fill) {
  if constexpr (kAccess == MemoryAccess::touch) {
    // volatile: the stores must happen although nothing reads them back
    auto* p = static_cast<volatile unsigned char*>(block);
    const auto first = reinterpret_cast<std::uintptr_t>(block);
    p[0] = static_cast<unsigned char>(fill);
    for (std::uintptr_t page = (first | (kTouchStride - 1)) + 1; page < first + size; page += kTouchStride)
      p[page - first] = static_cast<unsigned char>(fill);
  } else if constexpr (kAccess != MemoryAccess::none) {
    std::memset(block, fill, size);
  }
}

// The allocation call every alloc-test-family loop shares, with the observer around it.
template <Allocator A, class Observer>
inline void* allocate_observed(A& alloc, Observer& observer, std::size_t size) {
  const std::uint64_t token = observer.begin_op();
  void* block = alloc.allocate(size);
  observer.end_malloc(token, block, size);
  return block;
}

// Allocate `size` bytes for `slot` (observer around the call), write the block as kAccess says
// (fill = the slot's low byte), count it.  Returns {block, size}, or {nullptr, 0} when the
// allocator refused (recorded in out.failed_allocation_bytes).
template <MemoryAccess kAccess, Allocator A, class Observer>
inline Slot allocate_counted(A& alloc, Observer& observer, std::size_t size, AllocTestThreadOutcome& out, std::uint64_t& live,
                             std::size_t slot) {
  void* block = allocate_observed(alloc, observer, size);
  if (block == nullptr) [[unlikely]] {
    out.failed_allocation_bytes = size;
    return Slot{nullptr, 0};
  }
  write_block<kAccess>(block, size, static_cast<int>(slot & 0xff));
  live += size;
  out.peak_live_requested_bytes = live > out.peak_live_requested_bytes ? live : out.peak_live_requested_bytes;
  ++out.mallocs;
  out.op_stream_hash = hash_op(out.op_stream_hash, slot, true, size);
  return Slot{block, size};
}

// The malloc step of the slot loops (alloc-test, xthread, larson): draw a size, then allocate_counted.
template <MemoryAccess kAccess, Allocator A, class Observer, class Sizes>
inline Slot malloc_counted(A& alloc, Observer& observer, const Sizes& sizes, WorkloadRng& rng, AllocTestThreadOutcome& out,
                           std::uint64_t& live, std::size_t slot) {
  return allocate_counted<kAccess>(alloc, observer, sizes.sample(rng()), out, live, slot);
}

// The free step every alloc-test-family loop shares (alloc-test, fitted): read the block back
// (write_read), free it with the observer around the call, and count it in `out` and `live`.
template <MemoryAccess kAccess, Allocator A, class Observer>
inline void free_counted(A& alloc, Observer& observer, AllocTestThreadOutcome& out, std::uint64_t& live, void* block,
                         std::uint64_t size, std::size_t slot) {
  if constexpr (kAccess == MemoryAccess::write_read) out.read_checksum += read_block(block, size);
  const std::uint64_t token = observer.begin_op();
  alloc.deallocate(block, size);
  observer.end_free(token, block, size);
  live -= size;
  ++out.frees;
  out.op_stream_hash = hash_op(out.op_stream_hash, slot, false, size);
}

// `iterations` more iterations, continuing from the state in `out` and `live` (the slots hold the
// blocks): a loop run in parts is the same op stream as the loop run in one go.  Returns false
// when the allocator refused (the loop stops there).
template <MemoryAccess kAccess, Allocator A, class Sizes, class Observer>
bool run_loop(A& alloc, std::span<Slot> slots, const ParetoSlotPicker& picker, const Sizes& sizes, WorkloadRng& rng,
              std::uint64_t iterations, Observer& observer, AllocTestThreadOutcome& out, std::uint64_t& live) {
  for (std::uint64_t i = 0; i < iterations; ++i) {
    const std::size_t s = picker.pick(rng());
    Slot& slot = slots[s];
    if (slot.size == 0) {
      slot = malloc_counted<kAccess>(alloc, observer, sizes, rng, out, live, s);
      if (slot.size == 0) [[unlikely]]
        return false;
    } else {
      free_counted<kAccess>(alloc, observer, out, live, slot.block, slot.size, s);
      slot.size = 0;
    }
  }
  out.end_live_requested_bytes = live;
  return true;
}

}  // namespace detail

// The same loop as run_alloc_test_thread in `segments` consecutive parts of iterations / segments
// each (the last also takes the remainder), calling segment_end(k, outcome so far) after part k
// (k = 0 .. segments - 1): the timing tier reads the cycle counter there to see the variance
// within one process.  The op stream is the one of a single call.  pre: segments >= 1.
template <Allocator A, class Sizes, class SegmentEnd, class Observer = NoObserver>
AllocTestThreadOutcome run_alloc_test_segments(A& alloc, std::span<Slot> slots, const ParetoSlotPicker& picker, const Sizes& sizes,
                                               WorkloadRng& rng, std::uint64_t iterations, MemoryAccess access, unsigned segments,
                                               SegmentEnd&& segment_end, Observer&& observer = Observer{}) {
  return with_memory_access(access, [&]<MemoryAccess kAccess>() {
    AllocTestThreadOutcome out;
    std::uint64_t live = 0;
    for (unsigned k = 0; k < segments; ++k) {
      const std::uint64_t n = iterations / segments + (k + 1 == segments ? iterations % segments : 0);
      if (!detail::run_loop<kAccess>(alloc, slots, picker, sizes, rng, n, observer, out, live)) break;
      segment_end(k, out);
    }
    out.end_live_requested_bytes = live;
    return out;
  });
}

// Runs `iterations` alloc-test iterations of one worker thread on `slots` (all empty on entry).
// The caller times this call; nothing here allocates except through `alloc`.  `observer` sees
// every operation (profile runs); the operation stream does not depend on it.  `sizes` is an
// InverseSizeSampler or a FleetSizeSampler (size_model.hpp).
template <Allocator A, class Sizes, class Observer = NoObserver>
AllocTestThreadOutcome run_alloc_test_thread(A& alloc, std::span<Slot> slots, const ParetoSlotPicker& picker,
                                             const Sizes& sizes, WorkloadRng& rng,
                                             std::uint64_t iterations, MemoryAccess access, Observer&& observer = Observer{}) {
  return run_alloc_test_segments(alloc, slots, picker, sizes, rng, iterations, access, 1, [](unsigned, const AllocTestThreadOutcome&) {},
                                 observer);
}

// Frees every block still held in `slots` (teardown, outside the measured phase), whoever
// allocated it, with `alloc`.  SlotT: Slot, or any slot with `block` and `size` (0 = empty).
template <Allocator A, class SlotT>
void release_all_slots(A& alloc, std::span<SlotT> slots) {
  for (SlotT& slot : slots) {
    if (slot.size != 0) alloc.deallocate(slot.block, slot.size);
    slot.size = 0;
  }
}

}  // namespace allocstress
