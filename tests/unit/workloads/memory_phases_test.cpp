// The memory-phase workloads: the live-bytes curve of each shape (ramp, plateau, peak), exact
// counts, every block freed once, determinism per seed, parameter validation, and a whole cell's
// record (series, checkpoints, metrics).  Behaviour only, never timing.
#include "workloads/phases/memory_phases.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "allocators/void_allocator.hpp"
#include "cells/workload_registry.hpp"
#include "../support/alloc_test_params.hpp"
#include "../support/checked_malloc_allocator.hpp"

namespace allocstress {
namespace {

// malloc/free that checks every block is freed once, with its own size, and logs the allocation
// number of every block freed.
using CheckingAllocator = testing::CheckedMallocAllocator;

struct Sample {
  std::uint64_t t, live;
  PhaseStage stage;
};
struct Meeting {
  CheckpointKind kind;
  unsigned ordinal;
  std::uint64_t t, live;
};
struct Recorder {
  std::vector<Sample> samples;
  std::vector<Meeting> meetings;
  void sample(std::uint64_t t, std::uint64_t live, PhaseStage stage) { samples.push_back({t, live, stage}); }
  void checkpoint(CheckpointKind kind, unsigned ordinal, std::uint64_t t, std::uint64_t live) { meetings.push_back({kind, ordinal, t, live}); }
};

constexpr unsigned kExp = 12;  // blocks 4 B .. 4 KiB - 1

AllocTestParams params(std::uint64_t ops, std::uint64_t seed = 7) { return testing::alloc_test_params(AllocTestParams{}.threads, ops, kExp, seed); }

PhaseSpec spec(std::uint64_t live = 2u << 20, double drop = 0.9, unsigned peaks = 2, PhaseDropOrder order = PhaseDropOrder::random) {
  PhaseSpec s;
  s.drop_order = order;
  s.live_bytes = live;
  s.drop_share = drop;
  s.peaks = peaks;
  s.pause_ms = 0;
  return s;
}

struct ShapeRun {
  PhasePlan plan;
  PhaseThreadOutcome out;
  Recorder rec;
};

template <class A>
ShapeRun run_shape(A& alloc, PhaseShape shape, const PhaseSpec& s, const AllocTestParams& p, MemoryAccess access = MemoryAccess::write_read) {
  const InverseSizeSampler sizes(p.max_size_exp);
  ShapeRun r{make_phase_plan(shape, s, p, sizes.mean_size(), sizes.max_size()), {}, {}};
  std::vector<Slot> slots(r.plan.block_capacity);
  PhaseBlocks blocks{slots, 0};
  WorkloadRng rng = make_thread_rng(p.seed, 0);
  r.out = run_phase_thread(alloc, blocks, r.plan, sizes, rng, access, r.rec);
  EXPECT_EQ(r.out.ops.end_live_requested_bytes, [&] {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < blocks.count; ++i) sum += blocks.slots[i].size;
    return sum;
  }()) << "live bytes disagree with the blocks held";
  release_phase_blocks(alloc, blocks);
  return r;
}

// Live bytes track the target within a block or two; 1% of L covers the rest.
double tolerance(const PhasePlan& plan) { return 2.0 * double(plan.max_block_bytes) + 0.01 * double(plan.target_bytes); }

TEST(MemoryPhases, RampRisesSteadilyToTheTarget) {
  ProcessMallocAllocator a(0);
  const ShapeRun r = run_shape(a, PhaseShape::ramp, spec(), params(400'000));
  const double l = double(r.plan.target_bytes), n = double(r.plan.ops);
  ASSERT_GE(r.rec.samples.size(), 200u);
  ASSERT_LE(r.rec.samples.size(), 260u);
  for (const Sample& s : r.rec.samples) EXPECT_NEAR(double(s.live), l * double(s.t) / n, tolerance(r.plan)) << "at op " << s.t;
  EXPECT_NEAR(double(r.rec.samples.back().live), l, tolerance(r.plan));
  EXPECT_EQ(r.rec.samples.back().t, r.plan.ops);
  ASSERT_EQ(r.rec.meetings.size(), 1u);
  EXPECT_EQ(r.rec.meetings[0].kind, CheckpointKind::half);
  EXPECT_EQ(r.rec.meetings[0].t, r.plan.ops / 2);
  EXPECT_EQ(r.out.ops.mallocs + r.out.ops.frees, r.plan.ops);
  EXPECT_GT(r.out.ops.frees, r.plan.ops / 20) << "a ramp grows with churn";
  EXPECT_EQ(r.out.full_array_frees, 0u);
}

TEST(MemoryPhases, PlateauHoldsTheTargetAfterTheRise) {
  ProcessMallocAllocator a(0);
  const ShapeRun r = run_shape(a, PhaseShape::plateau, spec(), params(1'000'000));
  ASSERT_EQ(r.rec.meetings.size(), 1u);
  const std::uint64_t rise = r.rec.meetings[0].t;
  EXPECT_EQ(r.rec.meetings[0].kind, CheckpointKind::rise_end);
  EXPECT_EQ(rise, r.plan.ops / 10) << "the rise takes the first 10% of the ops when they suffice";
  std::size_t held = 0;
  for (const Sample& s : r.rec.samples)
    if (s.t >= rise) {
      EXPECT_NEAR(double(s.live), double(r.plan.target_bytes), tolerance(r.plan)) << "at op " << s.t;
      EXPECT_EQ(s.stage, PhaseStage::hold);
      ++held;
    }
  EXPECT_GT(held, 200u);
  EXPECT_EQ(r.out.ops.mallocs + r.out.ops.frees, r.plan.ops);
  EXPECT_NEAR(double(r.out.ops.mallocs), double(r.out.ops.frees), 0.25 * double(r.plan.ops)) << "the hold churns";
}

TEST(MemoryPhases, PeakDropsToTheLowLevelAndRegrows) {
  for (const auto& [peaks, order] : {std::pair{1u, PhaseDropOrder::random}, {3u, PhaseDropOrder::random}, {2u, PhaseDropOrder::newest}}) {
    SCOPED_TRACE(std::string(to_string(order)) + " drops, peaks " + std::to_string(peaks));
    ProcessMallocAllocator a(0);
    const ShapeRun r = run_shape(a, PhaseShape::peak, spec(2u << 20, 0.8, peaks, order), params(1'000'000));
    const double l = double(r.plan.target_bytes), low = double(r.plan.low_bytes), tol = tolerance(r.plan);
    EXPECT_NEAR(low, 0.2 * l, 1.0);
    ASSERT_EQ(r.rec.meetings.size(), 2u * peaks);
    for (unsigned k = 0; k < peaks; ++k) {
      const Meeting &peak = r.rec.meetings[2 * k], &drop = r.rec.meetings[2 * k + 1];
      EXPECT_EQ(peak.kind, CheckpointKind::peak);
      EXPECT_EQ(drop.kind, CheckpointKind::drop);
      EXPECT_EQ(peak.ordinal, k + 1);
      EXPECT_EQ(drop.ordinal, k + 1);
      EXPECT_NEAR(double(peak.live), l, tol) << "peak " << k + 1;
      EXPECT_LT(double(drop.live), low) << "drop " << k + 1 << " frees down below the low level";
      EXPECT_GE(double(drop.live), low - double(r.plan.max_block_bytes)) << "and stops there";
      // The drop is a run of frees only: about (L - low) / mean of them.
      EXPECT_NEAR(double(drop.t - peak.t), (l - low) / r.plan.mean_block_bytes, 0.1 * (l - low) / r.plan.mean_block_bytes);
    }
    EXPECT_NEAR(double(r.rec.samples.back().live), l, tol) << "the final growth reaches L";
    EXPECT_EQ(r.rec.samples.back().stage, PhaseStage::final_growth);
    EXPECT_EQ(r.out.ops.mallocs + r.out.ops.frees, r.plan.ops);
    EXPECT_EQ(r.out.late_drops, 0u);
    bool saw_drop_rows = false;
    for (const Sample& s : r.rec.samples) saw_drop_rows = saw_drop_rows || s.stage == PhaseStage::drop;
    EXPECT_TRUE(saw_drop_rows);
  }
}

TEST(MemoryPhases, FreeingEverythingAtADropWorks) {
  ProcessMallocAllocator a(0);
  const ShapeRun r = run_shape(a, PhaseShape::peak, spec(2u << 20, 1.0, 1), params(1'000'000));
  ASSERT_EQ(r.rec.meetings.size(), 2u);
  EXPECT_EQ(r.rec.meetings[1].live, 0u);
  EXPECT_NEAR(double(r.rec.samples.back().live), double(r.plan.target_bytes), tolerance(r.plan));
}

TEST(MemoryPhases, EveryBlockIsFreedExactlyOnce) {
  for (const auto& [shape, order] : {std::pair{PhaseShape::ramp, PhaseDropOrder::random}, {PhaseShape::plateau, PhaseDropOrder::random},
                                    {PhaseShape::peak, PhaseDropOrder::random}, {PhaseShape::peak, PhaseDropOrder::newest}}) {
    CheckingAllocator a(0);
    const ShapeRun r = run_shape(a, shape, spec(1u << 20, 0.9, 2, order), params(600'000));
    EXPECT_TRUE(a.live.empty()) << a.live.size() << " blocks never freed";
    EXPECT_EQ(a.allocations, r.out.ops.mallocs);
    EXPECT_EQ(a.frees, a.allocations);
    EXPECT_GT(r.out.ops.end_live_requested_bytes, 0u) << "release freed the blocks still live at the end";
  }
}

// A newest-first drop frees the blocks in reverse allocation order; the random one does not.
TEST(MemoryPhases, NewestDropsFreeTheYoungestBlocksFirst) {
  for (const PhaseDropOrder order : {PhaseDropOrder::newest, PhaseDropOrder::random}) {
    CheckingAllocator a(0);
    struct Marks {
      CheckingAllocator& a;
      std::vector<std::size_t> at;  // a.freed.size() at each checkpoint
      void sample(std::uint64_t, std::uint64_t, PhaseStage) {}
      void checkpoint(CheckpointKind, unsigned, std::uint64_t, std::uint64_t) { at.push_back(a.freed.size()); }
    } marks{a, {}};
    const AllocTestParams p = params(600'000);
    const InverseSizeSampler sizes(p.max_size_exp);
    const PhasePlan plan = make_phase_plan(PhaseShape::peak, spec(1u << 20, 0.9, 2, order), p, sizes.mean_size(), sizes.max_size());
    std::vector<Slot> slots(plan.block_capacity);
    PhaseBlocks blocks{slots, 0};
    WorkloadRng rng = make_thread_rng(p.seed, 0);
    run_phase_thread(a, blocks, plan, sizes, rng, MemoryAccess::write, marks);
    release_phase_blocks(a, blocks);
    ASSERT_EQ(marks.at.size(), 4u);
    for (const std::size_t k : {0u, 2u}) {  // peak -> drop
      const auto first = a.freed.begin() + std::ptrdiff_t(marks.at[k]), last = a.freed.begin() + std::ptrdiff_t(marks.at[k + 1]);
      ASSERT_GT(last - first, 1000);
      const bool descending = std::is_sorted(first, last, std::greater<>());
      EXPECT_EQ(descending, order == PhaseDropOrder::newest) << "drop " << k / 2 + 1;
    }
    EXPECT_TRUE(a.live.empty());
  }
}

TEST(MemoryPhases, SameSeedSameStreamOnEveryAllocator) {
  const AllocTestParams p = params(600'000, 11);
  VoidAllocator v(1u << kExp);
  ProcessMallocAllocator m(0);
  const ShapeRun a = run_shape(v, PhaseShape::peak, spec(), p, MemoryAccess::write_read);
  const ShapeRun b = run_shape(m, PhaseShape::peak, spec(), p, MemoryAccess::none);
  EXPECT_EQ(a.out.ops.op_stream_hash, b.out.ops.op_stream_hash);
  EXPECT_EQ(a.out.ops.mallocs, b.out.ops.mallocs);
  EXPECT_EQ(a.out.ops.peak_live_requested_bytes, b.out.ops.peak_live_requested_bytes);
  EXPECT_EQ(a.out.ops.end_live_requested_bytes, b.out.ops.end_live_requested_bytes);
  const ShapeRun c = run_shape(m, PhaseShape::peak, spec(), params(600'000, 12));
  EXPECT_NE(a.out.ops.op_stream_hash, c.out.ops.op_stream_hash);
}

// validate(...) must throw std::invalid_argument whose message contains `field` and "accepted".
template <class F>
void expect_rejected(F&& f, const std::string& field) {
  try {
    f();
    ADD_FAILURE() << "accepted a bad " << field;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(field), std::string::npos) << what;
    EXPECT_NE(what.find("accepted"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(MemoryPhases, BadParametersAreRejectedNamingTheField) {
  EXPECT_NO_THROW(validate(PhaseSpec{}));
  auto with = [](auto change) {
    PhaseSpec s;
    change(s);
    return [s] { validate(s); };
  };
  expect_rejected(with([](PhaseSpec& s) { s.drop_share = 0; }), "drop_share");
  expect_rejected(with([](PhaseSpec& s) { s.drop_share = 1.2; }), "drop_share");
  expect_rejected(with([](PhaseSpec& s) { s.drop_share = std::nan(""); }), "drop_share");
  expect_rejected(with([](PhaseSpec& s) { s.peaks = 0; }), "peaks");
  expect_rejected(with([](PhaseSpec& s) { s.peaks = kMaxPhasePeaks + 1; }), "peaks");
  expect_rejected(with([](PhaseSpec& s) { s.live_bytes = 0; }), "live_bytes");
  expect_rejected(with([](PhaseSpec& s) { s.live_bytes = kMaxPhaseLiveBytes + 1; }), "live_bytes");
  expect_rejected(with([](PhaseSpec& s) { s.pause_ms = kMaxPhasePauseMs + 1; }), "pause_ms");
  EXPECT_NO_THROW(validate(spec(1u << 20, 1.0, kMaxPhasePeaks)));
}

TEST(MemoryPhases, TheOperationBudgetMustCarryTheShape) {
  // The defaults (64 MiB, E = 16) fit the quick preset's 10M operations in every shape.
  AllocTestParams quick;
  quick.iterations_per_thread = 10'000'000;
  for (const PhaseShape shape : {PhaseShape::ramp, PhaseShape::plateau, PhaseShape::peak}) EXPECT_NO_THROW(validate(shape, PhaseSpec{}, quick));
  expect_rejected([] { validate(PhaseShape::peak, spec(32'000'000), params(100'000)); }, "iterations per thread too few for phase-peak");
  expect_rejected([] { validate(PhaseShape::plateau, spec(32'000'000), params(100'000)); }, "iterations per thread too few for phase-plateau");
  expect_rejected([] { validate(PhaseShape::ramp, spec(32'000'000), params(100'000)); }, "iterations per thread too few for phase-ramp");
  AllocTestParams two = params(10'000'000);
  two.threads = 64;
  expect_rejected([&] { validate(PhaseShape::ramp, spec(2u << 20), two); }, "live_bytes per thread");
  // The least number the message names is enough.
  try {
    validate(PhaseShape::peak, spec(4u << 20), params(1000));
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what(), key = "at least ";
    const std::uint64_t least = std::stoull(what.substr(what.find(key) + key.size()));
    EXPECT_NO_THROW(validate(PhaseShape::peak, spec(4u << 20), params(least))) << what;
    EXPECT_THROW(validate(PhaseShape::peak, spec(4u << 20), params(least - 1)), std::invalid_argument);
  }
}

// A whole cell: 2 threads meeting at the checkpoints, the series and the metrics.
nlohmann::json measure_cell(const std::string& workload, const std::string& allocator, unsigned threads) {
  Cell cell;
  cell.allocator = allocator;
  cell.workload = workload;
  cell.threads = threads;
  cell.placement.oversubscribe = true;
  const AllocTestParams p = params(600'000);
  const PhaseSpec s = spec(threads * (1u << 20), 0.9, 2);
  cell.params = {{"size_model", "inverse"},  {"max_size_exp", p.max_size_exp}, {"iterations_per_thread", p.iterations_per_thread},
                 {"memory_access", to_string(p.access)}, {"seed", p.seed},     {"live_bytes", s.live_bytes},
                 {"drop_share", s.drop_share}, {"peaks", s.peaks},             {"pause_ms", 20},
                 {"drop_order", to_string(s.drop_order)}};
  AllocatorSpec a;
  a.name = allocator;
  a.kind = allocator == "pool" ? AllocatorKind::in_tree : AllocatorKind::drop_in;
  const Topology topology;
  workload_entry(workload).check(cell.params, threads);
  return run_cell(cell, a, topology, topology.choose_pus(cell.placement_request()));
}

TEST(MemoryPhases, ACellRecordsItsSeriesCheckpointsAndMetrics) {
  const nlohmann::json rec = measure_cell(kPhasePeakWorkload, "system", 2);
  ASSERT_EQ(rec.at("status"), "ok") << rec.dump();
  EXPECT_EQ(rec.at("mallocs").get<std::uint64_t>() + rec.at("frees").get<std::uint64_t>(), 2u * 600'000u);
  EXPECT_GT(rec.at("cycles_per_pair").get<double>(), 0);
  const nlohmann::json& cps = rec.at("phase_checkpoints");
  ASSERT_EQ(cps.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(cps[i].at("kind"), i % 2 == 0 ? "peak" : "drop");
  EXPECT_EQ(cps[1].at("pause_rows").get<std::size_t>(), 21u) << "the drop reading and 20 rows 1 ms apart";
  const nlohmann::json& series = rec.at("phase_series");
  EXPECT_EQ(series.at("columns").size(), 6u);
  std::size_t per_thread[2] = {}, pause = 0, with_rss = 0;
  double last_ms = -1;
  for (const auto& row : series.at("rows")) {
    const int thread = row[0].get<int>();
    EXPECT_GE(row[2].get<double>(), last_ms) << "rows in time order";
    last_ms = row[2].get<double>();
    if (thread < 0) {
      ++pause;
      EXPECT_EQ(row[5], "pause");
    } else {
      ++per_thread[thread];
    }
    if (!row[4].is_null()) ++with_rss;
    if (thread == 1) {
      EXPECT_TRUE(row[4].is_null()) << "only worker 0 reads the RSS";
    }
  }
  EXPECT_EQ(pause, 42u);
  const std::size_t every = (600'000 + 255) / 256;  // K: a row at ops 0, K, 2K, ... and at the end
  for (const std::size_t n : per_thread) EXPECT_EQ(n, (600'000 + every - 1) / every + 1);
  EXPECT_EQ(with_rss, per_thread[0] + pause);
  const nlohmann::json& metrics = rec.at("workload_metrics");
  for (const char* key : {"rss_at_peak_ratio", "rss_after_drop_ratio", "rss_after_pause_ratio", "freed_share", "returned_share_after_drop",
                          "returned_share_after_pause", "drop_ms", "regrowth_rss_ratio", "rss_per_live_at_end"}) {
    ASSERT_TRUE(metrics.contains(key)) << key;
    ASSERT_TRUE(metrics[key].is_number()) << key << ": " << metrics[key];
    EXPECT_TRUE(std::isfinite(metrics[key].get<double>())) << key;
    EXPECT_TRUE(rec.at("workload_metrics_means").contains(key)) << key;
  }
  EXPECT_TRUE(metrics.contains("return_ms"));
  EXPECT_NEAR(metrics.at("freed_share").get<double>(), 0.9, 0.02);
  EXPECT_GT(metrics.at("rss_at_peak_ratio").get<double>(), 0.5) << "the live heap is resident";
}

TEST(MemoryPhases, RampAndPlateauCellsGiveTheirMetrics) {
  const nlohmann::json ramp = measure_cell(kPhaseRampWorkload, "pool", 1), plateau = measure_cell(kPhasePlateauWorkload, "pool", 1);
  ASSERT_EQ(ramp.at("status"), "ok") << ramp.dump();
  ASSERT_EQ(plateau.at("status"), "ok") << plateau.dump();
  EXPECT_TRUE(ramp.at("workload_metrics").at("rss_per_live_at_half").is_number());
  EXPECT_TRUE(plateau.at("workload_metrics").at("rss_per_live_after_rise").is_number());
  EXPECT_TRUE(plateau.at("workload_metrics").at("hold_rss_growth_share").is_number());
  EXPECT_TRUE(plateau.at("workload_metrics").at("rss_per_live_at_end").is_number());
  EXPECT_FALSE(ramp.at("phase_series").at("rows").empty());
}

}  // namespace
}  // namespace allocstress
