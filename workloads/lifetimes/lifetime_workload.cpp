// The fitted workload's sampler tables, live-block pool, due queue and workspace (the loop is in
// the header).
#include "workloads/lifetimes/lifetime_workload.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <new>
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

namespace detail {

void* map_bytes(void* old, std::size_t old_bytes, std::size_t new_bytes) {
  void* p = old == nullptr ? mmap(nullptr, new_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                           : mremap(old, old_bytes, new_bytes, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_bytes(void* p, std::size_t bytes) { munmap(p, bytes); }

}  // namespace detail

DueQueue::DueQueue() {
  now_ = static_cast<std::uint32_t*>(detail::map_bytes(nullptr, 0, 2 * kWindow * sizeof(std::uint32_t)));
  later_ = now_ + kWindow;
  reset();
}

DueQueue::~DueQueue() { detail::unmap_bytes(now_, 2 * kWindow * sizeof(std::uint32_t)); }

void DueQueue::reset() {
  std::fill(now_, now_ + 2 * kWindow, kNone);
  chunks_.reset(chunks_.high_water());
}

void DueQueue::enter_window(LiveBlock* records, std::uint32_t window) {
  std::uint32_t c = later_[window];
  later_[window] = kNone;
  while (c != kNone) {
    const Chunk& chunk = chunks_.items()[c];
    for (std::uint32_t k = 0; k < chunk.count; ++k) {
      std::uint32_t& head = now_[chunk.offset[k]];
      records[chunk.record[k]].next = head;  // a store: the records' misses overlap
      head = chunk.record[k];
    }
    const std::uint32_t link = chunk.link;
    chunks_.give_back(c);
    c = link;
  }
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
