// Fitting the `fitted` workload (lifetime_workload.hpp) to a trace: TraceContents -> FitConfig.
//
// Derivation.
//   Order    the threads' events are merged by TSC (ties: lower thread index first; a thread's
//            own order is kept), so that a free in one thread follows the allocation in another
//            that it releases, and an address is reused only after its free.
//   Blocks   trace::BlockMatcher's (trace/block_lifetimes.hpp, the one matching rule):
//            an allocation (malloc, calloc, new, aligned ops ...) starts a block at its address;
//            a free ends the block live at its address; a realloc ends the old block and starts
//            a new one (realloc(NULL, n) only starts, realloc(p, 0) returning NULL only ends).
//            Failed calls (NULL result), free(NULL) and frees of addresses not live are ignored
//            and counted; an allocation at an address still live ends the old block there
//            (a free the trace missed).  Size 0 counts as 1 byte (the workload's minimum), sizes
//            above kMaxFittedBlockSize (4 GiB - 1) as that size; both are counted.
//   Clock    each block is owned by the thread that allocated it; its lifetime is the number of
//            allocations its owner made from its own allocation up to its free (L >= 1: freed
//            before the owner's next allocation is L = 1), counted on the merged order, which is
//            what the workload's per-thread allocation clock means.
//            Why the owner's clock and not the merged one: with T threads allocating at similar
//            rates, a merged-order lifetime is about T times the owner's, and the workload runs T
//            threads each on its own clock; the merged clock would make it hold ~T times the
//            trace's live bytes.  For a single-threaded trace the two clocks are the same.
//   Censored a block still live at the end, or freed after its owner's last allocation, is
//            right-censored: all the trace says is L >= c, c = the owner's allocations from it to
//            the end.  The lifetime law is the Kaplan-Meier estimate over freed and censored
//            blocks; its mass beyond the longest observed lifetime is the immortal share.  So a
//            block allocated early and never freed counts as immortal, while one allocated just
//            before the trace ended counts like the blocks that did live that long (counting
//            every block live at the end as immortal would inflate a cut-short trace's heap).
//   Tables   sizes and finite lifetimes become range tables (range_table below): log2 octaves
//            trimmed to the observed values, each split at its midpoint until it weighs at most
//            max_range_share or holds one value.  So every multi-value row weighs <= that share,
//            frequent values get exact rows, and the KS distance is <= max_range_share.
//   Classes  lifetimes by size class (LifetimeParams::lifetime_classes), when the trace's lifetimes
//            depend on size: octaves of size (powers of two), smallest first, are grouped until
//            a group holds lifetime_class_min_frees observed lifetimes (a short last group joins
//            the one before); adjacent groups are merged while a two-sample Kolmogorov-Smirnov
//            test at level 0.001 cannot tell their Kaplan-Meier laws apart (n = blocks of each,
//            freed or censored).  Two or more classes left: each gets its own lifetime table and
//            immortal share, the largest sizes' law is the top-level one; one class: none (the
//            file is as without classes).  The summary's lifetime figures stay the whole trace's.
//   Threads  the effective thread count (Σ n_t)² / Σ n_t² over the per-thread allocation counts
//            n_t, rounded (1 busy thread beside idle ones counts 1; T equally busy threads T);
//            allocations per thread = all allocations / threads.
//   Quality  KS distances of the tables against the trace (lifetimes: the largest over the
//            classes' laws), and the peak live requested bytes of a dry run of the fitted model
//            (Σ over its threads) against the trace's peak.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trace/trace_reader.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"

namespace allocstress {

// The options of `allocstress fit` (messages name them as on its command line).
struct FitOptions {
  double max_range_share = 0.01;  // --max-range-share, accepted: kMinRangeShare..kMaxRangeShare
  std::uint64_t seed = 1;         // --seed
  unsigned threads = 0;           // --threads; 0: the trace's effective thread count
  // Observed lifetimes a size class needs (see "Classes"); 0: no classes.  ~2000 frees resolve
  // a class's lifetime law to a KS noise of ~0.03.
  std::uint64_t lifetime_class_min_frees = 2000;
};
inline constexpr double kMinRangeShare = 0.0001, kMaxRangeShare = 0.5;

// Throws std::invalid_argument naming the bad option (e.g. max range share out of range), or
// when the trace has no successful allocation.
FitConfig fit_trace(const trace::TraceContents& trace, const FitOptions& options = {});

// (value, weight) pairs, values ascending and distinct, every value >= 1, weights > 0: an
// empirical distribution (weights are counts, or Kaplan-Meier masses).
using ValueHistogram = std::vector<std::pair<std::uint64_t, double>>;

// The histogram of `values` (sorted in place), weights = counts.
ValueHistogram histogram_of(std::vector<std::uint64_t>& values);

// Kaplan-Meier estimate of a lifetime law from observed lifetimes and censoring bounds (a
// censored block has L >= its bound).  `mass`: the probability of each observed lifetime;
// `tail`: the probability of outliving every observed lifetime (1 when none was observed).
struct LifetimeEstimate {
  ValueHistogram mass;
  double tail = 1;
};
LifetimeEstimate kaplan_meier(const ValueHistogram& observed, std::vector<std::uint64_t> censored_bounds);

// The range table of a non-empty histogram (see "Tables" above); rows ascending, disjoint,
// weights = shares of the histogram's total weight.
std::vector<ValueRange> range_table(const ValueHistogram& histogram, double max_range_share);
// sup over integers x of |F_histogram(x) - F_table(x)|, with the table's rows drawn uniformly
// inside.  pre: table rows ascending and disjoint, positive total weight.
double ks_distance(const ValueHistogram& histogram, const std::vector<ValueRange>& table);

}  // namespace allocstress
