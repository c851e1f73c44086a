// The fitted workload: its stream depends only on (parameters, seed, thread); lifetimes are
// honoured to the allocation; sizes and lifetimes follow the tables' weights; the dry run
// predicts the measured run; blocks are written and read whole; parameters and fit files are
// validated with messages naming the field.
#include "workloads/lifetimes/lifetime_workload.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <vector>

#include "allocators/process_malloc_allocator.hpp"
#include "allocators/void_allocator.hpp"
#include "../support/workload_streams.hpp"
#include "distribution_check.hpp"

namespace allocstress {
namespace {

// Records every operation: for each allocation its number, for each free the number of the
// block freed and how many allocations had been made when it was freed.
class RecordingAllocator {
 public:
  void* allocate(std::size_t n) {
    void* p = std::malloc(n);
    number_of[p] = sizes.size();
    sizes.push_back(n);
    return p;
  }
  void deallocate(void* p, std::size_t n) {
    const std::size_t i = number_of.at(p);
    EXPECT_EQ(sizes[i], n) << "block " << i << " freed with another size";
    frees.push_back({i, sizes.size()});
    number_of.erase(p);
    std::free(p);
  }
  static constexpr std::string_view name() { return "recording"; }

  struct Free {
    std::size_t block, allocations_made;
  };
  std::vector<std::size_t> sizes;
  std::vector<Free> frees;
  std::unordered_map<void*, std::size_t> number_of;
};

LifetimeParams params_with(std::vector<ValueRange> sizes, std::vector<ValueRange> lifetimes, double immortal = 0,
                           std::uint64_t allocations = 100'000, std::uint64_t seed = 7) {
  LifetimeParams p;
  p.sizes = std::move(sizes);
  p.lifetimes = std::move(lifetimes);
  p.immortal_share = immortal;
  p.allocations_per_thread = allocations;
  p.seed = seed;
  return p;
}

LifetimeParams typical() {
  return params_with({{16, 16, 0.5}, {24, 24, 0.2}, {100, 400, 0.3}}, {{1, 1, 0.4}, {2, 7, 0.3}, {300, 70'000, 0.3}}, 0.05);
}

template <class A>
AllocTestThreadOutcome run(A& alloc, const LifetimeModel& model, unsigned thread = 0, MemoryAccess access = MemoryAccess::write_read) {
  LifetimeWorkspace ws(model, thread);
  const AllocTestThreadOutcome out = run_lifetime_thread(alloc, ws, access);
  release_lifetime_blocks(alloc, ws);
  return out;
}

using testing::expect_same_stream;

TEST(LifetimeWorkload, SameSeedSameStreamOnEveryAllocatorAndAccessMode) {
  const LifetimeModel model(typical());
  VoidAllocator v(model.max_size());
  ProcessMallocAllocator m(model.max_size());
  const auto a = run(v, model), b = run(m, model), c = run(m, model, 0, MemoryAccess::none);
  expect_same_stream(a, b);
  EXPECT_EQ(b.op_stream_hash, c.op_stream_hash);
  EXPECT_EQ(b.read_checksum, run(m, model).read_checksum);  // correct allocators read back the same
}

TEST(LifetimeWorkload, SeedsAndThreadsGiveDifferentStreams) {
  ProcessMallocAllocator m(1 << 16);
  LifetimeParams p = typical();
  const LifetimeModel one(p);
  p.seed = 8;
  const LifetimeModel other(p);
  EXPECT_NE(run(m, one).op_stream_hash, run(m, other).op_stream_hash);
  EXPECT_NE(run(m, one, 0).op_stream_hash, run(m, one, 1).op_stream_hash);
}

TEST(LifetimeWorkload, DryRunPredictsTheMeasuredRun) {
  const LifetimeModel model(typical());
  LifetimeWorkspace ws(model, 3);
  const AllocTestThreadOutcome planned = ws.planned();
  ProcessMallocAllocator m(model.max_size());
  const AllocTestThreadOutcome out = run_lifetime_thread(m, ws, MemoryAccess::write_read);
  expect_same_stream(out, planned);
  EXPECT_EQ(out.mallocs, 100'000u);
  EXPECT_EQ(ws.pool.high_water(), ws.planned_peak_live_blocks());  // the pool never grew in the measured run
  std::uint64_t live = 0, blocks = 0;
  for (const LiveBlock& b : ws.records()) {
    live += b.size;
    blocks += b.size != 0;
  }
  EXPECT_EQ(live, out.end_live_requested_bytes);
  EXPECT_EQ(blocks, out.mallocs - out.frees);
  release_lifetime_blocks(m, ws);
  for (const LiveBlock& b : ws.records()) EXPECT_EQ(b.size, 0u);
}

// A soak continues the clock: a run of N allocations and K rounds of R more give exactly the
// stream, frees and contents of one run of N + K R allocations (the blocks due later are
// filed, not yet freed), and the window figures stay the first N's.
TEST(LifetimeWorkload, SoakRoundsContinueTheStreamAsOneLongerRun) {
  const LifetimeParams short_params = typical();
  LifetimeParams long_params = short_params;
  long_params.allocations_per_thread = short_params.allocations_per_thread + 3 * 20'000;
  const LifetimeModel short_model(short_params), long_model(long_params);
  ProcessMallocAllocator m(short_model.max_size());
  LifetimeWorkspace soaked(short_model, 2);
  soaked.soaking = true;
  LifetimeThreadOutcome out = run_lifetime_thread(m, soaked, MemoryAccess::write_read);
  const LifetimeThreadOutcome first = out;
  for (int round = 0; round < 3; ++round) ASSERT_TRUE(continue_lifetime_thread(m, soaked, MemoryAccess::write_read, out, 20'000));
  LifetimeWorkspace once(long_model, 2);
  const LifetimeThreadOutcome whole = run_lifetime_thread(m, once, MemoryAccess::write_read);
  EXPECT_EQ(soaked.clock, long_params.allocations_per_thread);
  expect_same_stream(out, whole);
  EXPECT_EQ(out.read_checksum, whole.read_checksum);
  EXPECT_EQ(out.window_mean_live_requested_bytes, first.window_mean_live_requested_bytes);
  EXPECT_GT(out.frees, first.frees + 3 * 20'000 * 9 / 10);  // rounds free as they allocate: 5% of blocks are immortal
  release_lifetime_blocks(m, soaked);
  release_lifetime_blocks(m, once);
}

// Each block allocated as #i with lifetime L is freed right before allocation #(i+L), or
// survives to the release step when i+L >= N; lifetimes straddle the wheel's level boundaries.
TEST(LifetimeWorkload, DegenerateLifetimeIsHonouredExactly) {
  for (std::uint64_t lifetime : {1u, 2u, 255u, 256u, 257u, 65'535u, 65'536u, 65'537u, 150'000u}) {
    const std::uint64_t n = 140'000;
    const LifetimeModel model(params_with({{8, 8, 1}}, {{lifetime, lifetime, 1}}, 0, n));
    RecordingAllocator r;
    LifetimeWorkspace ws(model, 0);
    const auto out = run_lifetime_thread(r, ws, MemoryAccess::write_read);
    const std::uint64_t freed_in_loop = n > lifetime ? n - lifetime : 0;
    ASSERT_EQ(out.frees, freed_in_loop) << "L = " << lifetime;
    for (std::size_t k = 0; k < out.frees; ++k) {
      ASSERT_EQ(r.frees[k].block, k) << "L = " << lifetime;  // oldest first
      ASSERT_EQ(r.frees[k].allocations_made, k + lifetime) << "L = " << lifetime;
    }
    release_lifetime_blocks(r, ws);
    EXPECT_EQ(r.frees.size(), n) << "L = " << lifetime;
    EXPECT_TRUE(r.number_of.empty());
  }
}

TEST(LifetimeWorkload, SizesAndLifetimesFollowTheTables) {
  const LifetimeParams p = params_with({{16, 16, 5}, {24, 24, 2}, {100, 399, 3}}, {{1, 1, 4}, {3, 3, 3}, {1000, 1000, 3}}, 0.1, 400'000);
  const LifetimeModel model(p);
  RecordingAllocator r;
  LifetimeWorkspace ws(model, 0);
  run_lifetime_thread(r, ws, MemoryAccess::write);
  const double n = double(r.sizes.size());
  std::map<std::size_t, double> size_count;
  double in_range = 0, range_sum = 0;
  for (std::size_t s : r.sizes) {
    if (s >= 100 && s <= 399) {
      in_range += 1;
      range_sum += double(s);
    } else {
      size_count[s] += 1;
    }
  }
  EXPECT_EQ(size_count.size(), 2u);  // 16 and 24 only, besides the range
  EXPECT_NEAR(size_count[16] / n, 0.5, test::share_tolerance(0.5, n));
  EXPECT_NEAR(size_count[24] / n, 0.2, test::share_tolerance(0.2, n));
  EXPECT_NEAR(in_range / n, 0.3, test::share_tolerance(0.3, n));
  EXPECT_NEAR(range_sum / in_range, 249.5, 5 * 86.6 / std::sqrt(in_range));  // uniform on 100..399: sd 86.6
  // Lifetimes of the blocks freed in the loop, against blocks that could have been freed.
  std::map<std::size_t, double> lifetime_count;
  for (const auto& f : r.frees) lifetime_count[f.allocations_made - f.block] += 1;
  EXPECT_EQ(lifetime_count.size(), 3u);
  const double eligible = n - 1000;  // blocks whose every possible due time is inside the loop
  for (const auto& [lifetime, share] : std::map<std::size_t, double>{{1, 0.36}, {3, 0.27}, {1000, 0.27}})
    EXPECT_NEAR(lifetime_count[lifetime] / eligible, share, test::share_tolerance(share, eligible) + 1000 / n) << lifetime;
  const double immortal = 1.0 - double(r.frees.size()) / n;  // blocks never freed in the loop
  EXPECT_NEAR(immortal, 0.1, test::share_tolerance(0.1, n) + 1000 / n);
  release_lifetime_blocks(r, ws);
}

TEST(LifetimeWorkload, AllImmortalFreesNothingInTheLoop) {
  const LifetimeModel model(params_with({{32, 32, 1}}, {}, 1.0, 5000));
  ProcessMallocAllocator m(model.max_size());
  LifetimeWorkspace ws(model, 0);
  const auto out = run_lifetime_thread(m, ws, MemoryAccess::write_read);
  EXPECT_EQ(out.frees, 0u);
  EXPECT_EQ(out.end_live_requested_bytes, 5000u * 32);
  EXPECT_EQ(out.peak_live_requested_bytes, 5000u * 32);
  release_lifetime_blocks(m, ws);
}

// Reads back what it wrote: an allocator that scribbles on live blocks changes read_checksum.
// Every 97th allocation flips a byte of the block handed out just before (once per block).
class ScribblingAllocator {
 public:
  void* allocate(std::size_t n) {
    if (last != nullptr && ++calls % 97 == 0) {
      static_cast<unsigned char*>(last)[0] ^= 0x5a;
      ++scribbled;
    }
    void* p = std::malloc(n);
    last = p;
    return p;
  }
  void deallocate(void* p, std::size_t) {
    if (p == last) last = nullptr;
    std::free(p);
  }
  static constexpr std::string_view name() { return "scribbling"; }
  void* last = nullptr;
  std::uint64_t calls = 0, scribbled = 0;
};

TEST(LifetimeWorkload, ScribblingAllocatorChangesTheReadChecksum) {
  const LifetimeModel model(typical());
  ProcessMallocAllocator m(model.max_size());
  ScribblingAllocator s;
  const auto good = run(m, model), bad = run(s, model);
  EXPECT_EQ(good.op_stream_hash, bad.op_stream_hash);
  EXPECT_GT(s.scribbled, 100u);
  EXPECT_NE(good.read_checksum, bad.read_checksum);
}

class FailingAllocator {
 public:
  void* allocate(std::size_t n) { return ++calls > 1000 ? nullptr : std::malloc(n); }
  void deallocate(void* p, std::size_t) {
    ++frees;
    std::free(p);
  }
  static constexpr std::string_view name() { return "failing"; }
  std::uint64_t calls = 0, frees = 0;
};

TEST(LifetimeWorkload, FailedAllocationStopsTheLoopAndReleaseFreesTheRest) {
  const LifetimeModel model(typical());
  FailingAllocator f;
  LifetimeWorkspace ws(model, 0);
  const auto out = run_lifetime_thread(f, ws, MemoryAccess::write_read);
  EXPECT_EQ(out.mallocs, 1000u);
  EXPECT_NE(out.failed_allocation_bytes, 0u);
  release_lifetime_blocks(f, ws);
  EXPECT_EQ(f.frees, 1000u);
}

TEST(RangeSampler, RowProbabilitiesAreTheNormalisedWeights) {
  const RangeSampler s({{1, 1, 1}, {2, 5, 0}, {6, 6, 3}, {7, 9, 4}});
  EXPECT_NEAR(s.row_probability(0), 0.125, 1e-9);
  EXPECT_EQ(s.row_probability(1), 0.0);
  EXPECT_NEAR(s.row_probability(2), 0.375, 1e-9);
  EXPECT_NEAR(s.row_probability(3), 0.5, 1e-9);
  EXPECT_EQ(s.max_value(), 9u);
  WorkloadRng rng(3);
  for (int i = 0; i < 100'000; ++i) {
    const std::uint64_t v = s.sample(rng);
    ASSERT_TRUE(v == 1 || v == 6 || (v >= 7 && v <= 9)) << v;
  }
}

void expect_invalid(const LifetimeParams& p, const std::string& text) {
  try {
    validate(p);
    FAIL() << "accepted; wanted an error containing: " << text;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(LifetimeParams, ValidationNamesTheFieldAndTheAcceptedRange) {
  LifetimeParams p = typical();
  EXPECT_NO_THROW(validate(p));
  p.threads = 0;
  expect_invalid(p, "threads out of range: 0 (accepted: 1..4096)");
  p = typical();
  p.allocations_per_thread = 0;
  expect_invalid(p, "allocations_per_thread out of range: 0");
  p.allocations_per_thread = kMaxFittedAllocationsPerThread + 1;
  expect_invalid(p, "allocations_per_thread out of range");
  p = typical();
  p.sizes.clear();
  expect_invalid(p, "sizes: no rows");
  p = typical();
  p.sizes[1] = {30, 20, 1};
  expect_invalid(p, "sizes[1].max out of range: 20 with min 30");
  p = typical();
  p.sizes[0].min = 0;
  expect_invalid(p, "sizes[0].min out of range: 0");
  p = typical();
  p.lifetimes[2].weight = -1;
  expect_invalid(p, "lifetimes[2].weight is -1");
  p = typical();
  for (auto& r : p.sizes) r.weight = 0;
  expect_invalid(p, "sizes: the weights sum to 0");
  p = typical();
  p.immortal_share = 1.5;
  expect_invalid(p, "immortal_share out of range: 1.5");
  p = typical();
  p.lifetimes.clear();
  expect_invalid(p, "lifetimes: no rows while immortal_share is 0.05");
  EXPECT_THROW(LifetimeModel{p}, std::invalid_argument);
}

TEST(LifetimeParams, FitFileRoundTripsAndRejectsBadContent) {
  FitConfig c;
  c.params = typical();
  c.params.threads = 3;
  c.trace.path = "x.trace";
  c.trace.median_size = 24;
  c.quality.size_ks_distance = 0.004;
  const std::string text = fit_config_text(c);
  const FitConfig back = parse_fit_config(text, "f.json");
  EXPECT_EQ(back.params.sizes, c.params.sizes);
  EXPECT_EQ(back.params.lifetimes, c.params.lifetimes);
  EXPECT_EQ(back.params.immortal_share, c.params.immortal_share);
  EXPECT_EQ(back.params.threads, 3u);
  EXPECT_EQ(back.params.allocations_per_thread, c.params.allocations_per_thread);
  EXPECT_EQ(back.params.seed, c.params.seed);
  EXPECT_EQ(back.trace.path, "x.trace");
  EXPECT_EQ(back.trace.median_size, 24u);
  EXPECT_EQ(back.quality.size_ks_distance, 0.004);
  EXPECT_NE(text.find("{\"min\":16,\"max\":16,\"weight\":0.5}"), std::string::npos) << text;  // one row per line

  auto error_of = [](const std::string& t) {
    try {
      parse_fit_config(t, "f.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_EQ(error_of("{"), "f.json: not valid JSON (accepted: a fit file written by `allocstress fit`)");
  EXPECT_NE(error_of("{\"format\": \"other\"}").find("not an allocstress fit file"), std::string::npos);
  EXPECT_EQ(error_of(replaced("\"version\": 1", "\"version\": 2")), "f.json: version is 2 (accepted: 1)");
  EXPECT_NE(error_of(replaced("\"seed\"", "\"sead\"")).find("f.json: workload.sead is not a known field"), std::string::npos);
  EXPECT_NE(error_of(replaced("\"threads\": 3", "\"threads\": \"3\"")).find("f.json: workload.threads is \"3\" (accepted: a whole number"),
            std::string::npos);
  EXPECT_NE(error_of(replaced("\"threads\": 3", "\"threads\": 0")).find("f.json: workload.threads out of range: 0"), std::string::npos);
  EXPECT_NE(error_of(replaced("{\"min\":16,\"max\":16", "{\"min\":16,\"max\":6")).find("f.json: workload.sizes[0].max out of range: 6"),
            std::string::npos);
  EXPECT_NE(error_of(replaced("{\"min\":16,", "{")).find("f.json: workload.sizes[0].min is missing"), std::string::npos);
  // found by fuzzing: a count of the trace section beyond its range was converted with undefined behaviour
  EXPECT_EQ(error_of(replaced("\"allocations\": 0", "\"allocations\": 2.4e41")), "f.json: trace.allocations is 2.4e+41 (accepted: a number in 0..2^64)");
  EXPECT_NE(error_of(replaced("\"size_rows\": 0", "\"size_rows\": -1")).find("f.json: fit.size_rows is -1"), std::string::npos);
  EXPECT_THROW(load_fit_config("/nonexistent/fit.json"), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
