// Fitting the fitted workload to a trace (the derivation is described in trace_fit.hpp).
#include "workloads/lifetimes/trace_fit.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "trace/block_lifetimes.hpp"
#include "trace/recorded_order.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"

namespace allocstress {

using trace::OpClass;
using trace::TraceEvent;

namespace {

bool is_new_block(const TraceEvent& e) {
  switch (trace::op_class(e.op)) {
    case OpClass::allocation: case OpClass::realloc: return e.address != 0;
    case OpClass::free: return false;
  }
  return false;
}

std::uint64_t median_of(const ValueHistogram& h) {
  double total = 0;
  for (const auto& [v, c] : h) total += c;
  double seen = 0;
  for (const auto& [v, c] : h)
    if ((seen += c) * 2 >= total) return v;  // the lower median
  return 0;
}

// Walks the merged event order with trace::BlockMatcher (the one matching rule) and collects
// sizes, observed lifetimes, censoring bounds and the summary counts.  Deliberately unlike the
// lifetime model's censoring: a block lost at a reused address ends there as if freed (a free the
// trace missed, counted in reused_without_free), so its lifetime is observed.
class BlockTracker {
 public:
  BlockTracker(const trace::TraceContents& t, TraceSummary& summary) : trace_(t), s_(summary) {
    allocations_of.assign(t.threads.size(), 0);
    for (std::size_t i = 0; i < t.threads.size(); ++i)
      for (const TraceEvent& e : t.threads[i].events) allocations_of[i] += is_new_block(e) ? 1 : 0;
    made_.assign(t.threads.size(), 0);
  }

  void run() {
    trace::for_each_in_recorded_order(trace_, [&](std::size_t t, const TraceEvent& e) { event(std::uint32_t(t), e); });
    s_.never_freed = matcher_.live().size();
    for (const auto& [address, b] : matcher_.live()) {
      censored.push_back(allocations_of[b.thread] - index_[b.block]);
      censored_sizes.push_back(fitted_size(b.size));
    }
  }

  std::vector<std::uint64_t> sizes, lifetimes;
  std::vector<std::uint64_t> censored;  // bounds c of blocks with L >= c (see trace_fit.hpp)
  std::vector<std::uint64_t> lifetime_sizes, censored_sizes;  // the sizes of those blocks, in the same order
  std::vector<std::uint64_t> allocations_of;  // per thread position: its blocks, realloc results included

 private:
  // Size 0 counts as 1 byte, sizes above kMaxFittedBlockSize as that size.
  static std::uint64_t fitted_size(std::uint64_t size) { return size == 0 ? 1 : std::min(size, kMaxFittedBlockSize); }

  void event(std::uint32_t thread, const TraceEvent& e) {
    ++s_.events;
    const trace::BlockStep step = matcher_.step(thread, e);
    const bool realloc = trace::op_class(e.op) == OpClass::realloc;
    // realloc(NULL, 0) returning NULL counts as failed here; realloc(p, 0) returning NULL freed p.
    if (step.failed || (realloc && e.address == 0 && e.old_address == 0)) ++s_.failed_allocations;
    if (realloc && e.old_address != 0 && e.address != 0) ++s_.reallocs;
    if (step.unknown_address && !step.failed) ++s_.unmatched_frees;
    if (step.ended) end(*step.ended);
    if (step.lost) {
      ++s_.reused_without_free;
      end(*step.lost);
    }
    if (step.started) start(*step.started);
  }

  void start(const trace::LiveBlock& b) {
    if (b.size == 0) ++s_.zero_size_allocations;
    if (b.size > kMaxFittedBlockSize) ++s_.clamped_sizes;
    const std::uint64_t size = fitted_size(b.size);
    index_.push_back(made_[b.thread]++);  // index_[b.block]: blocks are numbered in start order
    sizes.push_back(size);
    ++s_.allocations;
    s_.requested_bytes += size;
    live_bytes_ += size;
    s_.peak_live_requested_bytes = std::max(s_.peak_live_requested_bytes, live_bytes_);
  }

  void end(const trace::LiveBlock& b) {
    const std::uint64_t size = fitted_size(b.size), index = index_[b.block];
    ++s_.frees;
    live_bytes_ -= size;
    if (made_[b.thread] < allocations_of[b.thread]) {
      lifetimes.push_back(made_[b.thread] - index);
      lifetime_sizes.push_back(size);
    } else {
      ++s_.freed_after_owner_done;
      censored.push_back(made_[b.thread] - index);
      censored_sizes.push_back(size);
    }
  }

  const trace::TraceContents& trace_;
  TraceSummary& s_;
  trace::BlockMatcher matcher_;
  std::vector<std::uint64_t> made_;   // allocations made so far, per thread position
  std::vector<std::uint64_t> index_;  // per block: its number among its owner's allocations
  std::uint64_t live_bytes_ = 0;
};

std::string shortest(double v) { return nlohmann::json(v).dump(); }

// ---- Lifetimes by size class (trace_fit.hpp, "Classes") -----------------------------------

// The lifetimes of the blocks of one size range: observed ones and censoring bounds.
struct ClassSample {
  std::uint64_t max_size = 0;
  std::vector<std::uint64_t> observed, censored;
  double blocks() const { return double(observed.size() + censored.size()); }
  void absorb(ClassSample&& other) {
    max_size = other.max_size;
    observed.insert(observed.end(), other.observed.begin(), other.observed.end());
    censored.insert(censored.end(), other.censored.begin(), other.censored.end());
  }
  LifetimeEstimate estimate() const {
    std::vector<std::uint64_t> o = observed;
    return kaplan_meier(histogram_of(o), censored);
  }
};

// sup over lifetimes of the gap between two estimated lifetime CDFs (the immortal tails count).
double law_distance(const LifetimeEstimate& a, const LifetimeEstimate& b) {
  double fa = 0, fb = 0, distance = 0;
  std::size_t i = 0, j = 0;
  while (i < a.mass.size() || j < b.mass.size()) {
    const std::uint64_t x = std::min(i < a.mass.size() ? a.mass[i].first : ~std::uint64_t{0}, j < b.mass.size() ? b.mass[j].first : ~std::uint64_t{0});
    if (i < a.mass.size() && a.mass[i].first == x) fa += a.mass[i++].second;
    if (j < b.mass.size() && b.mass[j].first == x) fb += b.mass[j++].second;
    distance = std::max(distance, std::abs(fa - fb));
  }
  return distance;
}

// Octaves of size, smallest first, grouped until a group has min_frees observed lifetimes (a
// short last group joins the one before); then adjacent groups merged while a two-sample KS
// test at level 0.001 cannot tell their lifetime laws apart.  One class left: no classes.
std::vector<ClassSample> lifetime_classes_of(const BlockTracker& t, std::uint64_t min_frees) {
  if (min_frees == 0) return {};
  std::vector<ClassSample> octaves(65);
  for (std::size_t i = 0; i < t.lifetimes.size(); ++i) octaves[std::bit_width(t.lifetime_sizes[i])].observed.push_back(t.lifetimes[i]);
  for (std::size_t i = 0; i < t.censored.size(); ++i) octaves[std::bit_width(t.censored_sizes[i])].censored.push_back(t.censored[i]);
  std::vector<ClassSample> groups;
  ClassSample open;
  for (unsigned w = 1; w <= 64; ++w) {
    octaves[w].max_size = w >= 33 ? kMaxFittedBlockSize : (std::uint64_t{1} << w) - 1;  // sizes are clamped to 2^32 - 1
    open.absorb(std::move(octaves[w]));
    if (open.observed.size() >= min_frees) groups.push_back(std::exchange(open, ClassSample{}));
  }
  if (groups.empty()) return {};
  groups.back().absorb(std::move(open));
  std::vector<ClassSample> classes;
  for (ClassSample& g : groups) {
    const double critical = 1.949;  // KS, alpha = 0.001
    if (!classes.empty() && law_distance(classes.back().estimate(), g.estimate()) <=
                                critical * std::sqrt((classes.back().blocks() + g.blocks()) / (classes.back().blocks() * g.blocks())))
      classes.back().absorb(std::move(g));
    else
      classes.push_back(std::move(g));
  }
  if (classes.size() == 1) return {};
  return classes;
}

// A lifetime law's table, immortal share and KS distance from its estimate.
struct FittedLaw {
  std::vector<ValueRange> table;
  double immortal_share = 1;
  double ks = 0;
};
FittedLaw fit_law(const LifetimeEstimate& e, double max_range_share) {
  if (e.mass.empty()) return {};
  FittedLaw f;
  f.table = range_table(e.mass, max_range_share);
  f.immortal_share = e.tail < 1e-12 ? 0.0 : std::min(1.0, e.tail);  // rounding residue is 0
  f.ks = ks_distance(e.mass, f.table);
  return f;
}

void check(const FitOptions& o) {
  if (!(o.max_range_share >= kMinRangeShare && o.max_range_share <= kMaxRangeShare))
    throw std::invalid_argument("--max-range-share out of range: " + shortest(o.max_range_share) + " (accepted: " +
                                shortest(kMinRangeShare) + ".." + shortest(kMaxRangeShare) + ")");
  if (o.threads > kMaxFittedThreads)
    throw std::invalid_argument("--threads out of range: " + std::to_string(o.threads) + " (accepted: 0 = the trace's effective count, or 1.." +
                                std::to_string(kMaxFittedThreads) + ")");
}

}  // namespace

FitConfig fit_trace(const trace::TraceContents& t, const FitOptions& options) {
  check(options);
  FitConfig c;
  TraceSummary& s = c.trace;
  s.path = t.file;
  s.truncation = t.truncation;
  BlockTracker tracker(t, s);
  tracker.run();
  if (s.allocations == 0)
    throw std::invalid_argument(t.file + ": no successful allocation to fit (" + std::to_string(s.events) + " events" +
                                (t.truncation.empty() ? "" : "; " + t.truncation) + ")");

  double sum = 0, sum_squares = 0;
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    const double n = double(tracker.allocations_of[i]);
    s.threads += t.threads[i].events.empty() ? 0 : 1;
    s.allocating_threads += n > 0 ? 1 : 0;
    sum += n;
    sum_squares += n * n;
  }
  s.effective_threads = sum * sum / sum_squares;

  std::vector<ClassSample> classes = lifetime_classes_of(tracker, options.lifetime_class_min_frees);
  const ValueHistogram sizes = histogram_of(tracker.sizes);
  const ValueHistogram lifetimes = histogram_of(tracker.lifetimes);  // observed: the blocks freed
  const LifetimeEstimate estimate = kaplan_meier(lifetimes, std::move(tracker.censored));
  s.mean_size = double(s.requested_bytes) / double(s.allocations);
  s.median_size = median_of(sizes);
  s.max_size = sizes.back().first;
  s.immortal_share = estimate.tail < 1e-12 ? 0.0 : std::min(1.0, estimate.tail);  // rounding residue is 0
  s.median_lifetime = median_of(lifetimes);
  double lifetime_sum = 0;
  for (const auto& [v, n] : lifetimes) lifetime_sum += double(v) * n;
  s.mean_lifetime = lifetimes.empty() ? 0 : lifetime_sum / double(tracker.lifetimes.size());

  LifetimeParams& p = c.params;
  p.seed = options.seed;
  p.threads = options.threads != 0 ? options.threads : unsigned(std::max<long long>(1, std::llround(s.effective_threads)));
  p.allocations_per_thread = std::max<std::uint64_t>(1, std::uint64_t(std::llround(double(s.allocations) / p.threads)));
  if (p.allocations_per_thread > kMaxFittedAllocationsPerThread)
    throw std::invalid_argument(t.file + ": " + std::to_string(p.allocations_per_thread) + " allocations per thread (accepted: at most " +
                                std::to_string(kMaxFittedAllocationsPerThread) + ")");
  p.sizes = range_table(sizes, options.max_range_share);
  FitQuality& q = c.quality;
  // The lifetime laws: one per class (the last is the top-level law), or the trace's whole law.
  std::vector<LifetimeEstimate> laws;
  for (const ClassSample& k : classes) laws.push_back(k.estimate());
  if (classes.empty()) laws.push_back(estimate);
  for (std::size_t i = 0; i < laws.size(); ++i) {
    const FittedLaw f = fit_law(laws[i], options.max_range_share);
    q.lifetime_ks_distance = std::max(q.lifetime_ks_distance, f.ks);
    q.lifetime_rows += f.table.size();
    if (i + 1 < laws.size()) {
      p.lifetime_classes.push_back({classes[i].max_size, f.table, f.immortal_share});
    } else {
      p.lifetimes = f.table;
      p.immortal_share = f.immortal_share;
    }
  }
  validate(p);

  q.max_range_share = options.max_range_share;
  q.size_ks_distance = ks_distance(sizes, p.sizes);
  q.size_rows = p.sizes.size();
  q.trace_peak_live_requested_bytes = s.peak_live_requested_bytes;
  const LifetimeModel model(p);
  for (unsigned i = 0; i < p.threads; ++i)
    q.model_peak_live_requested_bytes += LifetimeWorkspace(model, i).planned().peak_live_requested_bytes;
  return c;
}

}  // namespace allocstress
