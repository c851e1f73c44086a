// Sampled per-operation latency of a profile run (BACKGROUND §3, mmprof/MemPerf), as an observer
// of the alloc-test loop (workloads/alloc_test.hpp):
//   - every `sample_every`-th operation is bracketed by the cycle counter (lfence;rdtsc at
//     both ends, platform/tsc.hpp); the median cost of an empty bracket, measured beforehand, is subtracted;
//   - the first allocation of each thread is never timed (allocator initialisation);
//   - each timed operation lands in a log-linear histogram by operation (malloc, free), size
//     bucket (power of two) and, for mallocs, whether its address was ever returned before on
//     this thread (AddressSet, updated on every malloc: the one per-op cost of a profile run
//     besides the counter reads of sampled operations).
// Percentiles by class (small/medium/large from the allocator's fingerprint) are assembled
// afterwards by latency_classes().
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cells/profiling/latency_histogram.hpp"
#include "platform/tsc.hpp"

namespace allocstress {

// The cycle counter's own cost and resolution on this machine, measured now.
struct TimerCalibration {
  std::uint64_t empty_bracket_ticks = 0;  // median of begin..end with nothing in between
  std::uint64_t resolution_ticks = 0;     // smallest non-zero step between consecutive reads
};
TimerCalibration calibrate_timer();

// Every address malloc returned on one thread, exactly, at 8-byte granularity (malloc's minimum
// alignment): one 512-bit bitmap per 4 KiB page, pages in an open-addressing table over mmap'd
// memory that grows by rehashing at half load.  Blocks cluster in pages, so the table stays small
// enough to live in the L2 cache even when the heap holds millions of blocks.
class AddressSet {
 public:
  // `expected_pages` only sizes the initial table.
  explicit AddressSet(std::size_t expected_pages);
  ~AddressSet();
  AddressSet(const AddressSet&) = delete;
  AddressSet& operator=(const AddressSet&) = delete;
  // true when `p` was inserted before.
  bool insert(const void* p);
  std::size_t size() const { return size_; }  // distinct addresses

 private:
  struct Page {
    std::uint64_t key;  // page number + 1; 0 = empty
    std::uint64_t bits[8];
  };
  Page* pages_ = nullptr;
  std::size_t capacity_ = 0, used_ = 0, size_ = 0;
  Page& find_or_add(std::uint64_t key);
  void grow();
};

class LatencyObserver {
 public:
  static constexpr unsigned kMaxBuckets = 64;  // size buckets: bit_width(size) - 1

  LatencyObserver(std::uint64_t sample_every, std::uint64_t empty_bracket_ticks, std::size_t expected_pages);

  std::uint64_t begin_op() {
    if (++ops_ % sample_every_ != 0 || !past_first_) return 0;
    return cycle_counter_begin() | 1;  // never 0: 0 means "not timed"
  }
  void end_malloc(std::uint64_t token, void* p, std::size_t size) {
    const std::uint64_t t1 = token != 0 ? cycle_counter_end() : 0;
    const bool reused = addresses_.insert(p);
    if (!past_first_) {
      past_first_ = true;  // the thread's first allocation initialises the allocator: never timed
      return;
    }
    if (token != 0) record(0, size, reused ? 1 : 0, t1, token);
  }
  void end_free(std::uint64_t token, void*, std::size_t size) {
    if (token != 0) record(1, size, 0, cycle_counter_end(), token);
  }

  // hist(op, size bucket, reuse): op 0 = malloc, 1 = free; reuse 1 = the address was seen before.
  const LatencyHistogram& hist(unsigned op, unsigned bucket, unsigned reuse) const { return hists_[index(op, bucket, reuse)]; }
  std::uint64_t operations() const { return ops_; }
  std::uint64_t sampled() const;
  std::uint64_t distinct_addresses() const { return addresses_.size(); }

 private:
  static std::size_t index(unsigned op, unsigned bucket, unsigned reuse) { return (op * kMaxBuckets + bucket) * 2 + reuse; }
  void record(unsigned op, std::size_t size, unsigned reuse, std::uint64_t t1, std::uint64_t token) {
    const std::uint64_t t0 = token & ~std::uint64_t{1};
    const std::uint64_t raw = t1 > t0 ? t1 - t0 : 0;
    hists_[index(op, unsigned(std::bit_width(size)) - 1, reuse)].add(raw > empty_ ? raw - empty_ : 0);
  }

  std::uint64_t sample_every_, empty_;
  std::uint64_t ops_ = 0;
  bool past_first_ = false;
  AddressSet addresses_;
  // In mmap'd memory, not from the allocator under test: its own statistics must not count the
  // profiler's histograms (2 x 64 x 2 of them, 1.2 MiB per thread).
  LatencyHistogram* hists_ = nullptr;
  static constexpr std::size_t kHistograms = 2 * kMaxBuckets * 2;

 public:
  ~LatencyObserver();
  LatencyObserver(const LatencyObserver&) = delete;
  LatencyObserver& operator=(const LatencyObserver&) = delete;
};

// Size classes for latency: small below `small_limit` bytes, large from `large_from` (0 = no
// large class), medium between.  A power-of-two size bucket belongs to the class of its lower end.
struct SizeClassBounds {
  std::uint64_t small_limit = 1024;
  std::uint64_t large_from = 0;
  std::string source;  // how the bounds were obtained (the fingerprint, or why not)
};

// One row per non-empty class: op, size_class, address (new / reused / any), phase (serial for
// one thread, parallel otherwise), sampled count, p50/p90/p99/p99.9/max in ns, the counter's
// resolution in ns and `below_resolution`: the keys of the figures smaller than one step of the
// counter (`resolution_ticks`, TimerCalibration).  Such a figure is the empty bracket's median
// subtracted from a bracket that took about as long: it says "< resolution", not "0 ns", and
// tables print it so.
nlohmann::json latency_classes(const std::vector<const LatencyObserver*>& threads, const SizeClassBounds& bounds,
                               double tsc_hz, std::uint64_t resolution_ticks, bool parallel);

}  // namespace allocstress
