// What the events of a trace add up to (op counts, requested bytes, matched and unmatched frees,
// peak live requested bytes), in recorded order: `allocstress trace-info` prints it, the tests
// check importers against it.
#pragma once

#include <array>
#include <cstdint>

#include "trace/trace_reader.hpp"

namespace allocstress {

// What the events of a trace add up to, in timestamp order across threads.
//
// Model (the blocks are trace::BlockMatcher's, trace/block_lifetimes.hpp): a block is named by its address.  The events of all threads are merged by timestamp
// (ties: lower thread index first; each thread's own order is kept); an allocation makes its
// address live with its requested size, a free or a realloc's old block ends it, a realloc
// that returns an address starts a new block of the new size.  realloc(p, 0) returning NULL
// frees p (glibc).  A free (or a realloc's old block) whose address is not live is "unmatched":
// the trace never allocated it (allocated before tracing started, or by an untraced path).
// An allocation at an address that is still live means a free was missed: the old block is
// ended silently and counted in `allocations_over_live`.  Live bytes are requested bytes, not
// what the allocator used.
struct TraceTotals {
  std::array<std::uint64_t, std::size_t(trace::TraceOp::count)> ops{};  // events per op kind
  std::uint64_t events = 0;
  std::uint64_t allocations = 0;      // successful allocation-class calls
  std::uint64_t failed = 0;           // allocations and reallocs that returned NULL for a size > 0
  std::uint64_t requested_bytes = 0;  // Σ size of successful allocations and reallocs
  std::uint64_t frees_matched = 0, frees_unmatched = 0;  // frees and reallocs' old blocks
  std::uint64_t frees_null = 0;                         // free(NULL), delete of nullptr
  std::uint64_t allocations_over_live = 0;
  std::uint64_t peak_live_bytes = 0, peak_at_event = 0;  // event index (merged order, from 0) reaching the peak
  std::uint64_t live_bytes_at_end = 0, live_blocks_at_end = 0;
  std::uint64_t first_tsc = 0, last_tsc = 0;
};

TraceTotals trace_totals(const trace::TraceContents& contents);

}  // namespace allocstress
