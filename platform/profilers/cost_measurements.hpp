// This machine's costs, measured (docs/methodology.md, "Counts tier: the machine's costs"): what
// the counts tier's model (platform/machine_costs.hpp) charges for an instruction, a cache or
// RAM access beyond L1, a page fault and each memory system call.  All in cycle-counter ticks
// (tsc.hpp: rdtsc on x86-64), the unit of the timing tier's cycles/pair, so that the model's
// estimate and the clock are the same kind of number.
//
// Every cost is a batch timed as a whole (the TSC ticks in ~10 ns steps on some VMs), divided by
// the batch's operations.  The costs are measured in `repeats` interleaved rounds, one batch of
// each per round after one warm-up batch each, so that a slow drift of the host moves every cost
// a little rather than one cost a lot; the median and its distribution-free interval
// (platform/statistics.hpp median_interval) are stored.
//   cycles_per_instruction  an x86-64 loop of exactly 27 instructions per iteration shaped like an
//                           allocator's fast path (a size class drawn by xorshift, a call that pops
//                           the head of that class's free list and writes its header, a call that
//                           appends the block at the list's tail); n/a elsewhere.
//   l1/last_level/ram_latency  a dependent pointer chase over a random cyclic permutation of cache
//                           lines, after one untimed pass, at working sets of half the L1d, the
//                           geometric mean of the L1d and last-level sizes (callgrind's LL hits are
//                           mostly L2 hits where there is an L2), and 8 x the last level (>= 64 MiB).
//   minor_fault             first write to each page of a fresh private anonymous mapping
//                           (hugepages refused with MADV_NOHUGEPAGE): the fault and the zeroing.
//   mmap, munmap            one call each for a mapping of kCostPages untouched pages.
//   madvise                 MADV_DONTNEED of kCostPages pages just written (their freeing included).
//   brk                     sbrk growth by kCostPages pages, and the shrink that undoes it.
//   mprotect                kCostPages pages in the middle of a mapping of 3 x kCostPages, read-only
//                           and back: each call splits the mapping or merges it back.
//   mremap                  one call on a kCostPages-page mapping, grown to twice and back, moving.
//   syscall                 FUTEX_WAKE with no waiter: the cost of entering the kernel and leaving,
//                           charged for futex calls and any other.
//   lines_per_page          {"value": page size / cache line}: not measured, the machine's geometry.
#pragma once

#include <nlohmann/json.hpp>

namespace allocstress {

inline constexpr unsigned kCostPages = 16;  // pages per mapping in the system-call costs (64 KiB)

// The "costs" object of a machine-costs file: one entry per cost, each {median, low, high,
// level, repeats, unit, method} or {"n/a": why}.  Takes a few seconds; run on a quiet host.
nlohmann::json measure_machine_costs(unsigned repeats);

}  // namespace allocstress
