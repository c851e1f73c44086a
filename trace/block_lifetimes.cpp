// Block lifetimes (the rule is described in block_lifetimes.hpp).
#include "trace/block_lifetimes.hpp"

#include "trace/recorded_order.hpp"

namespace allocstress::trace {

std::optional<LiveBlock> BlockMatcher::end(std::uint32_t thread, std::uint64_t address, BlockStep& step) {
  const auto it = live_.find(address);
  if (it == live_.end()) {
    step.unknown_address = true;
    return std::nullopt;
  }
  const LiveBlock b = it->second;
  live_.erase(it);
  if (b.thread != thread) ++counts_.cross_thread_frees;
  return b;
}

void BlockMatcher::start(std::uint32_t thread, const TraceEvent& e, BlockStep& step) {
  if (const auto it = live_.find(e.address); it != live_.end()) {
    step.lost = it->second;
    live_.erase(it);
  }
  LiveBlock& b = live_[e.address];
  b = {blocks_++, events_, e.address, e.size, e.alignment, thread, e.op};
  step.started = b;
}

BlockStep BlockMatcher::step(std::uint32_t thread, const TraceEvent& e) {
  BlockStep s;
  switch (op_class(e.op)) {
    case OpClass::allocation:
      if (e.address == 0) {
        s.failed = true;
        ++counts_.failed_allocations;
      } else {
        start(thread, e, s);
      }
      break;
    case OpClass::free:
      if (e.address == 0) {
        s.null_free = true;
        ++counts_.null_frees;
      } else if (!(s.ended = end(thread, e.address, s))) {
        ++counts_.unmatched_frees;
      }
      break;
    case OpClass::realloc:
      if (e.address == 0 && e.size != 0) {  // failed: the old block (if any) stays live
        s.failed = true;
        s.unknown_address = e.old_address != 0 && !live_.contains(e.old_address);
        ++counts_.failed_reallocs;
        break;
      }
      if (e.old_address != 0 && !(s.ended = end(thread, e.old_address, s))) ++counts_.unmatched_reallocs;
      if (e.address != 0) start(thread, e, s);
      break;
  }
  ++events_;
  return s;
}

void BlockLifetimeLog::close(const LiveBlock& b, BlockEnd how, std::uint64_t at, std::int64_t thread) {
  out_.end[b.block] = at;
  out_.how[b.block] = how;
  out_.end_thread[b.block] = thread;
}

void BlockLifetimeLog::add(std::uint32_t thread, const TraceEvent& e) {
  const std::uint64_t at = matcher_.events();
  const BlockStep s = matcher_.step(thread, e);
  if (s.ended) close(*s.ended, op_class(e.op) == OpClass::free ? BlockEnd::freed : BlockEnd::reallocated, at, thread);
  if (s.lost) close(*s.lost, BlockEnd::lost, at, thread);
  if (s.started) {
    out_.start.push_back(at);
    out_.end.push_back(0);
    out_.how.push_back(BlockEnd::live_at_end);
    out_.size.push_back(e.size);
    out_.address.push_back(e.address);
    out_.thread.push_back(thread);
    out_.end_thread.push_back(-1);
  }
}

BlockLifetimes BlockLifetimeLog::finish() {
  out_.events = matcher_.events();
  for (const auto& [address, b] : matcher_.live()) out_.end[b.block] = out_.events;
  out_.counts = matcher_.counts();
  return std::move(out_);
}

BlockLifetimes block_lifetimes(const TraceContents& trace) {
  BlockLifetimeLog log;
  for_each_in_recorded_order(trace, [&](std::size_t t, const TraceEvent& e) { log.add(trace.threads[t].index, e); });
  return log.finish();
}

}  // namespace allocstress::trace
