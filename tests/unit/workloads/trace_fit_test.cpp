// The fit: traces written with TraceWriter from known size and lifetime distributions are fitted
// back within tolerance; realloc, failed calls, unknown frees, address reuse and cross-thread
// frees are handled as trace_fit.hpp states; range tables and KS distances are exact.
#include "workloads/lifetimes/trace_fit.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <map>
#include <random>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "distribution_check.hpp"
#include "trace/trace_writer.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"

namespace allocstress {
namespace {

using trace::TraceEvent;
using trace::TraceOp;

struct ThreadEvent {
  std::uint32_t thread;
  TraceEvent event;
};

// ev(tsc, op, address, size, old_address): the event, in the order these tests list fields.
TraceEvent ev(std::uint64_t tsc, TraceOp op, std::uint64_t address, std::uint64_t size = 0, std::uint64_t old_address = 0) {
  return trace::make_event(op, tsc, address, size, old_address);
}

// Writes the events to a trace file with TraceWriter, reads it back, removes the file.
trace::TraceContents through_a_file(const std::vector<ThreadEvent>& events) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("allocstress-fit-test-" + std::to_string(::getpid()) + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".ast");
  {
    trace::TraceWriter w(path, trace::TraceOrigin{}, true, 1000);
    for (const auto& [thread, e] : events) w.add(thread, 100 + thread, e);
    w.finish();
  }
  trace::TraceContents t = trace::read_trace(path);
  std::filesystem::remove(path);
  return t;
}

double weight_within(const std::vector<ValueRange>& rows, std::uint64_t lo, std::uint64_t hi) {
  double w = 0;
  for (const ValueRange& r : rows)
    if (r.min >= lo && r.max <= hi) w += r.weight;
  return w;
}

// One thread of `allocations` allocations on the allocation clock: a block allocated as #t with
// lifetime L is freed right before allocation #(t+L); lifetime 0 = never.  Freed addresses are
// reused.  Sizes and lifetimes come from the given laws, drawn from a fixed-seed generator.
struct GeneratedTrace {
  std::vector<ThreadEvent> events;
  std::uint64_t allocations = 0, count_24 = 0, frees = 0;

  template <class SizeLaw, class LifetimeLaw>
  GeneratedTrace(std::uint64_t n, SizeLaw size_law, LifetimeLaw lifetime_law) : allocations(n) {
    std::mt19937_64 rng(11);
    std::map<std::uint64_t, std::vector<std::uint64_t>> due;  // allocation number -> addresses
    std::vector<std::uint64_t> free_addresses;
    std::uint64_t tsc = 1, next_address = 0x10000;
    for (std::uint64_t t = 0; t < n; ++t) {
      if (auto it = due.find(t); it != due.end()) {
        for (std::uint64_t a : it->second) {
          events.push_back({0, ev(tsc++, TraceOp::free, a)});
          free_addresses.push_back(a);
          ++frees;
        }
        due.erase(it);
      }
      const std::uint64_t size = size_law(rng), lifetime = lifetime_law(rng);
      std::uint64_t address = next_address;
      if (free_addresses.empty()) next_address += 0x1000;
      else {
        address = free_addresses.back();
        free_addresses.pop_back();
      }
      events.push_back({0, ev(tsc++, rng() % 2 ? TraceOp::malloc : TraceOp::op_new, address, size)});
      count_24 += size == 24;
      if (lifetime != 0) due[t + lifetime].push_back(address);
    }
  }
};

std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); }

// Sizes 45% 24 B, 15% 64 B, 40% uniform 100..1000 B; lifetimes 50% 1, 30% uniform 10..100, 20% never.
struct KnownTrace : GeneratedTrace {
  static constexpr std::uint64_t kAllocations = 60'000;
  KnownTrace()
      : GeneratedTrace(
            kAllocations,
            [](std::mt19937_64& rng) {
              const std::uint64_t s = rng() % 100;
              return s < 45 ? 24 : s < 60 ? 64 : uniform(rng, 100, 1000);
            },
            [](std::mt19937_64& rng) {
              const std::uint64_t l = rng() % 100;
              return l < 50 ? 1 : l < 80 ? uniform(rng, 10, 100) : 0;
            }) {}
};

TEST(TraceFit, RecoversAKnownSizeAndLifetimeDistribution) {
  const KnownTrace known;
  const FitConfig fit = fit_trace(through_a_file(known.events));
  const TraceSummary& s = fit.trace;
  const LifetimeParams& p = fit.params;
  const double n = double(KnownTrace::kAllocations);
  // The trace's own figures, exactly.
  EXPECT_EQ(s.allocations, KnownTrace::kAllocations);
  EXPECT_EQ(s.frees, known.frees);
  EXPECT_EQ(s.never_freed, KnownTrace::kAllocations - known.frees);
  EXPECT_EQ(s.freed_after_owner_done + s.unmatched_frees + s.reused_without_free + s.failed_allocations, 0u);
  EXPECT_EQ(p.threads, 1u);
  EXPECT_EQ(p.allocations_per_thread, KnownTrace::kAllocations);
  ASSERT_FALSE(p.sizes.empty());
  EXPECT_DOUBLE_EQ(weight_within(p.sizes, 24, 24), double(known.count_24) / n);
  // Against the generating distribution, within sampling noise.
  EXPECT_NEAR(weight_within(p.sizes, 24, 24), 0.45, test::share_tolerance(0.45, n));
  EXPECT_NEAR(weight_within(p.sizes, 64, 64), 0.15, test::share_tolerance(0.15, n));
  EXPECT_NEAR(weight_within(p.sizes, 100, 1000), 0.40, test::share_tolerance(0.40, n));
  EXPECT_NEAR(weight_within(p.sizes, 1, 1 << 20), 1.0, 1e-9);
  const double finite = double(known.frees);
  EXPECT_NEAR(weight_within(p.lifetimes, 1, 1), 0.625, test::share_tolerance(0.625, finite));
  EXPECT_NEAR(weight_within(p.lifetimes, 10, 100), 0.375, test::share_tolerance(0.375, finite));
  // Blocks due after the end are censored, not immortal: the estimate finds the 20% that are.
  EXPECT_NEAR(p.immortal_share, 0.2, test::share_tolerance(0.2, n));
  // The generating size law as a histogram (counts x 901): the fitted table is close to it too.
  ValueHistogram law = {{24, 45 * 901}, {64, 15 * 901}};
  for (std::uint64_t v = 100; v <= 1000; ++v) law.emplace_back(v, 40);
  EXPECT_LT(ks_distance(law, p.sizes), 0.02);
  // Quality figures.
  EXPECT_LE(fit.quality.size_ks_distance, 0.01);
  EXPECT_LE(fit.quality.lifetime_ks_distance, 0.01);
  EXPECT_EQ(fit.quality.size_rows, p.sizes.size());
  EXPECT_LT(p.sizes.size(), 200u);
  const double peak_ratio = double(fit.quality.model_peak_live_requested_bytes) / double(fit.quality.trace_peak_live_requested_bytes);
  EXPECT_NEAR(peak_ratio, 1.0, 0.05) << fit.quality.model_peak_live_requested_bytes << " vs " << fit.quality.trace_peak_live_requested_bytes;
}

// A trace cut while ~5% of its blocks are in flight: they are censored, not immortal, and the
// fitted model holds as much as the trace did.
TEST(TraceFit, BlocksLiveWhenTheTraceEndsAreNotCountedImmortal) {
  const GeneratedTrace cut(20'000, [](std::mt19937_64& rng) { return uniform(rng, 16, 256); },
                           [](std::mt19937_64& rng) { return uniform(rng, 500, 1500); });
  const FitConfig fit = fit_trace(through_a_file(cut.events));
  EXPECT_GT(double(fit.trace.never_freed) / 20'000, 0.04);
  EXPECT_LT(fit.params.immortal_share, 0.002);
  EXPECT_NEAR(weight_within(fit.params.lifetimes, 500, 1500), 1.0, 0.002);
  const double peak_ratio = double(fit.quality.model_peak_live_requested_bytes) / double(fit.quality.trace_peak_live_requested_bytes);
  EXPECT_NEAR(peak_ratio, 1.0, 0.1);
}

TEST(TraceFit, ReallocFailedCallsUnknownFreesAndAddressReuse) {
  const std::vector<ThreadEvent> events = {
      {0, ev(1, TraceOp::malloc, 0x100, 10)},                 // #0
      {0, ev(2, TraceOp::realloc, 0x200, 20, 0x100)},         // ends #0 (L = 1), starts #1
      {0, ev(3, TraceOp::realloc, 0x300, 30, 0)},             // realloc(NULL, 30): starts #2
      {0, ev(4, TraceOp::realloc, 0, 0, 0x300)},              // realloc(p, 0): ends #2 (L = 1)
      {0, ev(5, TraceOp::realloc, 0, 50, 0x200)},             // failed: #1 stays live
      {0, ev(6, TraceOp::malloc, 0, 100)},                    // failed
      {0, ev(7, TraceOp::free, 0)},                           // free(NULL): nothing
      {0, ev(8, TraceOp::free, 0x999)},                       // unknown address
      {0, ev(9, TraceOp::malloc, 0x400, 0)},                  // #3, size 0 -> 1
      {0, ev(10, TraceOp::op_new, 0x400, 8)},                 // address still live: ends #3 (L = 1), starts #4
      {0, ev(11, TraceOp::op_delete, 0x200)},                 // ends #1 (L = 4)
      {0, ev(12, TraceOp::malloc, 0x500, 16)},                // #5, never freed
      {0, ev(13, TraceOp::op_delete_sized, 0x400, 8)},        // ends #4 after the last allocation
  };
  const FitConfig fit = fit_trace(through_a_file(events));
  const TraceSummary& s = fit.trace;
  EXPECT_EQ(s.events, 13u);
  EXPECT_EQ(s.allocations, 6u);
  EXPECT_EQ(s.reallocs, 1u);
  EXPECT_EQ(s.frees, 5u);
  EXPECT_EQ(s.failed_allocations, 2u);
  EXPECT_EQ(s.unmatched_frees, 1u);
  EXPECT_EQ(s.zero_size_allocations, 1u);
  EXPECT_EQ(s.reused_without_free, 1u);
  EXPECT_EQ(s.never_freed, 1u);
  EXPECT_EQ(s.freed_after_owner_done, 1u);
  EXPECT_EQ(s.peak_live_requested_bytes, 50u);
  EXPECT_EQ(s.requested_bytes, 10u + 20 + 30 + 1 + 8 + 16);
  EXPECT_EQ(s.median_size, 10u);
  EXPECT_EQ(s.max_size, 30u);
  EXPECT_EQ(s.median_lifetime, 1u);
  EXPECT_DOUBLE_EQ(s.mean_lifetime, 7.0 / 4);
  // Kaplan-Meier: #4 (L >= 2) and #5 (L >= 1) are censored; at L = 1, 3 of 5 at risk are freed,
  // at L = 4 the 1 left: nothing outlives the longest lifetime.
  EXPECT_EQ(fit.params.immortal_share, 0.0);
  ASSERT_EQ(fit.params.lifetimes.size(), 2u);
  EXPECT_NEAR(fit.params.lifetimes[0].weight, 0.6, 1e-12);
  EXPECT_EQ(fit.params.lifetimes[1].min, 4u);
  EXPECT_NEAR(fit.params.lifetimes[1].weight, 0.4, 1e-12);
  EXPECT_EQ(fit.params.sizes.size(), 6u);  // six distinct sizes, each above the 1% resolution: exact rows
  EXPECT_NEAR(fit.quality.size_ks_distance, 0.0, 1e-12);  // exact rows: only rounding in the sums
  EXPECT_NEAR(fit.quality.lifetime_ks_distance, 0.0, 1e-12);
}

TEST(TraceFit, SizesAboveTheWorkloadsLimitAreClamped) {
  const FitConfig fit = fit_trace(through_a_file({{0, ev(1, TraceOp::malloc, 0x10, std::uint64_t{5} << 30)},
                                                  {0, ev(2, TraceOp::malloc, 0x20, 8)}}));
  EXPECT_EQ(fit.trace.clamped_sizes, 1u);
  EXPECT_EQ(fit.trace.max_size, kMaxFittedBlockSize);
  EXPECT_EQ(fit.params.sizes.back().max, kMaxFittedBlockSize);
}

TEST(TraceFit, CrossThreadFreesCountOnTheOwnersClockInTscOrder) {
  // Written thread 1 first: the merge orders by TSC, not by file order.
  const std::vector<ThreadEvent> events = {
      {1, ev(3, TraceOp::free, 0xA0)},         // a (T0 #0), T0 has made 2: L = 2
      {1, ev(4, TraceOp::malloc, 0xE0, 64)},   // e: T1 #0
      {1, ev(6, TraceOp::free, 0xB0)},         // b (T0 #1), T0 has made 3: L = 2
      {0, ev(1, TraceOp::malloc, 0xA0, 16)},   // a: T0 #0
      {0, ev(2, TraceOp::malloc, 0xB0, 32)},   // b: T0 #1
      {0, ev(5, TraceOp::malloc, 0xA0, 48)},   // c: T0 #2 at a's address, after a's free
      {0, ev(7, TraceOp::malloc, 0xD0, 16)},   // d: T0 #3
      {0, ev(8, TraceOp::free, 0xE0)},         // e: its owner T1 made no allocation after it
  };
  const FitConfig fit = fit_trace(through_a_file(events));
  const TraceSummary& s = fit.trace;
  EXPECT_EQ(s.threads, 2u);
  EXPECT_EQ(s.allocating_threads, 2u);
  EXPECT_DOUBLE_EQ(s.effective_threads, 25.0 / 17);
  EXPECT_EQ(s.unmatched_frees + s.reused_without_free, 0u);
  EXPECT_EQ(s.frees, 3u);
  EXPECT_EQ(s.freed_after_owner_done, 1u);
  EXPECT_EQ(s.never_freed, 2u);
  EXPECT_EQ(s.peak_live_requested_bytes, 16u + 32 - 16 + 64 + 48);  // after c: a gone, b, e, c live
  const std::vector<ValueRange> lifetimes = {{2, 2, 1.0}};
  EXPECT_EQ(fit.params.lifetimes, lifetimes);
  EXPECT_EQ(fit.params.threads, 1u);  // effective 1.47
  EXPECT_EQ(fit.params.allocations_per_thread, 5u);
  EXPECT_EQ(fit.params.immortal_share, 0.0);  // c (L >= 2) and d, e (L >= 1) are censored, not immortal
}

TEST(TraceFit, ThreadCountIsTheEffectiveNumberOfAllocatingThreads) {
  std::vector<ThreadEvent> events;
  std::uint64_t tsc = 1;
  for (int i = 0; i < 1000; ++i)
    for (std::uint32_t t = 0; t < 3; ++t) {
      const std::uint64_t address = 0x1000 * (1 + t);
      events.push_back({t, ev(tsc++, TraceOp::malloc, address, 32)});
      events.push_back({t, ev(tsc++, TraceOp::free, address)});
    }
  const trace::TraceContents t = through_a_file(events);
  FitConfig fit = fit_trace(t);
  EXPECT_DOUBLE_EQ(fit.trace.effective_threads, 3.0);
  EXPECT_EQ(fit.params.threads, 3u);
  EXPECT_EQ(fit.params.allocations_per_thread, 1000u);
  EXPECT_EQ(fit.params.lifetimes, (std::vector<ValueRange>{{1, 1, 1.0}}));
  EXPECT_EQ(fit.trace.freed_after_owner_done, 3u);  // each thread's last block
  FitOptions two;
  two.threads = 2;
  two.seed = 9;
  fit = fit_trace(t, two);
  EXPECT_EQ(fit.params.threads, 2u);
  EXPECT_EQ(fit.params.allocations_per_thread, 1500u);
  EXPECT_EQ(fit.params.seed, 9u);
}

TEST(TraceFit, RangeTableRowsAreBoundedByTheResolution) {
  ValueHistogram h = {{1, 50}, {2, 10}, {3, 10}};
  for (std::uint64_t v = 1000; v < 2000; ++v) h.emplace_back(v, 1);
  const std::vector<ValueRange> rows = range_table(h, 0.05);
  double sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sum += rows[i].weight;
    if (i > 0) {
      EXPECT_GT(rows[i].min, rows[i - 1].max);
    }
    if (rows[i].min != rows[i].max) {
      EXPECT_LE(rows[i].weight, 0.05);
    }
    EXPECT_EQ(std::bit_width(rows[i].min), std::bit_width(rows[i].max)) << "a row spans two octaves";
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(rows[0], (ValueRange{1, 1, 50.0 / 1070}));
  EXPECT_EQ(rows[1], (ValueRange{2, 3, 20.0 / 1070}));
  EXPECT_EQ(rows[2], (ValueRange{1000, 1023, 24.0 / 1070}));
  EXPECT_LE(ks_distance(h, rows), 0.05);
  EXPECT_LT(rows.size(), 40u);
}

TEST(TraceFit, KaplanMeierSpreadsCensoredBlocksOverLongerLifetimes) {
  // Lifetimes 1, 1, 2 observed, one block censored at L >= 2: at L = 1, 2 of 4 at risk are
  // freed; at L = 2 the only one at risk.  The censored block is certain to be freed at 2.
  LifetimeEstimate e = kaplan_meier({{1, 2}, {2, 1}}, {2});
  ASSERT_EQ(e.mass.size(), 2u);
  EXPECT_DOUBLE_EQ(e.mass[0].second, 0.5);
  EXPECT_DOUBLE_EQ(e.mass[1].second, 0.5);
  EXPECT_DOUBLE_EQ(e.tail, 0.0);
  // One block freed at 1, one censored at L >= 5: half outlive every observed lifetime.
  e = kaplan_meier({{1, 1}}, {5});
  EXPECT_DOUBLE_EQ(e.mass[0].second, 0.5);
  EXPECT_DOUBLE_EQ(e.tail, 0.5);
  // Censored at L >= 1 says nothing: no effect.
  e = kaplan_meier({{3, 4}}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(e.mass[0].second, 1.0);
  EXPECT_DOUBLE_EQ(e.tail, 0.0);
  e = kaplan_meier({}, {7});
  EXPECT_TRUE(e.mass.empty());
  EXPECT_DOUBLE_EQ(e.tail, 1.0);
}

TEST(TraceFit, KsDistanceIsTheLargestCdfGap) {
  // Values 1 and 3 once each against uniform 1..3: at x = 1, 1/2 vs 1/3; at x = 2, 1/2 vs 2/3.
  EXPECT_NEAR(ks_distance({{1, 1}, {3, 1}}, {{1, 3, 1}}), 1.0 / 6, 1e-12);
  EXPECT_EQ(ks_distance({{5, 3}, {9, 1}}, {{5, 5, 3}, {9, 9, 1}}), 0.0);
  EXPECT_NEAR(ks_distance({{5, 1}}, {{6, 6, 1}}), 1.0, 1e-12);
}

TEST(TraceFit, RejectsATraceWithoutAllocationsAndBadOptions) {
  const trace::TraceContents frees_only = through_a_file({{0, ev(1, TraceOp::free, 0x10)}, {0, ev(2, TraceOp::malloc, 0, 8)}});
  try {
    fit_trace(frees_only);
    FAIL() << "fitted a trace without allocations";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no successful allocation to fit (2 events)"), std::string::npos) << e.what();
  }
  const trace::TraceContents one = through_a_file({{0, ev(1, TraceOp::malloc, 0x10, 8)}});
  FitOptions o;
  o.max_range_share = 0.9;
  try {
    fit_trace(one, o);
    FAIL() << "accepted max range share 0.9";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--max-range-share out of range: 0.9 (accepted: 0.0001..0.5)");
  }
  o = {};
  o.threads = 5000;
  EXPECT_THROW(fit_trace(one, o), std::invalid_argument);
  const FitConfig all_immortal = fit_trace(one);
  EXPECT_EQ(all_immortal.params.immortal_share, 1.0);
  EXPECT_TRUE(all_immortal.params.lifetimes.empty());
}

TEST(TraceFit, SavedFitLoadsAndRuns) {
  const KnownTrace known;
  const FitConfig fit = fit_trace(through_a_file(known.events));
  const auto path = std::filesystem::temp_directory_path() / ("allocstress-fit-test-" + std::to_string(::getpid()) + ".json");
  save_fit_config(path, fit);
  const FitConfig back = load_fit_config(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.params.sizes, fit.params.sizes);
  EXPECT_EQ(back.params.lifetimes, fit.params.lifetimes);
  EXPECT_EQ(back.trace.allocations, fit.trace.allocations);
  EXPECT_EQ(back.quality.model_peak_live_requested_bytes, fit.quality.model_peak_live_requested_bytes);
  const LifetimeModel model(back.params);
  ProcessMallocAllocator m(model.max_size());
  LifetimeWorkspace ws(model, 0);
  const AllocTestThreadOutcome out = run_lifetime_thread(m, ws, MemoryAccess::write_read);
  release_lifetime_blocks(m, ws);
  EXPECT_EQ(out.mallocs, KnownTrace::kAllocations);
  EXPECT_EQ(out.peak_live_requested_bytes, fit.quality.model_peak_live_requested_bytes);  // the dry run's figure
}

}  // namespace
}  // namespace allocstress
