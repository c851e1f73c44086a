// Parameters of the `fitted` workload (lifetime_workload.hpp) and the fit file that carries them.
//
// The fit file is what `allocstress fit TRACE -o fit.json` writes and what
// `allocstress run --workload fitted --fit fit.json` reads.  It is JSON:
//
//   {
//     "format": "allocstress-fit", "version": 1,
//     "workload": {                     the model's parameters (LifetimeParams)
//       "threads": 2, "allocations_per_thread": 500000, "seed": 1,
//       "sizes":     [{"min": 24, "max": 24, "weight": 0.31}, {"min": 33, "max": 60, "weight": 0.008}, ...],
//       "lifetimes": [{"min": 1, "max": 1, "weight": 0.4}, {"min": 64, "max": 127, "weight": 0.01}, ...],
//       "immortal_share": 0.02,
//       "lifetime_classes": [           optional: lifetimes by block size (LifetimeClass)
//         {"max_size": 256, "immortal_share": 0, "lifetimes": [{"min": 1, "max": 3, "weight": 0.7}, ...]}, ...]
//     },
//     "trace": {...},                   what the trace looked like (TraceSummary), for comparison
//     "fit": {...}                      how close the model comes to it (FitQuality)
//   }
//
// A table row {"min": a, "max": b, "weight": w} means: with probability w / Σweights the value is
// drawn uniformly from the integers a..b (a == b: exactly a).  Sizes are bytes requested;
// lifetimes are "allocations in between" on the allocating thread's clock (lifetime_workload.hpp).
// Only "workload" drives a run; "trace" and "fit" are informational and optional on load.
// "lifetime_classes" is optional and written only when non-empty, so files without it read and
// write exactly as before it existed (and the workload draws the same stream from them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

inline constexpr const char* kFittedWorkload = "fitted";
inline constexpr const char* kFitFormat = "allocstress-fit";
inline constexpr int kFitFormatVersion = 1;

// One row of a size or lifetime table: a value drawn uniformly from min..max (inclusive).
struct ValueRange {
  std::uint64_t min = 1;
  std::uint64_t max = 1;
  double weight = 0;
  bool operator==(const ValueRange&) const = default;
};

// Accepted ranges (validate() enforces them).
inline constexpr std::uint64_t kMaxFittedBlockSize = 0xffff'ffff;             // 4 GiB - 1 (the fit clamps larger sizes)
inline constexpr std::uint64_t kMaxFittedLifetime = std::uint64_t{1} << 62;   // beyond any run: "never" in practice
// Allocation indexes and due times of one thread are 32-bit in the workload's due queue.
inline constexpr std::uint64_t kMaxFittedAllocationsPerThread = 0xffff'fffe;
inline constexpr unsigned kMaxFittedThreads = 4096;
inline constexpr std::size_t kMaxFittedTableRows = 65536;

// Lifetimes by size class: a block of `size` bytes takes the lifetime law of the first class with
// size <= max_size; a block larger than every class's max_size takes the top-level law
// (LifetimeParams::lifetimes and immortal_share).  Without classes every block takes the
// top-level law.  Classes are listed by strictly ascending max_size.
struct LifetimeClass {
  std::uint64_t max_size = 1;         // bytes, 1..kMaxFittedBlockSize
  std::vector<ValueRange> lifetimes;  // as LifetimeParams::lifetimes
  double immortal_share = 0;          // as LifetimeParams::immortal_share
  bool operator==(const LifetimeClass&) const = default;
};
inline constexpr std::size_t kMaxLifetimeClasses = 64;

struct LifetimeParams {
  std::vector<ValueRange> sizes;      // bytes, 1..kMaxFittedBlockSize; at least one row
  std::vector<ValueRange> lifetimes;  // allocations, 1..kMaxFittedLifetime; empty only if immortal_share == 1
  double immortal_share = 0;          // share of blocks never freed inside the loop, 0..1
  std::vector<LifetimeClass> lifetime_classes;  // optional, at most kMaxLifetimeClasses
  unsigned threads = 1;
  std::uint64_t allocations_per_thread = 1'000'000;
  std::uint64_t seed = 1;
};

// Throws std::invalid_argument with one line naming the bad field (e.g. "sizes[3].max",
// "lifetime_classes[1].lifetimes[0].min") and the accepted range.
void validate(const LifetimeParams& params);

// The trace a fit was derived from, as `allocstress fit` measured it (trace_fit.hpp says how).
struct TraceSummary {
  std::string path;
  std::uint64_t events = 0;
  std::uint64_t threads = 0;              // threads with at least one event
  std::uint64_t allocating_threads = 0;   // threads with at least one successful allocation
  double effective_threads = 0;           // (Σ n_t)² / Σ n_t² over per-thread allocation counts n_t
  std::uint64_t allocations = 0;          // successful allocations, realloc results included
  std::uint64_t frees = 0;                // blocks released (free, delete, realloc's old block)
  std::uint64_t reallocs = 0;             // successful reallocs that moved or resized a block
  std::uint64_t failed_allocations = 0;   // allocation or realloc that returned NULL (ignored)
  std::uint64_t unmatched_frees = 0;      // free of an address not live in the trace (ignored)
  std::uint64_t reused_without_free = 0;  // allocation at a still-live address: old block ended there
  std::uint64_t zero_size_allocations = 0;  // counted as 1-byte blocks
  std::uint64_t clamped_sizes = 0;        // larger than kMaxFittedBlockSize: counted as that size
  std::uint64_t never_freed = 0;          // blocks live at the end of the trace (censored)
  std::uint64_t freed_after_owner_done = 0;  // freed after their thread's last allocation (censored)
  std::uint64_t peak_live_requested_bytes = 0;  // over the merged (TSC) order
  std::uint64_t requested_bytes = 0;      // Σ sizes of all allocations
  double mean_size = 0;
  std::uint64_t median_size = 0;
  std::uint64_t max_size = 0;
  double immortal_share = 0;              // estimated share of blocks never freed (Kaplan-Meier tail)
  std::uint64_t median_lifetime = 0;      // of the lifetimes observed (blocks freed); 0: none
  double mean_lifetime = 0;               // of the lifetimes observed
  std::string truncation;                 // "" or why the trace reader stopped early
};

// How close the fitted model comes to the trace.
struct FitQuality {
  double size_ks_distance = 0;      // sup |F_trace - F_table| over sizes
  double lifetime_ks_distance = 0;  // the same over finite lifetimes, against their Kaplan-Meier law
  std::uint64_t size_rows = 0, lifetime_rows = 0;
  // Σ over the model's threads of the peak live requested bytes of a dry run of the model (the
  // workload's own figure), next to the trace's peak over its merged order.
  std::uint64_t model_peak_live_requested_bytes = 0;
  std::uint64_t trace_peak_live_requested_bytes = 0;
  double max_range_share = 0;       // the fit's resolution: no multi-value row weighs more
};

struct FitConfig {
  LifetimeParams params;
  TraceSummary trace;
  FitQuality quality;
};

// The file's text (pretty JSON; one table row per line).
std::string fit_config_text(const FitConfig& config);
// Parses and validates a fit file's text; `name` stands for the file in messages.  Throws
// std::invalid_argument "NAME: what is wrong (what is accepted)".
FitConfig parse_fit_config(std::string_view text, const std::string& name);
// Reads and parses a fit file.  Throws std::invalid_argument (cannot read, or bad content).
FitConfig load_fit_config(const std::filesystem::path& path);
// Writes the file whole or not at all: a temporary beside it, renamed into place.  Throws
// std::runtime_error when it cannot.
void save_fit_config(const std::filesystem::path& path, const FitConfig& config);

}  // namespace allocstress
