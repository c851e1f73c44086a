// Block lifetimes of a trace: THE rule that matches frees and reallocs to the blocks they end,
// defined once.  Python's traces.block_lifetimes, the replay program, trace-info's totals and the
// fitted workload's fit all walk a trace with BlockMatcher, so they agree on which event ends
// which block; each keeps only its own counters and renderings of the steps.
//
// The model.  Events come in merged order (recorded_order.hpp; Python: the order read_trace
// gives).  A *block* is the result of a successful allocation (address != 0) or realloc; blocks
// are numbered from 0 in the order they start.  Frees and reallocs are matched to blocks by
// address, whatever thread made them:
//   allocation, address != 0        starts a block of `size` bytes at `address`
//   allocation, address == 0        failed: no block
//   free of a live address          ends that block (freed)
//   free(NULL)                      ignored (a null free)
//   free of an address not live     unmatched: freed memory the trace never saw allocated
//   realloc(old, n) -> new          ends the block at old (reallocated) and starts a block of n
//                                   bytes at new, also when new == old (in place)
//   realloc(NULL, n) -> new         starts a block, like malloc
//   realloc(old, 0) -> 0            ends the block at old (the C library freed it): reallocated
//   realloc(old, n > 0) -> 0        failed: the block at old stays live
//   realloc of an old not live      the old side is unmatched; the new block starts
//   an allocation returning an address that is still live
//                                   the earlier block is lost (its free was never seen): it ends
//                                   there, censored, before the new block starts
// Blocks still live when the trace ends are live at end (censored at the trace's end).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "trace/trace_format.hpp"
#include "trace/trace_reader.hpp"

namespace allocstress::trace {

// How a block's life ended (the codes are Python's traces.End).
enum class BlockEnd : std::uint8_t { freed = 0, reallocated = 1, live_at_end = 2, lost = 3 };

// A block as its starting event made it.
struct LiveBlock {
  std::uint64_t block = 0;  // its number (blocks in start order, from 0)
  std::uint64_t start = 0;  // index (merged order, from 0) of the event that started it
  std::uint64_t address = 0, size = 0, alignment = 0;  // as that event returned and requested
  std::uint32_t thread = 0;                            // the thread of that event
  TraceOp op = TraceOp::malloc;                        // that event's op
};

// What one event did, in this order: `ended` (by a free, or the old side of a realloc: freed or
// reallocated by the event's class), `lost` (the block still live at the address the event
// returns), `started`.
struct BlockStep {
  std::optional<LiveBlock> ended, lost, started;
  bool unknown_address = false;  // a free, or a realloc's old side, naming a non-zero address that is not live
  bool failed = false;           // an allocation returning 0, or realloc(p, n > 0) returning 0 (p stays live)
  bool null_free = false;        // free(NULL)
};

// The counts Python's Lifetimes reports (see the model).  unmatched_reallocs leaves out failed
// reallocs (they end nothing); cross_thread_frees: blocks freed or reallocated by another thread
// than the one that allocated them.
struct LifetimeCounts {
  std::uint64_t unmatched_frees = 0, unmatched_reallocs = 0, null_frees = 0, failed_allocations = 0, failed_reallocs = 0,
                cross_thread_frees = 0;
};

// Matches the events of a trace, given one by one in merged order, to blocks.
class BlockMatcher {
 public:
  BlockMatcher() { live_.reserve(1u << 16); }
  BlockStep step(std::uint32_t thread, const TraceEvent& e);
  const LifetimeCounts& counts() const { return counts_; }
  // The blocks live now, by address.
  const std::unordered_map<std::uint64_t, LiveBlock>& live() const { return live_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t blocks() const { return blocks_; }

 private:
  std::optional<LiveBlock> end(std::uint32_t thread, std::uint64_t address, BlockStep& step);
  void start(std::uint32_t thread, const TraceEvent& e, BlockStep& step);

  std::unordered_map<std::uint64_t, LiveBlock> live_;
  LifetimeCounts counts_;
  std::uint64_t events_ = 0, blocks_ = 0;
};

// One entry per block, in start order (columns, so that Python gets them as arrays).
struct BlockLifetimes {
  std::vector<std::uint64_t> start, end;  // event indexes; live at end: end = events
  std::vector<BlockEnd> how;
  std::vector<std::uint64_t> size, address;
  std::vector<std::uint32_t> thread;
  std::vector<std::int64_t> end_thread;  // the thread whose event ended it; -1 when live at end
  LifetimeCounts counts;
  std::uint64_t events = 0;
};

// Builds BlockLifetimes from events given one by one in merged order.
class BlockLifetimeLog {
 public:
  void add(std::uint32_t thread, const TraceEvent& e);
  BlockLifetimes finish();

 private:
  void close(const LiveBlock& b, BlockEnd how, std::uint64_t at, std::int64_t thread);
  BlockMatcher matcher_;
  BlockLifetimes out_;
};

// The block lifetimes of a trace, in recorded order (recorded_order.hpp).
BlockLifetimes block_lifetimes(const TraceContents& trace);

}  // namespace allocstress::trace
