// Workload `fleet-profile`: one of ten allocation profiles measured on a production fleet
// (workloads/fleet/profiles/, Apache-2.0: size, relative allocation rate and relative live count
// per allocation size), driven through any allocator.
//
// Model.  The profile is scaled to a heap H of live requested bytes (split equally over the
// threads, Ht = H / threads): size i keeps n_i live blocks, n_i the profile's live count times
// Ht / Σ size_j live_j, rounded cumulatively in size order (round(C_i) - round(C_{i-1}) with C the
// running sum), so that every range of consecutive sizes -- every bin of a size histogram -- holds
// its share of the live count to within one block.  Sizes above Ht / 8 are left out (a single
// block would be an eighth of the heap); the plan says what share of the profile's allocations and
// live bytes they carried.
// Each worker thread then runs, in its timed loop:
//   build  every live block allocated once, in a shuffled order of the sizes (each size reaches
//          its live count when the build ends, all of them together);
//   churn  `iterations` operations: a size is drawn by its allocation rate (alias table, one
//          64-bit draw); with n_i > 0 a uniformly chosen live block of that size is read back and
//          freed and a new block of the same size allocated in its place (so every live count
//          stays exact and lifetimes follow Little's law, n_i / rate_i); with n_i = 0 the block is
//          allocated, written, read back and freed at once.
// Blocks are written whole and read back whole before they are freed (alloc-test's write_read).
// The op stream is a pure function of (profile, heap, threads, iterations, seed, thread): the
// same on every allocator, the void baseline included.
// Not reproduced: the fleet's threads, the ordering of real programs' requests, sizes above
// Ht / 8, calloc/realloc/aligned calls, cross-thread frees; lifetimes within one size are
// memoryless (the victim is uniform).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/alias_table.hpp"
#include "workloads/alloc_test.hpp"

namespace allocstress {

inline constexpr unsigned kFleetProfileCount = 10;
// A block above this share of a thread's heap is left out of the plan (see the file comment).
inline constexpr std::uint64_t kFleetProfileMaxBlockDivisor = 8;

struct FleetProfileRow {
  std::uint64_t size = 0;
  double rate = 0;  // relative rate of malloc(size)
  double live = 0;  // relative count of live blocks of this size at steady state
};

struct FleetProfile {
  unsigned index = 0;
  std::vector<FleetProfileRow> rows;  // sizes ascending, each once
  std::uint64_t heap_bytes = 0;       // the live heap the profile was measured at (heap_size.csv)
};

// Parses a profile's text (lines "size, rate, live"; sizes ascending and distinct after sorting,
// rates and live counts >= 0).  Throws std::invalid_argument naming `what`, the line and the fault.
std::vector<FleetProfileRow> parse_fleet_profile_csv(std::string_view text, const std::string& what);
// Profile k (0..9) of the shipped data, parsed once.  Throws std::invalid_argument for another k.
const FleetProfile& fleet_profile(unsigned k);

// One thread's share of a profile at a chosen heap (see the file comment).  Shared read-only by
// every worker: all threads run the same plan with their own random streams.
struct FleetProfilePlan {
  std::vector<std::uint64_t> sizes;       // the kept rows' sizes, ascending
  std::vector<std::uint64_t> live;        // live blocks per kept row
  std::vector<std::uint64_t> first_slot;  // row i's blocks are slots first_slot[i] .. + live[i]
  std::vector<std::uint32_t> slot_row;    // the row of every slot
  std::vector<AliasColumn> rate_columns;  // kept rows drawn by allocation rate
  std::uint64_t slots = 0;                // Σ live
  std::uint64_t live_bytes = 0;           // Σ size x live: the thread's live requested bytes
  std::uint64_t max_block = 0;            // sizes above this were left out
  double left_out_rate_share = 0;         // the left-out rows' share of the profile's allocations
  double left_out_live_bytes_share = 0;   // ... and of its live bytes

  // Row drawn by its allocation rate from 32 random bits.
  std::size_t draw_row(std::uint32_t bits) const {
    const std::uint64_t x = std::uint64_t(bits) * rate_columns.size();
    const AliasColumn& c = rate_columns[std::size_t(x >> 32)];
    return std::uint32_t(x) < c.threshold ? std::size_t(x >> 32) : c.alias;
  }
};

// pre: thread_heap_bytes > 0.  Throws std::invalid_argument when the heap holds no block of the
// profile (every size above its eighth) or the plan would need 2^32 slots or more.
FleetProfilePlan make_fleet_profile_plan(const FleetProfile& profile, std::uint64_t thread_heap_bytes);

// The build order of one thread: every slot index once, shuffled by `rng` (Fisher-Yates).
void shuffle_build_order(std::span<std::uint32_t> order, WorkloadRng& rng);


// `n` churn operations on the live blocks in `slots`, continuing `out` and `live`: each draws a
// size row by its allocation rate and replaces a random live block of that row (a row with no
// live block allocates and frees at once).  Returns false, with out.failed_allocation_bytes set,
// when the allocator refuses a block.
template <MemoryAccess kAccess, Allocator A>
bool run_fleet_churn(A& alloc, const FleetProfilePlan& plan, std::span<Slot> slots, WorkloadRng& rng, std::uint64_t n,
                     AllocTestThreadOutcome& out, std::uint64_t& live) {
  NoObserver observer;
  const std::size_t transient = plan.slots;  // the op hash's slot for blocks freed at once
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t bits = rng();
    const std::size_t row = plan.draw_row(std::uint32_t(bits));
    const std::uint64_t count = plan.live[row];
    if (count == 0) {
      const Slot block = detail::allocate_counted<kAccess>(alloc, observer, plan.sizes[row], out, live, transient);
      if (block.size == 0) [[unlikely]]
        return false;
      detail::free_counted<kAccess>(alloc, observer, out, live, block.block, block.size, transient);
      continue;
    }
    const std::size_t s = plan.first_slot[row] + std::size_t(((bits >> 32) * count) >> 32);
    detail::free_counted<kAccess>(alloc, observer, out, live, slots[s].block, slots[s].size, s);
    if ((slots[s] = detail::allocate_counted<kAccess>(alloc, observer, plan.sizes[row], out, live, s)).size == 0) [[unlikely]]
      return false;
  }
  out.end_live_requested_bytes = live;
  return true;
}

// One worker's timed loop: the build (in `order`), then `iterations` churn operations in
// `segments` equal parts; segment_end(k, outcome so far) after the build (k = 0) and after each
// churn part (k = 1 .. segments).  `slots` (plan.slots of them) are empty on entry and hold the
// live blocks on return.  Returns early, with out.failed_allocation_bytes set, when the
// allocator refuses a block.
template <MemoryAccess kAccess, Allocator A, class SegmentEnd>
AllocTestThreadOutcome run_fleet_profile_thread(A& alloc, const FleetProfilePlan& plan, std::span<Slot> slots,
                                                std::span<const std::uint32_t> order, WorkloadRng& rng, std::uint64_t iterations,
                                                unsigned segments, SegmentEnd&& segment_end) {
  AllocTestThreadOutcome out;
  NoObserver observer;
  std::uint64_t live = 0;
  for (const std::uint32_t s : order)
    if ((slots[s] = detail::allocate_counted<kAccess>(alloc, observer, plan.sizes[plan.slot_row[s]], out, live, s)).size == 0) [[unlikely]]
      return out;
  out.end_live_requested_bytes = live;
  segment_end(0u, out);
  for (unsigned k = 1; k <= segments; ++k) {
    const std::uint64_t n = iterations / segments + (k == segments ? iterations % segments : 0);
    if (!run_fleet_churn<kAccess>(alloc, plan, slots, rng, n, out, live)) return out;
    segment_end(k, out);
  }
  return out;
}

}  // namespace allocstress
