// The lifetime models: shapes, their tables, Little's law (see lifetime_models.hpp).
#include "workloads/lifetimes/lifetime_models.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "platform/enum_words.hpp"
#include "workloads/param_range.hpp"
#include "workloads/fleet_size_sampler.hpp"
#include "workloads/inverse_size_sampler.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"  // lifetime_window_begin

namespace allocstress {

namespace {
constexpr EnumWord<LifetimeShape> kShapeWords[] = {
    {LifetimeShape::exponential, "exponential"}, {LifetimeShape::pareto, "pareto"}, {LifetimeShape::size_classes, "size-classes"}};
}  // namespace

std::string_view to_string(LifetimeShape shape) { return word_of(kShapeWords, shape, "size-classes"); }

LifetimeShape parse_lifetime_shape(std::string_view text) { return parse_word(kShapeWords, text, "lifetime shape"); }

const std::vector<SizeClassLaw>& size_class_laws() {
  static const std::vector<SizeClassLaw> laws = {{"small", 256, LifetimeShape::pareto, 1},
                                                 {"medium", 4096, LifetimeShape::exponential, 4},
                                                 {"large", kMaxFittedBlockSize, LifetimeShape::exponential, 16}};
  return laws;
}

void validate(const LifetimeModelSpec& spec) {
  require_in_range("live_bytes", spec.live_bytes, kMinLiveBytes, kMaxLiveBytes, ", 4 KiB..1 TiB");
}

namespace {

std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// ---- Size tables and their moments -------------------------------------------------------

std::vector<ValueRange> size_table(const AllocTestParams& base) {
  if (base.sizes == SizeModel::fleet) return fleet_size_table();
  if (base.sizes == SizeModel::fit) return base.size_table;
  require_in_range("max_size_exp", base.max_size_exp, InverseSizeSampler::kMinExp, InverseSizeSampler::kMaxExp);
  const InverseSizeSampler inverse(base.max_size_exp);
  std::vector<ValueRange> rows;
  for (unsigned k = InverseSizeSampler::kMinBucket; k < base.max_size_exp; ++k)
    rows.push_back({std::uint64_t{1} << k, (std::uint64_t{2} << k) - 1, inverse.bucket_probability(k)});
  return rows;
}

// Sums over the part lo..hi of a table, values drawn uniformly inside rows: probability,
// E[v; lo <= v <= hi] and E[v^2; ...] (unnormalised by the probability).
struct Moments {
  double p = 0, m1 = 0, m2 = 0;
  double mean() const { return m1 / p; }
  double cv() const { return std::sqrt(std::max(0.0, m2 / p - mean() * mean())) / mean(); }
};

Moments moments(const std::vector<ValueRange>& rows, std::uint64_t lo = 1, std::uint64_t hi = ~std::uint64_t{0}) {
  double total = 0;
  for (const ValueRange& r : rows) total += r.weight;
  Moments m;
  for (const ValueRange& r : rows) {
    const std::uint64_t a = std::max(r.min, lo), b = std::min(r.max, hi);
    if (a > b || r.weight <= 0) continue;
    const double count = double(b - a + 1), mid = (double(a) + double(b)) / 2;
    const double p = r.weight / total * count / (double(r.max) - double(r.min) + 1);
    m.p += p;
    m.m1 += p * mid;
    m.m2 += p * (mid * mid + (count * count - 1) / 12);  // discrete uniform on a..b
  }
  return m;
}

// ---- Lifetime laws ------------------------------------------------------------------------

// P(X > x) of the shape with scale `scale` (theta or x_m), truncated at `top`; L = ceil(X).
double survival(LifetimeShape shape, double scale, double top, double x) {
  if (x >= top) return 0;
  if (shape == LifetimeShape::exponential)  // (e^(-x/s) - e^(-top/s)) / (1 - e^(-top/s)), stable
    return std::exp(-x / scale) * std::expm1(-(top - x) / scale) / std::expm1(-top / scale);
  if (x < scale) return 1;
  const double cut = std::pow(scale / top, kParetoAlpha);
  return (std::pow(scale / x, kParetoAlpha) - cut) / (1 - cut);
}

std::vector<ValueRange> table_of(LifetimeShape shape, double scale, std::uint64_t top) {
  std::vector<ValueRange> rows;
  const double step = std::exp2(1.0 / kRowsPerOctave);
  for (std::uint64_t a = 1; a <= top;) {
    const std::uint64_t b = std::min(top, std::max(a, std::uint64_t(double(a) * step)));
    const double w = survival(shape, scale, double(top), double(a - 1)) - survival(shape, scale, double(top), double(b));
    if (w > 1e-15) rows.push_back({a, b, w});
    else if (!rows.empty()) break;  // the law's mass is behind us
    a = b + 1;
  }
  return rows;
}

}  // namespace

std::vector<ValueRange> lifetime_table(LifetimeShape shape, double mean, std::uint64_t top) {
  // The table's mean rises with the scale (the law rises stochastically): bisect on log(scale).
  double lo = std::log(1e-6 / double(top)), hi = std::log(double(top) * 1e3);
  std::vector<ValueRange> best;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    best = table_of(shape, std::exp(mid), top);
    const double got = moments(best).mean();
    if (std::abs(got - mean) <= 1e-10 * mean) break;
    (got < mean ? lo : hi) = mid;
  }
  return best;
}

namespace {

// One lifetime law of the model: the sizes it covers and its mean lifetime.
struct PlannedLaw {
  std::uint64_t max_size;
  LifetimeShape shape;
  double factor;
  double mean_lifetime = 0;
};

// The longest lifetime of a model with n allocations per thread: the engine's window begins there.
std::uint64_t longest_lifetime(std::uint64_t n) { return lifetime_window_begin(n); }

// The laws of the spec over `sizes` (classes the sizes never reach dropped; the last covers
// every size) with their means for `live_bytes`; validates the result.
std::vector<PlannedLaw> plan_laws(const LifetimeModelSpec& spec, const AllocTestParams& base, const std::vector<ValueRange>& sizes) {
  validate(spec);
  require_in_range("threads", base.threads, 1, kMaxFittedThreads, " for the lifetime workload");
  require_in_range("iterations_per_thread", base.iterations_per_thread, 32, kMaxFittedAllocationsPerThread, " allocations per thread");
  // Per class: weight k = P(c) E[size | c] x factor; mean lifetime = factor x theta with
  // theta = (live / T) / sum k.
  std::vector<SizeClassLaw> laws = {{"all", kMaxFittedBlockSize, spec.shape, 1}};
  if (spec.shape == LifetimeShape::size_classes) laws = size_class_laws();
  std::vector<PlannedLaw> out;
  double sum_k = 0;
  std::uint64_t lo = 1;
  for (const SizeClassLaw& law : laws) {
    const Moments m = moments(sizes, lo, law.max_size);
    lo = law.max_size + 1;
    if (m.p <= 0) continue;
    sum_k += m.m1 * law.factor;
    out.push_back({law.max_size, law.shape, law.factor});
  }
  const double per_thread = double(spec.live_bytes) / base.threads;
  double min_factor = out.front().factor, max_factor = min_factor;
  for (PlannedLaw& p : out) {
    min_factor = std::min(min_factor, p.factor);
    max_factor = std::max(max_factor, p.factor);
    p.mean_lifetime = p.factor * per_thread / sum_k;
  }
  // Accepted: every mean in kMinMeanLifetime..top/8; the means are proportional to live_bytes.
  const double top = double(longest_lifetime(base.iterations_per_thread));
  // (The check is on the whole numbers the message states, so the message is the rule.)
  const double live_lo = std::ceil(kMinMeanLifetime / min_factor * sum_k * base.threads);
  const double longest_accepted = top / kMinTruncationOverMean;
  const double live_hi = std::floor(longest_accepted / max_factor * sum_k * base.threads);
  const double shortest_mean = min_factor * per_thread / sum_k, longest_mean = max_factor * per_thread / sum_k;
  if (double(spec.live_bytes) < live_lo || double(spec.live_bytes) > live_hi)
    throw std::invalid_argument(
        "live_bytes " + std::to_string(spec.live_bytes) + " with " + std::to_string(base.threads) +
        (base.threads == 1 ? " thread, " : " threads, ") + std::string(to_string(base.sizes)) + " sizes (mean " +
        shortest(moments(sizes).mean()) + " B) and " + std::to_string(base.iterations_per_thread) + " allocations per thread gives " +
        (out.size() == 1 ? "a mean lifetime of " + shortest(shortest_mean)
                         : "mean lifetimes of " + shortest(shortest_mean) + ".." + shortest(longest_mean)) +
        " allocations (accepted: live_bytes " +
        (live_lo <= live_hi ? std::to_string(std::uint64_t(live_lo)) + ".." + std::to_string(std::uint64_t(live_hi))
                            : std::string("none: too few allocations per thread")) +
        " here: every mean lifetime " + shortest(kMinMeanLifetime) + ".." + shortest(longest_accepted) +
        " allocations, at most 1/8 of the longest lifetime, which is half the allocations per thread)");
  out.back().max_size = kMaxFittedBlockSize;
  return out;
}

}  // namespace

void validate(const LifetimeModelSpec& spec, const AllocTestParams& base) { plan_laws(spec, base, size_table(base)); }

LifetimeParams make_lifetime_params(const LifetimeModelSpec& spec, const AllocTestParams& base) {
  LifetimeParams p;
  p.sizes = size_table(base);
  const std::vector<PlannedLaw> laws = plan_laws(spec, base, p.sizes);
  p.threads = base.threads;
  p.allocations_per_thread = base.iterations_per_thread;
  p.seed = base.seed;
  const std::uint64_t top = longest_lifetime(base.iterations_per_thread);
  for (std::size_t i = 0; i + 1 < laws.size(); ++i)
    p.lifetime_classes.push_back({laws[i].max_size, lifetime_table(laws[i].shape, laws[i].mean_lifetime, top), 0});
  p.lifetimes = lifetime_table(laws.back().shape, laws.back().mean_lifetime, top);
  return p;
}

LittleLawFigures little_law(const LifetimeParams& params) {
  LittleLawFigures f;
  const Moments all_sizes = moments(params.sizes);
  double l1 = 0, l2 = 0;  // E[L], E[L^2] over all blocks
  std::uint64_t lo = 1;
  auto add = [&](std::uint64_t max_size, const std::vector<ValueRange>& lifetimes, double immortal) {
    const Moments s = moments(params.sizes, lo, max_size);
    lo = max_size + 1;
    LifetimeLawFigures law;
    law.max_size = max_size;
    law.rows = lifetimes.size();
    law.max_lifetime = lifetimes.empty() ? 0 : lifetimes.back().max;
    law.allocation_share = s.p / all_sizes.p;
    if (s.p > 0) law.mean_size = s.mean();
    const Moments l = lifetimes.empty() ? Moments{} : moments(lifetimes);
    const double inf = std::numeric_limits<double>::infinity();
    law.mean_lifetime = immortal > 0 ? inf : l.mean();
    law.lifetime_cv = immortal > 0 ? inf : l.cv();
    const double lm1 = immortal > 0 ? inf : l.m1 / l.p, lm2 = immortal > 0 ? inf : l.m2 / l.p;
    if (law.allocation_share > 0) {
      l1 += law.allocation_share * lm1;
      l2 += law.allocation_share * lm2;
      f.mean_live_bytes += s.m1 / all_sizes.p * lm1;
      f.live_bytes_second_moment += s.m2 / all_sizes.p * lm2;
    }
    f.laws.push_back(law);
  };
  for (const LifetimeClass& c : params.lifetime_classes) add(c.max_size, c.lifetimes, c.immortal_share);
  std::uint64_t largest = 0;
  for (const ValueRange& r : params.sizes)
    if (r.weight > 0) largest = std::max(largest, r.max);
  add(std::max(largest, lo), params.lifetimes, params.immortal_share);
  f.mean_size = all_sizes.mean();
  f.mean_lifetime = l1;
  f.lifetime_cv = std::sqrt(std::max(0.0, l2 - l1 * l1)) / l1;
  return f;
}

}  // namespace allocstress
