// smaps_rollup parsing, the mTHP counters of a fake folder, and live: a madvised, touched 64 MiB
// region shows AnonHugePages (when the system mode allows it), and the sampler's bounds.
#include "platform/memory/hugepage_usage.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "state_waits.hpp"

namespace allocstress {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kRollup =
    "5629e1ef4000-7ffd710e1000 ---p 00000000 00:00 0                          [rollup]\n"
    "Rss:                1716 kB\nPss:                 502 kB\nPss_Anon:            112 kB\n"
    "Anonymous:          4096 kB\nKSM:                   0 kB\nAnonHugePages:      2048 kB\n"
    "ShmemPmdMapped:        0 kB\nSwap:                  0 kB\n";

// 64 MiB of anonymous memory aligned to 2 MiB, madvised for huge pages and touched.
struct HugeRegion {
  static constexpr std::size_t kBytes = 64u << 20, kHuge = 2u << 20;
  void* raw = MAP_FAILED;
  char* base = nullptr;
  HugeRegion() {
    raw = ::mmap(nullptr, kBytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return;
    base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1));
    ::madvise(base, kBytes, MADV_HUGEPAGE);
    std::memset(base, 1, kBytes);
  }
  ~HugeRegion() {
    if (raw != MAP_FAILED) ::munmap(raw, kBytes + kHuge);
  }
};

std::optional<std::uint64_t> pmd_fallbacks() {
  for (const auto& c : system_mthp_counters())
    if (c.size_kib == 2048) return c.anon_fault_fallback;
  return std::nullopt;
}

TEST(HugepageUsage, ParsesSmapsRollup) {
  const auto r = parse_smaps_rollup(kRollup);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rss_bytes, 1716u * 1024);
  EXPECT_EQ(r->anon_bytes, 4096u * 1024);  // not Pss_Anon
  EXPECT_EQ(r->anon_huge_bytes, 2048u * 1024);
  EXPECT_FALSE(parse_smaps_rollup("Rss: 1 kB\nAnonymous: 1 kB\n"));
  EXPECT_FALSE(parse_smaps_rollup("Rss: x kB\nAnonymous: 1 kB\nAnonHugePages: 0 kB\n"));
  EXPECT_FALSE(parse_smaps_rollup(""));
}

TEST(HugepageUsage, ReadsThisProcessOrSaysWhyNot) {
  std::string why;
  const auto r = read_smaps_rollup(kSelfSmapsRollup, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_GT(r->rss_bytes, 0u);
  EXPECT_GT(r->anon_bytes, 0u);
  EXPECT_LE(r->anon_bytes, r->rss_bytes);
  EXPECT_FALSE(read_smaps_rollup("/nonexistent/smaps_rollup", &why));
  EXPECT_NE(why.find("cannot open /nonexistent/smaps_rollup"), std::string::npos) << why;
}

TEST(HugepageUsage, MthpCountersOfAFakeFolder) {
  char name[] = "/tmp/hugepage_usage_testXXXXXX";
  const fs::path dir = ::mkdtemp(name);
  EXPECT_TRUE(system_mthp_counters(dir).empty());
  for (const auto& [size, enabled, nr] : {std::tuple{"2048", "always [inherit] madvise never", "1"},
                                          std::tuple{"64", "always inherit madvise [never]", "3"}}) {
    const fs::path d = dir / ("hugepages-" + std::string(size) + "kB");
    fs::create_directories(d / "stats");
    std::ofstream(d / "enabled") << enabled << "\n";
    std::ofstream(d / "stats" / "nr_anon") << nr << "\n";
  }
  fs::create_directories(dir / "khugepaged");
  fs::create_directories(dir / "hugepages-8kB" / "stats");  // shmem only: no `enabled`
  const auto c = system_mthp_counters(dir);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].size_kib, 64u);
  EXPECT_EQ(c[0].enabled, "never");
  EXPECT_EQ(c[0].nr_anon, 3u);
  EXPECT_EQ(c[0].anon_fault_alloc, std::nullopt);
  EXPECT_EQ(c[1].enabled, "inherit");
  EXPECT_EQ(mthp_anon_bytes(c), 3u * 64 * 1024 + 2048u * 1024);
  fs::remove_all(dir);
}

TEST(HugepageUsage, MadvisedTouchedRegionShowsAnonHugePages) {
  std::string why;
  const auto mode = system_thp_mode(&why);
  if (!mode) GTEST_SKIP() << why;
  if (*mode == ThpMode::never) GTEST_SKIP() << "system THP mode is never: no huge pages to see";
  if (::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1) GTEST_SKIP() << "THP disabled for this process (prctl)";
  const auto before = read_smaps_rollup();
  const auto fallbacks_before = pmd_fallbacks();
  HugeRegion region;
  ASSERT_NE(region.raw, MAP_FAILED) << std::strerror(errno);
  const auto after = read_smaps_rollup();
  ASSERT_TRUE(before && after);
  if (after->anon_huge_bytes == before->anon_huge_bytes && fallbacks_before && pmd_fallbacks() > fallbacks_before)
    GTEST_SKIP() << "the kernel fell back to small pages (anon_fault_fallback rose: no free 2 MiB blocks?)";
  EXPECT_GT(after->anon_huge_bytes, before->anon_huge_bytes);
  EXPECT_GE(after->anon_huge_bytes, HugeRegion::kBytes / 2) << "mode " << to_string(*mode);
  EXPECT_GE(after->anon_bytes, after->anon_huge_bytes);
}

// The sampler's tests wait for readings, never for time: how many readings a stretch of time
// holds depends on how the machine schedules the sampler's thread.

TEST(HugepageSampler, SamplesAPhase) {
  // No slowing down (a reading costs up to 1 ms of CPU in sanitizer builds): the schedule itself.
  HugepageSampler sampler({.max_busy_fraction = 1});
  sampler.start();
  ASSERT_TRUE(test::wait_until([&] { return sampler.readings_so_far() >= 2; }));  // one of the thread's before the region
  {
    HugeRegion region;
    const std::size_t before = sampler.readings_so_far();
    ASSERT_TRUE(test::wait_until([&] { return sampler.readings_so_far() >= before + 3; }));  // three while it lives
  }
  const HugepageSummary s = sampler.stop();
  ASSERT_EQ(s.unavailable, "");
  // start()'s, at least 4 of the thread's, stop()'s; a reading never takes the 20 ms interval's
  // CPU time twice in a row, so none was thinned out.
  EXPECT_GE(s.samples.size(), 6u) << "slowest reading " << s.slowest_reading_s << " s, slowdowns " << s.slowdowns;
  EXPECT_EQ(s.samples.size(), s.readings);
  EXPECT_LE(s.samples.size(), 512u);
  EXPECT_EQ(s.failed_readings, 0u);
  ASSERT_TRUE(s.median_coverage && s.peak_coverage && s.median_rss_coverage && s.peak_rss_coverage);
  EXPECT_GE(*s.peak_coverage, *s.median_coverage);
  EXPECT_GE(*s.peak_rss_coverage, *s.median_rss_coverage);
  EXPECT_LE(*s.peak_coverage, 1.0);
  EXPECT_LE(*s.peak_rss_coverage, *s.peak_coverage);  // Rss >= Anonymous
  EXPECT_GE(s.peak_anon_huge_bytes, s.samples.front().anon_huge_bytes);
  EXPECT_EQ(s.samples.front().t_s, 0.0);
  for (std::size_t i = 1; i < s.samples.size(); ++i) EXPECT_GT(s.samples[i].t_s, s.samples[i - 1].t_s);
  EXPECT_EQ(s.mthp_at_start.size(), s.mthp_at_stop.size());
  const auto j = to_json(s);
  EXPECT_TRUE(j["unavailable"].is_null());
  EXPECT_EQ(j["samples"]["t_s"].size(), s.samples.size());
  EXPECT_EQ(j["coverage"]["peak"].get<double>(), *s.peak_coverage);
}

TEST(HugepageSampler, DecimatesToStayBounded) {
  HugepageSampler sampler({.interval = 1ms, .max_samples = 8, .max_busy_fraction = 1});
  sampler.start();
  // 13 readings into at most 8 places: each thinning removes at most 4 of the 8, and at least
  // 13 - 8 = 5 went, so the interval doubled at least twice (exactly twice unless a reading took
  // more CPU time than its interval twice in a row, which thins and doubles too).
  ASSERT_TRUE(test::wait_until([&] { return sampler.readings_so_far() >= 13; }));
  const HugepageSummary s = sampler.stop();
  ASSERT_EQ(s.unavailable, "");
  EXPECT_LE(s.samples.size(), 8u);
  EXPECT_GE(s.readings, 14u);  // and stop()'s
  EXPECT_GE(s.interval_s, 0.004);
  EXPECT_EQ(s.samples.front().t_s, 0.0);
  for (std::size_t i = 1; i < s.samples.size(); ++i) EXPECT_GT(s.samples[i].t_s, s.samples[i - 1].t_s);
}

// A sampler's summary once it has taken `readings` readings (start()'s included), or nullopt if
// it never got there or could not read.
std::optional<HugepageSummary> summary_after(const HugepageSamplerOptions& options, std::size_t readings) {
  HugepageSampler sampler(options);
  sampler.start();
  if (!test::wait_until([&] { return sampler.readings_so_far() >= readings; })) return std::nullopt;
  HugepageSummary s = sampler.stop();
  if (!s.unavailable.empty()) return std::nullopt;
  return s;
}

TEST(HugepageSampler, SlowReadingsLengthenTheInterval) {
  const auto summary = summary_after({.interval = 1ms, .max_busy_fraction = 1e-9}, 2);  // every reading is "slow"
  ASSERT_TRUE(summary);
  const HugepageSummary& s = *summary;
  // The thread's first reading and start()'s both took CPU time (0.1 us at the very least: a
  // reading walks the process's page tables), so the interval doubled until such a reading fits
  // in 1e-9 of it: from 1 ms to over 100 s, 17 doublings or more.  No reading came due after
  // that: start()'s, that one and stop()'s.
  EXPECT_GE(s.slowdowns, 17u);
  EXPECT_GE(s.interval_s, 100.0);
  EXPECT_EQ(s.readings, 3u);
  EXPECT_GT(s.slowest_reading_s, 0.0);
  // a slowdown thins the samples before the reading that caused it, never that reading: the first,
  // the newest of the loop and stop()'s are kept (thinning after the push dropped the newest, and
  // a short cell's timeline kept only its first and last readings)
  EXPECT_EQ(s.samples.size(), 3u);
}

TEST(HugepageSampler, SlowReadingsStopAtTheLongestInterval) {
  const auto summary = summary_after({.interval = 1ms, .max_busy_fraction = 1e-9, .longest_interval = 5ms}, 6);  // every reading is "slow"
  ASSERT_TRUE(summary);
  const HugepageSummary& s = *summary;
  // start()'s reading is never slow (it has no reading before it); the thread's first one
  // doubles the interval twice, to 4 ms, and is still over budget there (8 ms would pass the
  // bound), as is every later one of the thread's; stop()'s costs nothing by definition.
  EXPECT_EQ(s.slowdowns, 2u);
  EXPECT_DOUBLE_EQ(s.interval_s, 0.004);
  EXPECT_EQ(s.over_budget, s.readings - 2);
  EXPECT_GE(s.over_budget, 3u);
  EXPECT_EQ(to_json(s)["over_budget"].get<std::size_t>(), s.over_budget);
  EXPECT_EQ(s.samples.size(), s.readings);  // both thinnings came with start()'s reading alone kept
}

// The sampler's thread, on this thread's CPU, starved by it: this thread turns SCHED_FIFO, which
// no ordinary thread preempts, and spins.  The slots that pass meanwhile are counted as skipped,
// not read in a burst afterwards.
TEST(HugepageSampler, SlotsThatPassWhileItIsStarvedAreCountedNotCaughtUp) {
  cpu_set_t original, here;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof original, &original), 0);
  CPU_ZERO(&here);
  CPU_SET(sched_getcpu(), &here);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof here, &here), 0);  // the sampler's thread inherits it
  const auto t0 = std::chrono::steady_clock::now();
  HugepageSampler sampler({.interval = 2ms, .max_busy_fraction = 1});
  sampler.start();
  ASSERT_TRUE(test::wait_until([&] { return sampler.readings_so_far() >= 3; }));
  const sched_param fifo{.sched_priority = 1}, other{.sched_priority = 0};
  if (const int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo); e != 0) {
    pthread_setaffinity_np(pthread_self(), sizeof original, &original);
    GTEST_SKIP() << "needs SCHED_FIFO (root or CAP_SYS_NICE): " << std::strerror(e);
  }
  constexpr auto kStarved = 80ms;
  for (const auto until = std::chrono::steady_clock::now() + kStarved; std::chrono::steady_clock::now() < until;) {
  }
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
  pthread_setaffinity_np(pthread_self(), sizeof original, &original);
  const std::size_t after = sampler.readings_so_far();
  ASSERT_TRUE(test::wait_until([&] { return sampler.readings_so_far() >= after + 2; }));  // it goes on
  const HugepageSummary s = sampler.stop();
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(s.unavailable, "");
  // 40 slots of 2 ms passed unread (fewer if a reading slower than 2 ms twice in a row doubled
  // the interval, whose slots are then counted), but for the one the thread read on waking.
  EXPECT_GE(double(s.skipped_slots), 80 / (s.interval_s * 1000) - 2) << "interval " << s.interval_s << " s";
  // Each slot was read or skipped, once: with start()'s and stop()'s readings, no more than the
  // slots of the whole time (no burst of readings after the starvation).
  EXPECT_LE(double(s.readings + s.skipped_slots), elapsed_ms / 2 + 3);
  EXPECT_EQ(to_json(s)["skipped_slots"].get<std::size_t>(), s.skipped_slots);
}

TEST(HugepageSampler, UnreadableSmapsRollupIsNotAvailable) {
  HugepageSampler sampler({.smaps_rollup = "/nonexistent/smaps_rollup"});
  sampler.start();
  const HugepageSummary s = sampler.stop();
  EXPECT_NE(s.unavailable.find("cannot open /nonexistent/smaps_rollup"), std::string::npos) << s.unavailable;
  EXPECT_TRUE(s.samples.empty());
  EXPECT_FALSE(s.median_coverage || s.peak_coverage);
  const auto j = to_json(s);
  EXPECT_EQ(j["unavailable"].get<std::string>().rfind("n/a(cannot open", 0), 0u) << j.dump();
  EXPECT_TRUE(j["coverage"]["median"].is_null());
  EXPECT_NE(HugepageSampler().stop().unavailable, "");  // never started
}

TEST(HugepageSampler, RefusesBadOptions) {
  EXPECT_THROW(HugepageSampler({.interval = 0ms}), std::invalid_argument);
  EXPECT_THROW(HugepageSampler({.max_samples = 7}), std::invalid_argument);
  EXPECT_THROW(HugepageSampler({.max_samples = 0}), std::invalid_argument);
  EXPECT_THROW(HugepageSampler({.max_busy_fraction = 0}), std::invalid_argument);
  EXPECT_THROW(HugepageSampler({.interval = 50ms, .longest_interval = 40ms}), std::invalid_argument);
  EXPECT_NO_THROW(HugepageSampler({.interval = 50ms, .longest_interval = 50ms}));
}

}  // namespace
}  // namespace allocstress
