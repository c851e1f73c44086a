// The recorded order of a trace: every thread's events merged by TSC, each thread's own order
// kept (a k-way merge; ties go to the lower thread position).  Replay, trace-info and fit all
// walk a trace in this order, so they agree on which free ends which block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "trace_reader.hpp"

namespace allocstress::trace {

// Calls f(thread_position, event) for every event of `trace`, in recorded order; thread_position
// indexes trace.threads.
template <class F>
void for_each_in_recorded_order(const TraceContents& trace, F&& f) {
  using Head = std::pair<std::uint64_t, std::size_t>;  // (tsc of the thread's next event, thread position)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<std::size_t> next(trace.threads.size(), 0);
  for (std::size_t t = 0; t < trace.threads.size(); ++t)
    if (!trace.threads[t].events.empty()) heads.push({trace.threads[t].events[0].tsc, t});
  while (!heads.empty()) {
    const std::size_t t = heads.top().second;
    heads.pop();
    const auto& events = trace.threads[t].events;
    f(t, events[next[t]]);
    if (++next[t] < events.size()) heads.push({events[next[t]].tsc, t});
  }
}

}  // namespace allocstress::trace
