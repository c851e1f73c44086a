// The fitted workload's sampler tables and workspace (the loop is in the header; the pools and
// the due queue in due_queue.cpp).
#include "workloads/lifetimes/lifetime_workload.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace allocstress {

RangeSampler::RangeSampler(const std::vector<ValueRange>& rows) {
  std::vector<double> weights;
  for (const ValueRange& r : rows) {
    weights.push_back(r.weight);
    rows_.push_back({r.min, r.max - r.min});
    if (r.weight > 0) max_value_ = std::max(max_value_, r.max);
  }
  columns_ = build_alias_columns(weights);
  probability_ = alias_row_probabilities(columns_);
}

namespace {

// A lifetime law's rows for the sampler: the table scaled to 1 - immortal_share, plus a "never" row.
std::vector<ValueRange> lifetime_rows(const std::vector<ValueRange>& lifetimes, double immortal_share) {
  double total = 0;
  for (const ValueRange& r : lifetimes) total += r.weight;
  std::vector<ValueRange> rows;
  for (const ValueRange& r : lifetimes) rows.push_back({r.min, r.max, r.weight / total * (1.0 - immortal_share)});
  if (immortal_share > 0) rows.push_back({LifetimeModel::kNever, LifetimeModel::kNever, immortal_share});
  return rows;
}

const LifetimeParams& validated(const LifetimeParams& p) {
  validate(p);
  return p;
}

}  // namespace

LifetimeModel::LifetimeModel(const LifetimeParams& params) : params_(validated(params)), sizes_(params_.sizes) {
  for (const LifetimeClass& c : params_.lifetime_classes) {
    class_max_size_.push_back(c.max_size);
    lifetimes_.emplace_back(lifetime_rows(c.lifetimes, c.immortal_share));
  }
  lifetimes_.emplace_back(lifetime_rows(params_.lifetimes, params_.immortal_share));
}

namespace {

// Stands in for the allocator in the dry run: every block is the same non-null address.
struct DryRunAllocator {
  void* allocate(std::size_t) { return this; }
  void deallocate(void*, std::size_t) {}
  static constexpr std::string_view name() { return "dry-run"; }
};

}  // namespace

LifetimeWorkspace::LifetimeWorkspace(const LifetimeModel& m, unsigned thread_index)
    : model(m), rng(make_thread_rng(m.params().seed, thread_index)) {
  const WorkloadRng start = rng;
  pool.reset(0);
  DryRunAllocator dry;
  NoObserver none;
  planned_ = detail::run_lifetime_loop<MemoryAccess::none>(dry, *this, none);
  planned_peak_blocks_ = pool.high_water();
  rng = start;
  pool.reset(planned_peak_blocks_);
  queue.reset();  // keeps room for the chunks the dry run needed
}

}  // namespace allocstress
