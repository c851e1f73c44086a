// Trace totals (see trace_totals.hpp).
#include "trace/trace_totals.hpp"

#include <unordered_map>

#include "trace/recorded_order.hpp"

namespace allocstress {

namespace {

using trace::OpClass;
using trace::TraceContents;
using trace::TraceEvent;
using trace::TraceOp;

// Live blocks by address, with their requested sizes and the running total.
class LiveBlocks {
 public:
  explicit LiveBlocks(TraceTotals& totals) : t_(totals) {}

  void start(std::uint64_t address, std::uint64_t size) {
    const auto [it, inserted] = sizes_.try_emplace(address, size);
    if (!inserted) {
      ++t_.allocations_over_live;
      live_ -= it->second;
      it->second = size;
    }
    live_ += size;
  }

  // Ends the block at `address` (0: a free of NULL).
  void end(std::uint64_t address) {
    if (address == 0) {
      ++t_.frees_null;
      return;
    }
    const auto it = sizes_.find(address);
    if (it == sizes_.end()) {
      ++t_.frees_unmatched;
      return;
    }
    ++t_.frees_matched;
    live_ -= it->second;
    sizes_.erase(it);
  }

  void after_event(std::uint64_t index) {
    if (live_ > t_.peak_live_bytes) {
      t_.peak_live_bytes = live_;
      t_.peak_at_event = index;
    }
  }

  void finish() {
    t_.live_bytes_at_end = live_;
    t_.live_blocks_at_end = sizes_.size();
  }

 private:
  TraceTotals& t_;
  std::unordered_map<std::uint64_t, std::uint64_t> sizes_;
  std::uint64_t live_ = 0;
};

void apply(const TraceEvent& e, TraceTotals& t, LiveBlocks& live) {
  ++t.ops[std::size_t(e.op)];
  switch (trace::op_class(e.op)) {
    case OpClass::allocation:
      if (e.address == 0) {
        if (e.size > 0) ++t.failed;
        return;
      }
      ++t.allocations;
      t.requested_bytes += e.size;
      live.start(e.address, e.size);
      return;
    case OpClass::free:
      live.end(e.address);
      return;
    case OpClass::realloc:
      if (e.address == 0 && e.size > 0) {  // failed: the old block stays
        ++t.failed;
        return;
      }
      if (e.old_address != 0) live.end(e.old_address);  // moved, resized in place, or freed by realloc(p, 0)
      if (e.address != 0) {
        t.requested_bytes += e.size;
        live.start(e.address, e.size);
      }
      return;
  }
}

}  // namespace

TraceTotals trace_totals(const trace::TraceContents& contents) {
  TraceTotals t;
  LiveBlocks live(t);
  bool first = true;
  trace::for_each_in_recorded_order(contents, [&](std::size_t, const trace::TraceEvent& e) {
    if (first || e.tsc < t.first_tsc) t.first_tsc = e.tsc;
    if (first || e.tsc > t.last_tsc) t.last_tsc = e.tsc;
    first = false;
    apply(e, t, live);
    live.after_event(t.events++);
  });
  live.finish();
  return t;
}

}  // namespace allocstress
