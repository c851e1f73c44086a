// Workload `lifetime`: explicit lifetime distributions (exponential, heavy-tailed, by size class)
// that target a live-heap size through Little's law.  The model turns into LifetimeParams and
// runs on the fitted workload's engine (lifetime_workload.hpp).
//
// Model.  Each of the T threads makes N = iterations_per_thread allocations; its allocation
// number is its clock.  A block's size comes from the cell's size model (--sizes), its lifetime
// L (allocations of its thread, L >= 1) from the shape's law; nothing is immortal.  Little's law
// on that clock: once the clock has passed the longest lifetime, the expected live requested
// bytes of a thread are E[size x L] (= E[size] x E[L] when the two are independent).  The model
// sets E[size x L] = live_bytes / T (a real number: nothing is rounded but the lifetimes
// themselves, which are whole allocations).
//   Truncation  every law is truncated at Lmax = floor(N/2), so the second half of the clock
//               is in steady state (the engine measures the mean live bytes there) and the
//               model's figure is exact there, not an asymptote.
//   exponential P(L > k) = exp(-k/theta) (the geometric law on 1, 2, ...), truncated at Lmax.
//   pareto      L = ceil(X), X Pareto with tail index alpha = kParetoAlpha = 1/2 on [x_m, Lmax]:
//               P(X > x) ~ (x_m/x)^(1/2), x_m set by the mean (x_m ~ E[L]^2 / Lmax): lifetimes
//               spread over orders of magnitude, most blocks short-lived, a few living up to
//               Lmax.  Its coefficient of variation is >= 1.4 at every accepted truncation
//               (the exponential's <= 1).  Why not alpha = 1.5, the textbook heavy tail: with the
//               mean matched x_m is then ~E[L]/3 and the law is *lighter* than the exponential
//               unless Lmax > ~12 E[L]; alpha = 1 is lighter below Lmax ~ 6 E[L].
//   size-classes  the law depends on the block's size class (size_class_laws()):
//               small  (<= 256 B):   pareto,      mean lifetime    theta
//               medium (<= 4 KiB):   exponential, mean lifetime  4 theta
//               large  (> 4 KiB):    exponential, mean lifetime 16 theta
//               theta from Little's law over the classes: sum_c P(c) E[size | c] 4^c theta =
//               live_bytes / T.  Classes the size model never draws are dropped.
// Discretisation.  A law becomes a table of rows (lifetime_params.hpp) on a log-spaced grid of
// kRowsPerOctave rows per octave of lifetimes (single values up to 23), each row weighted
// P(a <= L <= b) and drawn uniformly inside; rows past the law's support or of negligible weight
// (< 1e-15) are left out.  Uniform inside a row is not the law's shape there, so the scale
// (theta, x_m) is found by bisection on the *table's* mean: the table mean is the wanted mean
// to 1e-9, and little_law() computes the model's figures exactly from the tables.
// Accepted (validate(spec, base)): every class's mean lifetime between kMinMeanLifetime and
// Lmax / kMinTruncationOverMean = Lmax / 8 (so the truncation cuts the exponential at >= 8
// means, i.e. < 0.04% of its mass, leaves the pareto room to be heavy, and the heap is in steady
// state over the measured half); validate() turns that into the accepted live_bytes range.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "workloads/alloc_test.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"

namespace allocstress {

inline constexpr const char* kLifetimeWorkload = "lifetime";

enum class LifetimeShape { exponential, pareto, size_classes };

std::string_view to_string(LifetimeShape shape);
// Throws std::invalid_argument naming the accepted spellings (exponential, pareto, size-classes).
LifetimeShape parse_lifetime_shape(std::string_view text);

struct LifetimeModelSpec {
  LifetimeShape shape = LifetimeShape::exponential;
  std::uint64_t live_bytes = std::uint64_t{64} << 20;  // target live heap, all threads together
};

inline constexpr std::uint64_t kMinLiveBytes = 4096;                   // 4 KiB
inline constexpr std::uint64_t kMaxLiveBytes = std::uint64_t{1} << 40;  // 1 TiB
inline constexpr double kParetoAlpha = 0.5;
inline constexpr double kMinMeanLifetime = 2.0;  // allocations
inline constexpr double kMinTruncationOverMean = 8;
inline constexpr unsigned kRowsPerOctave = 16;

// Throws std::invalid_argument with one line naming the bad field and the accepted range
// (live_bytes: kMinLiveBytes..kMaxLiveBytes).
void validate(const LifetimeModelSpec& spec);
// The spec with the cell's parameters (threads, iterations_per_thread, sizes, max_size_exp):
// also threads 1..kMaxFittedThreads, iterations 32..kMaxFittedAllocationsPerThread, and every
// class's mean lifetime kMinMeanLifetime..floor(N/2)/8 -- said as the accepted live_bytes range.
void validate(const LifetimeModelSpec& spec, const AllocTestParams& base);

// The model's LifetimeParams: sizes from base.sizes (and base.max_size_exp), allocations per
// thread = base.iterations_per_thread, base.threads and base.seed.  Validates as
// validate(spec, base).  The size table: inverse -> one row per power-of-two bucket
// [2^k, 2^(k+1) - 1] weighted InverseSizeSampler::bucket_probability(k); fleet ->
// fleet_size_table().
LifetimeParams make_lifetime_params(const LifetimeModelSpec& spec, const AllocTestParams& base);

// The lifetime classes of the size-classes shape, smallest first; the last covers every size.
struct SizeClassLaw {
  const char* name;
  std::uint64_t max_size;  // the last: kMaxFittedBlockSize
  LifetimeShape shape;     // exponential or pareto
  double factor;           // mean lifetime = factor x theta
};
const std::vector<SizeClassLaw>& size_class_laws();

// A table of `shape` (exponential or pareto) whose mean is `mean` (to 1e-9 relative), truncated
// at max_lifetime.  pre: 1 < mean <= max_lifetime / 2 (validate ensures more).
std::vector<ValueRange> lifetime_table(LifetimeShape shape, double mean, std::uint64_t max_lifetime);

// The figures of one lifetime law of a LifetimeParams (a class, or the top-level law), computed
// exactly from the tables (rows uniform inside, as the engine draws them).
struct LifetimeLawFigures {
  std::uint64_t max_size = 0;     // the class's max_size; the top-level law: the largest size
  double allocation_share = 0;    // P(a block is in this class)
  double mean_size = 0;           // E[size | class], bytes
  double mean_lifetime = 0;       // E[L | class], allocations (infinite with an immortal share)
  double lifetime_cv = 0;         // sd / mean of L | class
  std::size_t rows = 0;
  std::uint64_t max_lifetime = 0;  // the last row's max (rows ascending, as the models write them)
};
// Little's law per thread (steady state: the clock past the longest lifetime).
struct LittleLawFigures {
  std::vector<LifetimeLawFigures> laws;  // lifetime_classes in order, then the top-level law
  double mean_size = 0;                  // E[size]
  double mean_lifetime = 0;              // E[L] over all blocks
  double lifetime_cv = 0;                // of L over all blocks
  double mean_live_bytes = 0;            // E[size x L]: the expected live requested bytes
  // E[size^2 x L^2]: the noise of a time average of the live bytes over W allocations of one
  // thread has variance <= this / W (M/G/infinity: the covariance at lag d is E[S^2 (L-d)+]).
  double live_bytes_second_moment = 0;
};
LittleLawFigures little_law(const LifetimeParams& params);

}  // namespace allocstress
