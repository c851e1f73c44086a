// Timer calibration, the address set and the per-class latency summary (see latency_profile.hpp).
#include "cells/profiling/latency_profile.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace allocstress {

TimerCalibration calibrate_timer() {
  constexpr int kReads = 100'000;
  std::vector<std::uint64_t> brackets(kReads);
  for (auto& b : brackets) {
    const std::uint64_t t0 = cycle_counter_begin();
    b = cycle_counter_end() - t0;
  }
  std::nth_element(brackets.begin(), brackets.begin() + kReads / 2, brackets.end());
  TimerCalibration c;
  c.empty_bracket_ticks = brackets[kReads / 2];
  std::uint64_t smallest = ~std::uint64_t{0};
  std::uint64_t previous = cycle_counter_begin();
  for (int i = 0; i < kReads; ++i) {
    const std::uint64_t now = cycle_counter_begin();
    if (now > previous) smallest = std::min(smallest, now - previous);
    previous = now;
  }
  c.resolution_ticks = smallest == ~std::uint64_t{0} ? 0 : smallest;
  return c;
}

namespace {

template <class T>
T* map_array(std::size_t n) {
  void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<T*>(p);  // zero-filled: every entry starts empty
}

std::size_t home(std::uint64_t key, std::size_t capacity) { return std::size_t((key * 0x9e3779b97f4a7c15ULL) >> 20) & (capacity - 1); }

}  // namespace

AddressSet::AddressSet(std::size_t expected_pages) {
  capacity_ = 256;
  while (capacity_ < expected_pages * 2 && capacity_ < (std::size_t{1} << 14)) capacity_ *= 2;
  pages_ = map_array<Page>(capacity_);
}

AddressSet::~AddressSet() { munmap(pages_, capacity_ * sizeof(Page)); }

AddressSet::Page& AddressSet::find_or_add(std::uint64_t key) {
  for (std::size_t i = home(key, capacity_);; i = (i + 1) & (capacity_ - 1)) {
    if (pages_[i].key == key) return pages_[i];
    if (pages_[i].key == 0) {
      if ((used_ + 1) * 2 > capacity_) {
        grow();
        return find_or_add(key);
      }
      pages_[i].key = key;
      ++used_;
      return pages_[i];
    }
  }
}

bool AddressSet::insert(const void* p) {
  const auto a = std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
  Page& page = find_or_add((a >> 12) + 1);
  const unsigned granule = unsigned(a >> 3) & 511;
  std::uint64_t& word = page.bits[granule >> 6];
  const std::uint64_t bit = std::uint64_t{1} << (granule & 63);
  if (word & bit) return true;
  word |= bit;
  ++size_;
  return false;
}

void AddressSet::grow() {
  Page* old = pages_;
  const std::size_t old_capacity = capacity_;
  capacity_ *= 2;
  pages_ = map_array<Page>(capacity_);
  for (std::size_t j = 0; j < old_capacity; ++j) {
    if (old[j].key == 0) continue;
    std::size_t i = home(old[j].key, capacity_);
    while (pages_[i].key != 0) i = (i + 1) & (capacity_ - 1);
    pages_[i] = old[j];
  }
  munmap(old, old_capacity * sizeof(Page));
}

LatencyObserver::LatencyObserver(std::uint64_t sample_every, std::uint64_t empty_bracket_ticks, std::size_t expected_pages)
    : sample_every_(sample_every), empty_(empty_bracket_ticks), addresses_(expected_pages) {
  void* p = mmap(nullptr, kHistograms * sizeof(LatencyHistogram), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  hists_ = static_cast<LatencyHistogram*>(p);
  for (std::size_t i = 0; i < kHistograms; ++i) new (&hists_[i]) LatencyHistogram();
}

LatencyObserver::~LatencyObserver() { munmap(hists_, kHistograms * sizeof(LatencyHistogram)); }

std::uint64_t LatencyObserver::sampled() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kHistograms; ++i) n += hists_[i].count();
  return n;
}

nlohmann::json latency_classes(const std::vector<const LatencyObserver*>& threads, const SizeClassBounds& bounds,
                               double tsc_hz, std::uint64_t resolution_ticks, bool parallel) {
  const char* const kClass[] = {"small", "medium", "large"};
  auto class_of_bucket = [&](unsigned bucket) {
    const std::uint64_t low = std::uint64_t{1} << bucket;
    if (bounds.large_from != 0 && low >= bounds.large_from) return 2;
    return low < bounds.small_limit ? 0 : 1;
  };
  // multiply first: exact for whole nanoseconds (63 ticks at 1 GHz came out as 62.99999999999999 ns)
  auto ns = [&](std::uint64_t ticks) { return tsc_hz > 0 ? double(ticks) * 1e9 / tsc_hz : 0.0; };
  nlohmann::json rows = nlohmann::json::array();
  for (unsigned op = 0; op < 2; ++op)
    for (int cls = 0; cls < 3; ++cls)
      for (unsigned reuse = 0; reuse < 2; ++reuse) {
        if (op == 1 && reuse == 1) continue;  // frees are not split by address
        LatencyHistogram merged;
        for (const LatencyObserver* t : threads)
          for (unsigned b = 0; b < LatencyObserver::kMaxBuckets; ++b)
            if (class_of_bucket(b) == cls) merged.merge(t->hist(op, b, reuse));
        if (merged.count() == 0) continue;
        nlohmann::json row = {{"op", op == 0 ? "malloc" : "free"},
                              {"size_class", kClass[cls]},
                              {"address", op == 1 ? "any" : reuse ? "reused" : "new"},
                              {"phase", parallel ? "parallel" : "serial"},
                              {"sampled", merged.count()},
                              {"resolution_ns", ns(resolution_ticks)}};
        nlohmann::json below = nlohmann::json::array();
        auto put = [&](const char* key, std::uint64_t ticks) {
          row[key] = ns(ticks);
          if (ticks < resolution_ticks) below.push_back(key);  // not distinguishable from 0 on this counter
        };
        put("p50_ns", merged.quantile(0.5));
        put("p90_ns", merged.quantile(0.9));
        put("p99_ns", merged.quantile(0.99));
        put("p999_ns", merged.quantile(0.999));
        put("max_ns", merged.max());
        row["below_resolution"] = std::move(below);
        rows.push_back(std::move(row));
      }
  return rows;
}

}  // namespace allocstress
