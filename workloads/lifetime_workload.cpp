// The fitted workload's sampler tables, live-block pool, due queue and workspace (the loop is in
// the header).
#include "lifetime_workload.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <string_view>

namespace allocstress {

RangeSampler::RangeSampler(const std::vector<ValueRange>& rows) {
  // Vose's alias method: scale the probabilities by n; pair each under-full column with an
  // over-full row that tops it up.  Work lists are processed in index order: deterministic.
  const std::size_t n = rows.size();
  double total = 0;
  for (const ValueRange& r : rows) total += r.weight;
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = rows[i].weight / total * double(n);
    (scaled[i] < 1.0 ? small : large).push_back(std::uint32_t(i));
    rows_.push_back({rows[i].min, rows[i].max - rows[i].min});
    if (rows[i].weight > 0) max_value_ = std::max(max_value_, rows[i].max);
  }
  columns_.assign(n, Column{0xffff'ffffu, 0});
  for (std::size_t i = 0; i < n; ++i) columns_[i].alias = std::uint32_t(i);
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    const double coin = std::ldexp(scaled[s], 32);
    columns_[s] = Column{coin >= 4294967295.0 ? 0xffff'ffffu : std::uint32_t(std::llround(coin)), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers (full columns, or rounding residue) keep their own row: alias == self.
  for (std::uint32_t i : small) columns_[i] = Column{0xffff'ffffu, i};
  probability_.assign(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) {
    const double own = columns_[c].alias == c ? 1.0 : std::ldexp(double(columns_[c].threshold), -32);
    probability_[c] += own / double(n);
    probability_[columns_[c].alias] += (1.0 - own) / double(n);
  }
}

namespace {

std::vector<ValueRange> lifetime_rows(const LifetimeParams& p) {
  double total = 0;
  for (const ValueRange& r : p.lifetimes) total += r.weight;
  std::vector<ValueRange> rows;
  for (const ValueRange& r : p.lifetimes) rows.push_back({r.min, r.max, r.weight / total * (1.0 - p.immortal_share)});
  if (p.immortal_share > 0) rows.push_back({LifetimeModel::kNever, LifetimeModel::kNever, p.immortal_share});
  return rows;
}

const LifetimeParams& validated(const LifetimeParams& p) {
  validate(p);
  return p;
}

}  // namespace

LifetimeModel::LifetimeModel(const LifetimeParams& params)
    : params_(validated(params)), sizes_(params_.sizes), lifetimes_(lifetime_rows(params_)) {}

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
