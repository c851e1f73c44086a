// `--memory-limit SPEC`: the memory cgroup limits a matrix puts on its limited cells (mode
// `limited`, one per workload x allocator x thread count, after the timing cells; void is left
// out: it has no allocator to limit).  SPEC is one limit or `max=L,high=L`, where a limit L is
// BYTES (a whole number) or FxPEAK (F > 0, e.g. 0.8xPEAK): F times the median peak RSS of the same
// cell's unlimited timing runs in this matrix, resolved when the limited cell runs.  A bare limit
// is `max`.  `high` (throttling) needs cgroup v2; `max` is memory.max (v2) or
// memory.limit_in_bytes (v1).  run/memory_limit_cell.hpp runs the cells.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allocstress {

struct LimitValue {
  std::uint64_t bytes = 0;  // > 0: absolute
  double peak_factor = 0;   // > 0: times the cell's unlimited peak RSS
  bool set() const { return bytes > 0 || peak_factor > 0; }
  // bytes, or peak_factor x reference_peak_bytes, at least one page.
  std::uint64_t resolve(std::uint64_t reference_peak_bytes) const;
  bool needs_peak() const { return peak_factor > 0; }
};

struct MemoryLimitSpec {
  std::string text;  // as given: records and tables show it
  LimitValue max, high;
  bool set() const { return max.set() || high.set(); }
};

// Throws UsageError (platform/errors.hpp) naming the bad part and what is accepted.
MemoryLimitSpec parse_memory_limit_spec(std::string_view text);

}  // namespace allocstress
