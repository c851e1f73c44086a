// The lifetime models (workloads/lifetimes/lifetime_models.hpp) and lifetimes by size class in the engine
// (workloads/lifetimes/lifetime_workload.hpp): tables hit their mean; Little's law from the tables meets
// the target; the engine's measured mean live bytes meets it at 1 and 2 threads for every
// shape; pareto is heavier than exponential; size classes give small blocks shorter lives;
// fit files with classes round-trip; bad specs and files are rejected with one clear line.
// Tolerance of the achieved live bytes: 5 x the bound sqrt(T E[S^2 L^2] / W) on the standard
// deviation of the window mean (little_law().live_bytes_second_moment), fixed seeds.
#include "workloads/lifetimes/lifetime_models.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "workloads/fleet_size_sampler.hpp"
#include "workloads/inverse_size_sampler.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"
#include "workloads/lifetimes/trace_fit.hpp"
#include "../support/alloc_test_params.hpp"

namespace allocstress {
namespace {

constexpr LifetimeShape kShapes[] = {LifetimeShape::exponential, LifetimeShape::pareto, LifetimeShape::size_classes};

AllocTestParams base_with(unsigned threads, std::uint64_t allocations, SizeModel sizes = SizeModel::inverse, unsigned exp = 10) {
  AllocTestParams b = testing::alloc_test_params(threads, allocations, exp, 11);
  b.sizes = sizes;
  return b;
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(LifetimeModels, ShapeNamesRoundTripAndUnknownOnesAreRejected) {
  for (LifetimeShape s : kShapes) EXPECT_EQ(parse_lifetime_shape(to_string(s)), s);
  EXPECT_EQ(to_string(LifetimeShape::size_classes), "size-classes");
  EXPECT_EQ(error_of([] { parse_lifetime_shape("foo"); }), "unknown lifetime shape 'foo' (accepted: exponential, pareto, size-classes)");
}

TEST(LifetimeModels, TablesHitTheirMeanAndStayBelowTheTruncation) {
  for (LifetimeShape shape : {LifetimeShape::exponential, LifetimeShape::pareto})
    for (double mean : {1.5, 3.0, 17.0, 1000.0, 12'500.0})
      for (std::uint64_t top : {std::uint64_t{100'000}, std::uint64_t{1} << 31}) {
        const auto rows = lifetime_table(shape, mean, top);
        LifetimeParams p;
        p.sizes = {{1, 1, 1}};
        p.lifetimes = rows;
        ASSERT_NO_THROW(validate(p));
        EXPECT_NEAR(little_law(p).mean_lifetime, mean, 1e-9 * mean) << to_string(shape) << " " << mean;
        EXPECT_LE(rows.back().max, top);
        EXPECT_LE(rows.size(), 64 * kRowsPerOctave);
        for (std::size_t i = 1; i < rows.size(); ++i) ASSERT_GT(rows[i].min, rows[i - 1].max);
      }
}

// Pareto (alpha = 1/2) against exponential with the same mean and truncation: a larger
// coefficient of variation and more long lifetimes -- in the tables and in draws.
TEST(LifetimeModels, ParetoIsHeavierThanExponential) {
  for (double ratio : {8.0, 20.0, 100.0}) {  // truncation / mean: the accepted range starts at 8
    const double mean = 5000;
    const auto top = std::uint64_t(mean * ratio);
    LifetimeParams e, p;
    e.sizes = p.sizes = {{1, 1, 1}};
    e.lifetimes = lifetime_table(LifetimeShape::exponential, mean, top);
    p.lifetimes = lifetime_table(LifetimeShape::pareto, mean, top);
    const double cv_e = little_law(e).lifetime_cv, cv_p = little_law(p).lifetime_cv;
    EXPECT_GT(cv_p, 1.4) << "truncation " << ratio << " x mean";
    EXPECT_LE(cv_e, 1.01) << "truncation " << ratio << " x mean";  // the geometric law's, plus rows' spread
    if (ratio >= 100) {
      EXPECT_NEAR(cv_e, 1.0, 0.01);  // barely truncated: the exponential's CV
    }
    // Draws through the engine's sampler.
    WorkloadRng rng(5);
    const LifetimeModel me(e), mp(p);
    double s1[2] = {}, s2[2] = {}, long_lived[2] = {};
    const int n = 400'000;
    for (int i = 0; i < n; ++i) {
      const double le = double(me.draw_lifetime(rng, 1)), lp = double(mp.draw_lifetime(rng, 1));
      s1[0] += le, s2[0] += le * le, long_lived[0] += le > 4 * mean;
      s1[1] += lp, s2[1] += lp * lp, long_lived[1] += lp > 4 * mean;
    }
    auto cv = [&](int k) { return std::sqrt(s2[k] / n - (s1[k] / n) * (s1[k] / n)) / (s1[k] / n); };
    EXPECT_NEAR(s1[0] / n, mean, 5 * cv_e * mean / std::sqrt(n));  // 5 standard errors
    EXPECT_NEAR(s1[1] / n, mean, 5 * cv_p * mean / std::sqrt(n));
    EXPECT_GT(cv(1), cv(0) * 1.3) << "truncation " << ratio << " x mean";
    EXPECT_GT(long_lived[1], 2 * long_lived[0]) << "truncation " << ratio << " x mean";  // ~0.04-0.065 vs e^-4 = 0.018
  }
}

TEST(LifetimeModels, SizeTableIsTheCellsSizeModel) {
  const LifetimeModelSpec spec{LifetimeShape::exponential, 1 << 20};
  const LifetimeParams inverse = make_lifetime_params(spec, base_with(1, 1'000'000, SizeModel::inverse, 12));
  const InverseSizeSampler s(12);
  ASSERT_EQ(inverse.sizes.size(), 12u - InverseSizeSampler::kMinBucket);
  for (unsigned k = InverseSizeSampler::kMinBucket; k < 12; ++k) {
    const ValueRange& r = inverse.sizes[k - InverseSizeSampler::kMinBucket];
    EXPECT_EQ(r.min, 1u << k);
    EXPECT_EQ(r.max, (2u << k) - 1);
    EXPECT_EQ(r.weight, s.bucket_probability(k));
  }
  EXPECT_NEAR(little_law(inverse).mean_size, s.mean_size(), 1e-9 * s.mean_size());
  const LifetimeParams fleet = make_lifetime_params(spec, base_with(1, 1'000'000, SizeModel::fleet));
  EXPECT_EQ(fleet.sizes, fleet_size_table());
  EXPECT_NEAR(little_law(fleet).mean_size, FleetSizeSampler::instance().mean_size(), 1e-9 * 440);
}

// Little's law from the tables: threads x E[size x L] is the target, and no lifetime exceeds
// half the allocations per thread (so the measured half of the clock is in steady state).
TEST(LifetimeModels, LittlesLawFromTheTablesMeetsTheTarget) {
  for (LifetimeShape shape : kShapes)
    for (SizeModel sizes : {SizeModel::inverse, SizeModel::fleet})
      for (unsigned threads : {1u, 2u, 7u}) {
        const double live = sizes == SizeModel::inverse ? 250'000 : 4'000'000;
        const LifetimeModelSpec spec{shape, std::uint64_t(live)};
        const AllocTestParams base = base_with(threads, 300'000, sizes, 16);
        const LifetimeParams p = make_lifetime_params(spec, base);
        EXPECT_EQ(p.threads, threads);
        EXPECT_EQ(p.allocations_per_thread, 300'000u);
        EXPECT_EQ(p.seed, 11u);
        EXPECT_EQ(p.immortal_share, 0.0);
        const LittleLawFigures f = little_law(p);
        EXPECT_NEAR(f.mean_live_bytes * threads, live, 1e-6 * live) << to_string(shape) << " " << to_string(sizes) << " " << threads;
        EXPECT_LE(p.lifetimes.back().max, 150'000u);
        for (const LifetimeClass& c : p.lifetime_classes) EXPECT_LE(c.lifetimes.back().max, 150'000u);
      }
}

// Size classes: small blocks live shorter (and heavier-tailed) than large ones; the engine's
// draws follow the class of the block's size.
TEST(LifetimeModels, SizeClassesGiveSmallBlocksShorterLives) {
  const LifetimeParams p = make_lifetime_params({LifetimeShape::size_classes, 6 << 20}, base_with(2, 4'000'000, SizeModel::inverse, 16));
  ASSERT_EQ(p.lifetime_classes.size(), 2u);  // small, medium; large is the top-level law
  EXPECT_EQ(p.lifetime_classes[0].max_size, 256u);
  EXPECT_EQ(p.lifetime_classes[1].max_size, 4096u);
  const LittleLawFigures f = little_law(p);
  ASSERT_EQ(f.laws.size(), 3u);
  EXPECT_NEAR(f.laws[1].mean_lifetime / f.laws[0].mean_lifetime, 4, 1e-6);
  EXPECT_NEAR(f.laws[2].mean_lifetime / f.laws[0].mean_lifetime, 16, 1e-6);
  EXPECT_GT(f.laws[0].lifetime_cv, f.laws[2].lifetime_cv);  // small: pareto, large: exponential
  const LifetimeModel model(p);
  WorkloadRng rng(3);
  double sum[3] = {}, count[3] = {};
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint64_t size = model.draw_size(rng);
    const int c = size <= 256 ? 0 : size <= 4096 ? 1 : 2;
    sum[c] += double(model.draw_lifetime(rng, size));
    count[c] += 1;
  }
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(sum[c] / count[c], f.laws[c].mean_lifetime, 0.05 * f.laws[c].mean_lifetime) << c;
  EXPECT_LT(sum[0] / count[0], sum[2] / count[2]);
  // A size model without large blocks: the medium class becomes the top-level law.
  const LifetimeParams small_only = make_lifetime_params({LifetimeShape::size_classes, 1 << 19}, base_with(1, 1'000'000, SizeModel::inverse, 10));
  ASSERT_EQ(small_only.lifetime_classes.size(), 1u);
  EXPECT_NEAR(little_law(small_only).mean_live_bytes, double(1 << 19), 1e-6 * (1 << 19));
}

// The engine against the target: the measured window mean (Σ over threads) within 5 bounds on
// its standard deviation of live_bytes; the dry run predicts it exactly.
TEST(LifetimeModels, EngineAchievesTheTargetLiveBytes) {
  const std::uint64_t n = 1'000'000;
  for (LifetimeShape shape : kShapes)
    for (unsigned threads : {1u, 2u}) {
      // mean lifetime ~10^4 allocations per thread (noise falls with it: see the file comment)
      const std::uint64_t live = std::uint64_t(10'000 * InverseSizeSampler(10).mean_size() * threads);
      const LifetimeModelSpec spec{shape, live};
      const LifetimeParams p = make_lifetime_params(spec, base_with(threads, n, SizeModel::inverse, 10));
      const LifetimeModel model(p);
      const LittleLawFigures f = little_law(p);
      double achieved = 0;
      for (unsigned t = 0; t < threads; ++t) {
        ProcessMallocAllocator m(model.max_size());
        LifetimeWorkspace ws(model, t);
        const LifetimeThreadOutcome out = run_lifetime_thread(m, ws, MemoryAccess::write);
        release_lifetime_blocks(m, ws);
        EXPECT_EQ(out.mallocs, n);
        EXPECT_EQ(out.window_allocations, n - n / 2);
        EXPECT_EQ(out.window_mean_live_requested_bytes, ws.planned().window_mean_live_requested_bytes);
        achieved += out.window_mean_live_requested_bytes;
      }
      const double sd = std::sqrt(threads * f.live_bytes_second_moment / double(n - n / 2));
      EXPECT_NEAR(achieved, double(live), 5 * sd) << to_string(shape) << " at " << threads << " threads (sd bound " << sd / double(live) * 100
                                                  << "%)";
      EXPECT_LT(5 * sd, 0.15 * double(live)) << "the test would not test much";
    }
}

// Lifetimes by size class in the engine, exactly: degenerate per-class lifetimes.
TEST(LifetimeModels, EngineFreesEachBlockWithItsClasssLifetime) {
  LifetimeParams p;
  p.sizes = {{8, 8, 1}, {100, 100, 1}, {5000, 5000, 1}};
  p.lifetime_classes = {{16, {{1, 1, 1}}, 0}, {200, {{7, 7, 1}}, 0}};
  p.lifetimes = {{30, 30, 1}};
  p.allocations_per_thread = 20'000;
  const LifetimeModel model(p);
  struct Recording {
    bool releasing = false;  // the release step frees what is left, whatever its lifetime
    void* allocate(std::size_t n) {
      void* b = std::malloc(n);
      born[b] = {allocations++, n};
      return b;
    }
    void deallocate(void* b, std::size_t n) {
      const auto [at, size] = born.at(b);
      EXPECT_EQ(size, n);
      const std::uint64_t lived = allocations - at;
      if (!releasing) {
        EXPECT_EQ(lived, n == 8 ? 1u : n == 100 ? 7u : 30u) << "size " << n;
        ++frees;
      }
      born.erase(b);
      std::free(b);
    }
    static constexpr std::string_view name() { return "recording"; }
    std::unordered_map<void*, std::pair<std::uint64_t, std::size_t>> born;
    std::uint64_t allocations = 0, frees = 0;
  } r;
  LifetimeWorkspace ws(model, 0);
  const auto out = run_lifetime_thread(r, ws, MemoryAccess::write_read);
  EXPECT_EQ(out.frees, r.frees);
  EXPECT_GT(r.frees, 19'000u);
  // Little's law exactly for degenerate lifetimes: (8 x 1 + 100 x 7 + 5000 x 30) / 3 per allocation.
  const LittleLawFigures f = little_law(p);
  EXPECT_NEAR(out.window_mean_live_requested_bytes, f.mean_live_bytes, 5 * std::sqrt(f.live_bytes_second_moment / 10'000));
  EXPECT_NEAR(little_law(p).mean_live_bytes, (8.0 + 700 + 150'000) / 3, 1e-9);
  r.releasing = true;
  release_lifetime_blocks(r, ws);
  EXPECT_TRUE(r.born.empty());
}

TEST(LifetimeModels, FitFilesWithAndWithoutClassesRoundTrip) {
  FitConfig c;
  c.params = make_lifetime_params({LifetimeShape::size_classes, 64 << 20}, base_with(2, 4'000'000, SizeModel::fleet));
  c.params.lifetime_classes[0].immortal_share = 0.25;
  ASSERT_EQ(c.params.lifetime_classes.size(), 2u);
  const std::string text = fit_config_text(c);
  const FitConfig back = parse_fit_config(text, "f.json");
  EXPECT_EQ(back.params.sizes, c.params.sizes);
  EXPECT_EQ(back.params.lifetimes, c.params.lifetimes);
  EXPECT_EQ(back.params.lifetime_classes, c.params.lifetime_classes);
  EXPECT_EQ(fit_config_text(back), text);
  EXPECT_NE(text.find("\n        \"lifetimes\": [\n          {\"min\":"), std::string::npos) << text;  // one row per line
  // Without classes, the file has no lifetime_classes field at all.
  FitConfig plain = c;
  plain.params.lifetime_classes.clear();
  const std::string plain_text = fit_config_text(plain);
  EXPECT_EQ(plain_text.find("lifetime_classes"), std::string::npos);
  EXPECT_TRUE(parse_fit_config(plain_text, "f.json").params.lifetime_classes.empty());

  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return error_of([&] { parse_fit_config(t, "f.json"); });
  };
  EXPECT_EQ(replaced("\"max_size\": 4096", "\"max_size\": 100"),
            "f.json: workload.lifetime_classes[1].max_size out of range: 100 (accepted: 257..4294967295, ascending: above the previous "
            "class's max_size)");
  EXPECT_EQ(replaced("\"max_size\": 256", "\"max_bytes\": 256"),
            "f.json: workload.lifetime_classes[0].max_bytes is not a known field (accepted: immortal_share, lifetimes, max_size)");
  EXPECT_EQ(replaced("\"immortal_share\": 0.25", "\"immortal_share\": 2"),
            "f.json: workload.lifetime_classes[0].immortal_share out of range: 2.0 (accepted: 0..1)");
  std::string not_array = plain_text;
  not_array.replace(not_array.find("\"workload\": {"), 13, "\"workload\": {\"lifetime_classes\": 3,");
  EXPECT_NE(error_of([&] { parse_fit_config(not_array, "f.json"); }).find("f.json: workload.lifetime_classes is not an array"), std::string::npos);
  EXPECT_NE(replaced("\"immortal_share\": 0.25,\n        \"lifetimes\": [", "\"immortal_share\": 0.25,\n        \"lifetimes\": [{\"min\":0,\"max\":1,\"weight\":1},")
                .find("f.json: workload.lifetime_classes[0].lifetimes[0].min out of range: 0"),
            std::string::npos);
}

// A one-thread trace in memory: block #t gets size_of(t) and lifetime lifetime_of(size), fresh
// addresses, malloc/free only.
template <class SizeOf, class LifetimeOf>
trace::TraceContents trace_of(std::uint64_t n, SizeOf size_of, LifetimeOf lifetime_of) {
  trace::TraceContents t;
  t.file = "generated.ast";
  t.threads.resize(1);
  std::vector<std::vector<std::uint64_t>> due(n);
  std::uint64_t tsc = 1;
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t a : due[i]) t.threads[0].events.push_back(trace::make_event(trace::TraceOp::free, tsc++, a));
    const std::uint64_t size = size_of(i), lifetime = lifetime_of(size), address = 0x10000 + 64 * i;
    t.threads[0].events.push_back(trace::make_event(trace::TraceOp::malloc, tsc++, address, size));
    if (i + lifetime < n) due[i + lifetime].push_back(address);
  }
  return t;
}

// `fit` emits lifetime classes when lifetimes depend on size (small blocks short-lived, large
// ones long-lived), and the fitted model then holds the trace's live heap; without classes it
// holds about half (E[size] E[L] instead of E[size x L]).  Independent lifetimes: no classes.
TEST(LifetimeModels, FitEmitsLifetimeClassesWhenLifetimesDependOnSize) {
  std::mt19937_64 rng(9);
  const auto trace = trace_of(
      200'000, [&](std::uint64_t) { return rng() % 2 ? 24 : 1000 + rng() % 1001; },
      [&](std::uint64_t size) { return size == 24 ? 1 + rng() % 10 : 500 + rng() % 1001; });
  const FitConfig with = fit_trace(trace);
  ASSERT_EQ(with.params.lifetime_classes.size(), 1u);
  EXPECT_EQ(with.params.lifetime_classes[0].max_size, 31u);  // the octave of 24 B
  EXPECT_LE(with.params.lifetime_classes[0].lifetimes.back().max, 10u);
  EXPECT_GE(with.params.lifetimes.front().min, 500u);
  EXPECT_LE(with.quality.lifetime_ks_distance, 0.01);
  const double peak_with = double(with.quality.model_peak_live_requested_bytes) / double(with.quality.trace_peak_live_requested_bytes);
  EXPECT_NEAR(peak_with, 1.0, 0.05);
  FitOptions none;
  none.lifetime_class_min_frees = 0;
  const FitConfig without = fit_trace(trace, none);
  EXPECT_TRUE(without.params.lifetime_classes.empty());
  const double peak_without = double(without.quality.model_peak_live_requested_bytes) / double(without.quality.trace_peak_live_requested_bytes);
  EXPECT_LT(peak_without, 0.7);
  // Lifetimes independent of size: one law, no classes.
  const auto independent = trace_of(
      200'000, [&](std::uint64_t) { return rng() % 2 ? 24 : 1000 + rng() % 1001; }, [&](std::uint64_t) { return 1 + rng() % 1000; });
  EXPECT_TRUE(fit_trace(independent).params.lifetime_classes.empty());
}

TEST(LifetimeModels, BadSpecsAreRejectedWithOneLine) {
  EXPECT_EQ(error_of([] { validate(LifetimeModelSpec{LifetimeShape::pareto, 0}); }),
            "live_bytes out of range: 0 (accepted: 4096..1099511627776, 4 KiB..1 TiB)");
  EXPECT_NE(error_of([] { validate(LifetimeModelSpec{LifetimeShape::pareto, (std::uint64_t{1} << 40) + 1}); }).find("live_bytes out of range"),
            std::string::npos);
  EXPECT_NO_THROW(validate(LifetimeModelSpec{LifetimeShape::pareto, 4096}));
  // The CLI's example is accepted: pareto, 8 MB, 300k allocations, fleet sizes, 1 thread.
  EXPECT_NO_THROW(validate(LifetimeModelSpec{LifetimeShape::pareto, 8'000'000}, base_with(1, 300'000, SizeModel::fleet)));
  // Too much live heap for the run: the mean lifetime would exceed a quarter of N/2.
  const std::string too_long = error_of([] { validate(LifetimeModelSpec{LifetimeShape::exponential, 1 << 30}, base_with(1, 300'000)); });
  EXPECT_NE(too_long.find("live_bytes 1073741824 with 1 thread, inverse sizes (mean 23.59 B) and 300000 allocations per thread gives a mean "
                          "lifetime of 4.551e+07 allocations (accepted: live_bytes 48..442389 here: every mean lifetime 2..1.875e+04 "
                          "allocations, at most 1/8 of the longest lifetime, which is half the allocations per thread)"),
            std::string::npos)
      << too_long;
  EXPECT_NE(too_long.find("(accepted: live_bytes "), std::string::npos) << too_long;
  EXPECT_EQ(too_long.find('\n'), std::string::npos);
  // Too little: mean lifetimes below 2 allocations.
  EXPECT_NE(error_of([] { validate(LifetimeModelSpec{LifetimeShape::exponential, 4096}, base_with(128, 300'000)); }).find("gives a mean lifetime of 1.356 allocations"),
            std::string::npos);
  // The accepted range the message states is really the accepted range.
  const AllocTestParams b = base_with(2, 300'000, SizeModel::fleet);
  const std::string msg = error_of([&] { validate(LifetimeModelSpec{LifetimeShape::size_classes, 1 << 30}, b); });
  const auto at = msg.find("live_bytes ", msg.find("accepted:"));
  const std::uint64_t lo = std::stoull(msg.substr(at + 11)), hi = std::stoull(msg.substr(msg.find("..", at) + 2));
  EXPECT_NO_THROW(validate(LifetimeModelSpec{LifetimeShape::size_classes, lo}, b)) << msg;
  EXPECT_NO_THROW(validate(LifetimeModelSpec{LifetimeShape::size_classes, hi}, b)) << msg;
  EXPECT_THROW(validate(LifetimeModelSpec{LifetimeShape::size_classes, lo - 1}, b), std::invalid_argument);
  EXPECT_THROW(validate(LifetimeModelSpec{LifetimeShape::size_classes, hi + 1}, b), std::invalid_argument);
  EXPECT_EQ(error_of([] { validate(LifetimeModelSpec{}, base_with(1, 8)); }),
            "iterations_per_thread out of range: 8 (accepted: 32..4294967294 allocations per thread)");
  EXPECT_NE(error_of([] { validate(LifetimeModelSpec{}, base_with(0, 1'000'000)); }).find("threads out of range: 0"), std::string::npos);
  EXPECT_THROW(make_lifetime_params(LifetimeModelSpec{LifetimeShape::exponential, 1 << 30}, base_with(1, 300'000)), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
