// How much of a process's memory the kernel backs with huge pages, and how that changes over a
// measured phase.
//
// Model: /proc/<pid>/smaps_rollup sums the process's mappings: Rss (all resident memory: anon,
// file-backed and shmem), Anonymous (resident anonymous memory: what malloc hands out) and
// AnonHugePages (the part of Anonymous mapped by PMD-sized transparent huge pages, 2 MiB on x86-64).
// Smaller multi-size THP (mTHP) folios are NOT in AnonHugePages; the kernel counts them only
// system-wide, per size, in /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/stats/.
//
// Contract: a reading is one pread() of a descriptor opened once into a fixed stack buffer, with no
// heap allocation, so it may run beside a measured phase (it still takes the process's mmap lock
// for reading while it walks the page tables).  The sampler allocates only in start() and stop().
// Errors are reported as values (nullopt, "n/a" with a reason), never thrown, except bad options
// (std::invalid_argument naming what is accepted).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/memory/thp_mode.hpp"

namespace allocstress {

inline const std::filesystem::path kSelfSmapsRollup = "/proc/self/smaps_rollup";

struct HugepageReading {
  std::uint64_t rss_bytes = 0;        // Rss
  std::uint64_t anon_bytes = 0;       // Anonymous
  std::uint64_t anon_huge_bytes = 0;  // AnonHugePages (PMD-mapped THP only)
  double t_s = 0;                     // CLOCK_MONOTONIC seconds; the sampler's: seconds since start()
};

// The three fields of smaps_rollup text (kB -> bytes); nullopt unless all three are present.
// No allocation.
std::optional<HugepageReading> parse_smaps_rollup(std::string_view text);

// One reading through `fd` (an open smaps_rollup): pread from offset 0 into a stack buffer, no
// allocation; t_s is CLOCK_MONOTONIC.  nullopt when the read fails or the text lacks a field.
std::optional<HugepageReading> read_smaps_rollup(int fd);
// Opens, reads and closes `path`; the reason for nullopt in *why_not.
std::optional<HugepageReading> read_smaps_rollup(const std::filesystem::path& path = kSelfSmapsRollup,
                                                 std::string* why_not = nullptr);

// One multi-size THP size of the kernel (hugepages-<N>kB).  The counters are SYSTEM-WIDE: every
// process's anonymous folios of that size, not this process's.
struct MthpCounter {
  std::uint64_t size_kib = 0;
  std::string enabled;                              // the bracketed word: always, inherit, madvise, never
  std::optional<std::uint64_t> nr_anon;             // folios of this size mapped now (system-wide)
  std::optional<std::uint64_t> anon_fault_alloc;    // cumulative faults served with this size (system-wide)
  std::optional<std::uint64_t> anon_fault_fallback; // cumulative faults that wanted it and fell back
};

// Every anonymous THP size under `thp_dir` (a hugepages-<N>kB folder with an `enabled` file; those
// without one are shmem-only sizes), smallest first, the PMD size included; empty when the kernel
// has none (before 6.8, or without THP).  A counter file that cannot be read is nullopt.
std::vector<MthpCounter> system_mthp_counters(const std::filesystem::path& thp_dir = kThpDir);
// Sum of nr_anon x size over all sizes: bytes of anonymous THP of every size mapped system-wide.
std::uint64_t mthp_anon_bytes(const std::vector<MthpCounter>& counters);

struct HugepageSamplerOptions {
  std::chrono::milliseconds interval{20};
  std::size_t max_samples = 512;  // even, >= 2: when full, every second sample goes and the interval doubles
  // A reading walks every page table of the process: 5-18 ms for 1 GiB of 4 KiB pages, 30-60 us
  // in 2 MiB pages (kernel 6.18, 2-vCPU VM); every 20 ms it slowed the process's page faults up
  // to 2x and its mmap/munmap up to 4x.  So when two readings in a row take more CPU time than this
  // fraction of the interval, every second sample goes and the interval doubles (until they do not).
  double max_busy_fraction = 0.05;
  // 0: no bound.  Otherwise slow readings double the interval only while it stays at or below
  // this: a caller whose timeline needs its readings (a soak's bins) sets it, and then accepts
  // readings that cost more than max_busy_fraction (busy_s says how much).  Thinning for space is
  // not bounded by it.
  std::chrono::milliseconds longest_interval{0};
  std::filesystem::path smaps_rollup = kSelfSmapsRollup;  // or /proc/<pid>/smaps_rollup of a child
  std::filesystem::path thp_dir = kThpDir;
};

// Coverage is AnonHugePages / Anonymous: THP only ever backs anonymous memory here, so Anonymous
// is what could have been huge.  Rss also holds the program's text, its libraries and the page
// cache it maps, which differ between programs and allocators (a preloaded allocator library) and
// would dilute the ratio by amounts that have nothing to do with the allocator.  The Rss-based
// ratio is reported too, since it is the one people compute by hand.
struct HugepageSummary {
  std::string unavailable;               // "" when smaps_rollup was readable, else why (n/a)
  // t_s since start(): the first at start(), then every interval_s (but where a reading failed or
  // came late), the last at stop().
  std::vector<HugepageReading> samples;
  std::size_t readings = 0;              // taken, including those decimated away
  std::size_t failed_readings = 0;
  double interval_s = 0;                       // spacing of `samples` at the end
  double slowest_reading_s = 0;                // the most CPU time one reading took
  double busy_s = 0;                           // CPU time of every reading together (the sampler's cost)
  std::size_t slowdowns = 0;                   // interval doublings for slow readings (not for space)
  std::size_t over_budget = 0;                 // slow readings at longest_interval (no further slowdown)
  std::size_t skipped_slots = 0;               // slots that passed while the thread was behind (not read)
  std::optional<double> median_coverage;       // over samples with Anonymous > 0
  std::optional<double> peak_coverage;         // over every reading, decimated or not
  std::optional<double> median_rss_coverage;   // AnonHugePages / Rss
  std::optional<double> peak_rss_coverage;
  std::uint64_t peak_anon_huge_bytes = 0;
  std::vector<MthpCounter> mthp_at_start, mthp_at_stop;  // system-wide (see MthpCounter)
};

// {"unavailable": null or reason, "coverage": {"median", "peak", "median_rss", "peak_rss"} (null
// when n/a), "peak_anon_huge_bytes", "readings", "failed_readings", "interval_s",
// "slowest_reading_s", "slowdowns", "over_budget", "skipped_slots", "samples":
// {"t_s": [...], "rss_bytes": [...], "anon_bytes": [...], "anon_huge_bytes": [...]},
// "mthp": [{"size_kib", "enabled", "nr_anon_start", "nr_anon_stop"}, ...] (system-wide)}.
nlohmann::json to_json(const HugepageSummary& summary);

// Reads smaps_rollup on its own thread every `interval` from start() to stop(), into storage
// reserved in start(); less often when the storage is full or readings are slow (see the options).
class HugepageSampler {
 public:
  // Throws std::invalid_argument for an interval <= 0, a max_samples that is odd or below 2, a
  // max_busy_fraction outside (0, 1], or a longest_interval that is neither 0 nor >= the interval.
  explicit HugepageSampler(HugepageSamplerOptions options = {});
  ~HugepageSampler();  // stops the thread if it still runs (its summary is dropped)
  HugepageSampler(const HugepageSampler&) = delete;
  HugepageSampler& operator=(const HugepageSampler&) = delete;

  // Opens smaps_rollup, takes the first reading, reads the mTHP counters and starts the thread.
  // When smaps_rollup cannot be read no thread starts and stop() returns the reason.
  void start();
  // Ends the thread, takes a last reading and the mTHP counters, and summarises.
  HugepageSummary stop();
  // Readings taken since start() (decimated ones included), read while the thread runs: what a
  // caller waits on to know the sampler has got so far (the unit tests; a cell never waits).
  std::size_t readings_so_far();

 private:
  void run();
  bool end_thread();  // false when none ran
  std::optional<HugepageReading> read(double& cost_s) const;
  void record(const HugepageReading& r, double cost_s);
  void thin_out();
  HugepageSamplerOptions options_;
  int fd_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::nanoseconds interval_{};
  double start_t_s_ = 0;
  double last_cost_s_ = 0;
  std::size_t slot_ = 0;
  HugepageSummary summary_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace allocstress
