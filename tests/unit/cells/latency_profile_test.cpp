// Profile-run building blocks: histogram bucket math and percentiles on known inputs, the
// address set, per-class assembly, and parsing strace output between the phase markers.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cells/profiling/latency_profile.hpp"
#include "platform/profilers/syscall_trace.hpp"

namespace allocstress {
namespace {

TEST(LatencyHistogram, BucketsCoverEveryValueWithinOneSixteenth) {
  for (std::uint64_t v : {0ull, 1ull, 15ull, 16ull, 17ull, 31ull, 32ull, 33ull, 1000ull, 123456789ull, ~0ull >> 1}) {
    const unsigned b = LatencyHistogram::bucket_of(v);
    ASSERT_LT(b, LatencyHistogram::kBuckets);
    const std::uint64_t low = LatencyHistogram::lower_bound(b);
    EXPECT_LE(low, v);
    EXPECT_LE(double(v - low), double(low) / 16.0 + 1e-9) << v;  // relative error bound
    if (b + 1 < LatencyHistogram::kBuckets) {
      EXPECT_GT(LatencyHistogram::lower_bound(b + 1), v) << v;
    }
  }
  EXPECT_EQ(LatencyHistogram::bucket_of(15), 15u);  // exact below 16
}

TEST(LatencyHistogram, QuantilesOfKnownData) {
  LatencyHistogram h;
  for (std::uint64_t v = 1; v <= 100; ++v) h.add(v);  // 1..100
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.max(), 100u);
  // p50 = 50 lies in bucket [48, 50) .. lower bound within 1/16
  EXPECT_NEAR(double(h.quantile(0.5)), 50.0, 50.0 / 16.0);
  EXPECT_NEAR(double(h.quantile(0.99)), 99.0, 99.0 / 16.0);
  EXPECT_EQ(h.quantile(0.01), 1u);
  LatencyHistogram other;
  other.add(1000);
  h.merge(other);
  EXPECT_EQ(h.count(), 101u);
  EXPECT_EQ(h.max(), 1000u);
  EXPECT_GE(h.quantile(1.0), 1000u * 15 / 16);
}

TEST(LatencyHistogram, QuantilesOfRandomDataStayWithinTheBound) {
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> values(100000);
  LatencyHistogram h;
  for (auto& v : values) h.add(v = 20 + rng() % 100000);
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = double(values[std::size_t(q * double(values.size())) - 1]);
    EXPECT_LE(double(h.quantile(q)), exact) << q;
    EXPECT_GE(double(h.quantile(q)), exact * 15.0 / 16.0 - 1) << q;
  }
}

TEST(AddressSet, ReportsReuseAndSurvivesGrowth) {
  AddressSet s(1);
  // 8-byte-aligned addresses (malloc's minimum) spread over many pages, to force rehashing
  std::vector<std::uint64_t> memory(1 << 20);
  std::vector<const void*> addresses;
  for (std::size_t i = 0; i < (1u << 19); i += 37) addresses.push_back(&memory[i]);
  for (std::size_t i = 0; i < 512; ++i) addresses.push_back(&memory[(1 << 19) + i]);  // neighbours 8 bytes apart
  for (const void* p : addresses) EXPECT_FALSE(s.insert(p));
  for (const void* p : addresses) EXPECT_TRUE(s.insert(p));
  EXPECT_EQ(s.size(), addresses.size());
}

TEST(LatencyClasses, ObserverSplitsByOpSizeAndReuse) {
  LatencyObserver o(1, 0, 16);  // every operation after the first malloc is timed
  alignas(16) std::uint64_t a[2] = {}, b[2] = {};
  o.end_malloc(o.begin_op(), a, 8);  // the first allocation: never timed
  o.end_malloc(o.begin_op(), b, 8);  // new address
  o.end_free(o.begin_op(), b, 8);
  o.end_malloc(o.begin_op(), b, 8);  // reused address
  o.end_malloc(o.begin_op(), a, 4096);  // reused (a was returned first), medium
  EXPECT_EQ(o.sampled(), 4u);
  const auto rows = latency_classes({&o}, {1024, 0, "test"}, 1e9, 0, false);
  auto count = [&](const char* op, const char* cls, const char* address) {
    for (const auto& r : rows)
      if (r["op"] == op && r["size_class"] == cls && r["address"] == address) return r["sampled"].get<int>();
    return 0;
  };
  EXPECT_EQ(count("malloc", "small", "new"), 1);
  EXPECT_EQ(count("malloc", "small", "reused"), 1);
  EXPECT_EQ(count("malloc", "medium", "reused"), 1);
  EXPECT_EQ(count("free", "small", "any"), 1);
  for (const auto& r : rows) EXPECT_EQ(r["phase"], "serial");
}

// A figure below one step of the counter is listed in below_resolution, and only such a figure.
TEST(LatencyClasses, FlagsFiguresBelowTheCounterResolution) {
  LatencyObserver o(1, 0, 16);
  alignas(16) std::uint64_t a[2] = {}, b[2] = {};
  o.end_malloc(o.begin_op(), a, 8);  // never timed
  for (int i = 0; i < 100; ++i) {
    o.end_malloc(o.begin_op(), b, 8);
    o.end_free(o.begin_op(), b, 8);
  }
  const std::uint64_t huge = std::uint64_t{1} << 50;  // longer than any bracket: every figure is below it
  for (const auto& r : latency_classes({&o}, {1024, 0, "test"}, 1e9, huge, false)) {
    EXPECT_EQ(r["below_resolution"].size(), 5u) << r.dump();
    EXPECT_DOUBLE_EQ(r["resolution_ns"].get<double>(), double(huge));
  }
  for (const auto& r : latency_classes({&o}, {1024, 0, "test"}, 1e9, 0, false)) EXPECT_TRUE(r["below_resolution"].empty()) << r.dump();
  // a resolution between the smallest and the largest figure: exactly those below it are listed
  const auto rows = latency_classes({&o}, {1024, 0, "test"}, 1e9, 0, false);
  for (const auto& r : rows) {
    // 1 tick = 1 ns at 1 GHz, and the conversion is exact for whole ticks (63 ticks once came out as
    // 62.99999999999999 ns, so the resolution passed here and the one compared against differed)
    const double cut = r["max_ns"].get<double>();
    ASSERT_EQ(cut, std::floor(cut)) << r.dump();
    const auto flagged = latency_classes({&o}, {1024, 0, "test"}, 1e9, std::uint64_t(cut), false);
    for (const auto& f : flagged) {
      if (f["op"] != r["op"] || f["address"] != r["address"] || f["size_class"] != r["size_class"]) continue;
      for (const char* key : {"p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"}) {
        const bool listed = std::find(f["below_resolution"].begin(), f["below_resolution"].end(), key) != f["below_resolution"].end();
        EXPECT_EQ(listed, f[key].get<double>() < cut) << key << " " << f.dump();
      }
    }
  }
}

// Each named call's count in a syscall summary's "counts" object.
template <class Json>
void expect_counts(const Json& counts, const std::vector<std::pair<std::string, int>>& expected) {
  for (const auto& [call, n] : expected) EXPECT_EQ(counts[call], n) << call;
}

TEST(SyscallTrace, CountsOnlyBetweenTheMarkersAndJoinsResumedCalls) {
  const auto path = std::filesystem::temp_directory_path() / "allocstress-strace-test";
  std::ofstream(path) << "100 mmap(NULL, 4096, PROT_READ) = 0x7f0 <0.000010>\n"  // before: not counted
                         "100 prctl(PR_SET_NAME, \"as-phase-go\") = 0 <0.000001>\n"
                         "101 mmap(NULL, 8192, PROT_READ|PROT_WRITE) = 0x7f1 <0.000020>\n"
                         "102 futex(0x55, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>\n"
                         "101 munmap(0x7f1, 8192) = 0 <0.000005>\n"
                         "102 <... futex resumed>) = 0 <0.001000>\n"
                         "101 madvise(0x7f2, 4096, MADV_DONTNEED) = 0 <0.000003>\n"
                         "100 prctl(PR_SET_NAME, \"as-phase-done\") = 0 <0.000001>\n"
                         "101 munmap(0x7f3, 4096) = 0 <0.000004>\n";  // after: not counted
  const auto s = syscalls_in_phase(path);
  expect_counts(s["counts"], {{"mmap", 1}, {"munmap", 1}, {"madvise", 1}, {"futex", 1}, {"brk", 0}});
  EXPECT_NEAR(s["time_ns"]["futex"].get<double>(), 1e6, 1);
  std::ofstream(path) << "100 mmap(NULL, 4096, PROT_READ) = 0x7f0 <0.000010>\n";
  EXPECT_THROW(syscalls_in_phase(path), std::runtime_error);  // no markers: an error naming the file
  std::filesystem::remove(path);
}

TEST(SyscallTrace, SummaryCountsMemoryCallsByKindAndTheRestAsOther) {
  const auto path = std::filesystem::temp_directory_path() / "allocstress-strace-summary-test";
  std::ofstream(path) << "    calls syscall\n"
                         "--------- ----------------\n"
                         "       44 mmap\n"
                         "        4 munmap\n"
                         "       27 brk\n"
                         "       36 openat\n"
                         "        9 read\n"
                         "--------- ----------------\n"
                         "      120 total\n";
  const auto s = syscalls_in_summary(path);
  expect_counts(s["counts"], {{"mmap", 44}, {"munmap", 4}, {"brk", 27}, {"madvise", 0}, {"other", 45}});
  EXPECT_EQ(s["other_calls"]["openat"], 36);
  const auto figures = kernel_event_figures(10, 1, s["counts"], 4, "pair");
  EXPECT_EQ(figures["syscalls_total"], 120);
  EXPECT_DOUBLE_EQ(figures["syscalls_total_per_unit"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(figures["minor_faults_per_unit"].get<double>(), 2.5);
  std::ofstream(path) << "    calls syscall\n       44 mmap\n";
  EXPECT_THROW(syscalls_in_summary(path), std::runtime_error);  // strace ended before its total
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace allocstress
