// Trace totals (see trace_totals.hpp).
#include "trace/trace_totals.hpp"

#include "trace/block_lifetimes.hpp"
#include "trace/recorded_order.hpp"

namespace allocstress {

namespace {

using trace::OpClass;
using trace::TraceEvent;

// One event's share of the totals, from what BlockMatcher made of it (the one matching rule).
void apply(const TraceEvent& e, const trace::BlockStep& s, TraceTotals& t, std::uint64_t& live) {
  ++t.ops[std::size_t(e.op)];
  if (s.failed) t.failed += e.size > 0 ? 1 : 0;  // an allocation of 0 bytes returning NULL is not a failure here
  if (s.null_free) ++t.frees_null;
  if (s.ended) {
    ++t.frees_matched;
    live -= s.ended->size;
  } else if (s.unknown_address && !s.failed) {
    ++t.frees_unmatched;  // a free or realloc of an address not live (a failed realloc ends nothing)
  }
  if (s.lost) {
    ++t.allocations_over_live;
    live -= s.lost->size;
  }
  if (s.started) {
    t.allocations += trace::op_class(e.op) == OpClass::allocation ? 1 : 0;
    t.requested_bytes += e.size;
    live += e.size;
  }
}

}  // namespace

TraceTotals trace_totals(const trace::TraceContents& contents) {
  TraceTotals t;
  trace::BlockMatcher matcher;
  std::uint64_t live = 0;
  bool first = true;
  trace::for_each_in_recorded_order(contents, [&](std::size_t pos, const trace::TraceEvent& e) {
    if (first || e.tsc < t.first_tsc) t.first_tsc = e.tsc;
    if (first || e.tsc > t.last_tsc) t.last_tsc = e.tsc;
    first = false;
    apply(e, matcher.step(contents.threads[pos].index, e), t, live);
    if (live > t.peak_live_bytes) {
      t.peak_live_bytes = live;
      t.peak_at_event = t.events;
    }
    ++t.events;
  });
  t.live_bytes_at_end = live;
  t.live_blocks_at_end = matcher.live().size();
  return t;
}

}  // namespace allocstress
