// The fleet-profile workload (workloads/fleet/fleet_profile.hpp) against its data: each of the ten
// profiles runs through an allocator that records every call, and the sizes it allocated in the
// churn and the blocks live at the end, binned by powers of two, are held to the profile's own
// allocation-rate and live-count histograms read straight from the CSV files (parsed here, not by
// the workload).  Tolerance: the total variation distance between the two histograms (half the
// sum of the bins' absolute differences: the largest share any set of bins can be off by) at most
// 2%.  What it leaves: sampling noise of 400k rate draws (about 0.3% TVD) and the sizes above
// an eighth of the heap that the plan leaves out (their shares are in the plan, checked here too).
#include "workloads/fleet/fleet_profile.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

namespace allocstress {
namespace {

constexpr std::uint64_t kHeap = 16u << 20;
constexpr std::uint64_t kChurn = 400'000;

struct CsvRow {
  double size, rate, live;
};

std::vector<CsvRow> read_csv(unsigned k) {
  const std::string path = std::string(ALLOCSTRESS_TEST_DATA_DIR) + "/../../workloads/fleet/profiles/TCMALLOC_" + std::to_string(k) + ".csv";
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<CsvRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    CsvRow r{};
    if (std::sscanf(line.c_str(), "%lf , %lf , %lf", &r.size, &r.rate, &r.live) == 3) rows.push_back(r);
  }
  return rows;
}

unsigned bin_of(double size) { return unsigned(std::bit_width(std::uint64_t(size))); }  // [2^(b-1), 2^b)

using Histogram = std::map<unsigned, double>;

Histogram normalised(Histogram h) {
  double total = 0;
  for (const auto& [b, v] : h) total += v;
  for (auto& [b, v] : h) v /= total;
  return h;
}

double total_variation(const Histogram& a, const Histogram& b) {
  std::map<unsigned, double> diff;
  for (const auto& [bin, v] : a) diff[bin] += v;
  for (const auto& [bin, v] : b) diff[bin] -= v;
  double sum = 0;
  for (const auto& [bin, d] : diff) sum += std::fabs(d);
  return sum / 2;
}

// Records every call: sizes allocated after `churn_from` mallocs, and the live blocks' sizes.
struct RecordingAllocator {
  static std::string_view name() { return "recording"; }
  void* allocate(std::size_t n) {
    void* p = std::malloc(n);
    live[p] = n;
    if (mallocs++ >= churn_from) churn_sizes[bin_of(double(n))] += 1;
    return p;
  }
  void deallocate(void* p, std::size_t n) {
    EXPECT_EQ(live.at(p), n);
    live.erase(p);
    std::free(p);
  }
  std::uint64_t churn_from = 0, mallocs = 0;
  std::unordered_map<void*, std::size_t> live;
  Histogram churn_sizes;
};

TEST(FleetProfile, AllocationAndLiveHistogramsMatchEachProfileWithin2Percent) {
  for (unsigned k = 0; k < kFleetProfileCount; ++k) {
    SCOPED_TRACE("profile " + std::to_string(k));
    Histogram want_rate, want_live;
    for (const CsvRow& r : read_csv(k)) {
      want_rate[bin_of(r.size)] += r.rate;
      want_live[bin_of(r.size)] += r.live;
    }
    const FleetProfilePlan plan = make_fleet_profile_plan(fleet_profile(k), kHeap);
    EXPECT_LT(plan.left_out_rate_share, 0.001);
    RecordingAllocator alloc;
    alloc.churn_from = plan.slots;
    std::vector<Slot> slots(plan.slots);
    std::vector<std::uint32_t> order(plan.slots);
    WorkloadRng rng = make_thread_rng(1, 0);
    shuffle_build_order(order, rng);
    const AllocTestThreadOutcome out =
        run_fleet_profile_thread<MemoryAccess::touch>(alloc, plan, slots, order, rng, kChurn, 3, [](unsigned, const AllocTestThreadOutcome&) {});
    ASSERT_EQ(out.failed_allocation_bytes, 0u);
    EXPECT_EQ(out.mallocs, plan.slots + kChurn);
    Histogram got_live;
    std::uint64_t live_bytes = 0;
    for (const auto& [p, n] : alloc.live) {
      got_live[bin_of(double(n))] += 1;
      live_bytes += n;
    }
    EXPECT_EQ(alloc.live.size(), plan.slots);
    EXPECT_EQ(live_bytes, out.end_live_requested_bytes);
    // The heap after rounding: within the largest kept block of the one asked for.
    EXPECT_NEAR(double(live_bytes), double(kHeap), double(plan.sizes.back()));
    EXPECT_LE(total_variation(normalised(alloc.churn_sizes), normalised(want_rate)), 0.02);
    EXPECT_LE(total_variation(normalised(got_live), normalised(want_live)), 0.02);
    release_all_slots(alloc, std::span<Slot>(slots));
  }
}

TEST(FleetProfile, SameSeedSameStreamAndEveryLiveCountExact) {
  const FleetProfilePlan plan = make_fleet_profile_plan(fleet_profile(1), 4u << 20);
  std::uint64_t hashes[2] = {};
  for (std::uint64_t& h : hashes) {
    RecordingAllocator alloc;
    std::vector<Slot> slots(plan.slots);
    std::vector<std::uint32_t> order(plan.slots);
    WorkloadRng rng = make_thread_rng(7, 2);
    shuffle_build_order(order, rng);
    h = run_fleet_profile_thread<MemoryAccess::write_read>(alloc, plan, slots, order, rng, 50'000, 2, [](unsigned, const AllocTestThreadOutcome&) {})
            .op_stream_hash;
    std::map<std::size_t, std::uint64_t> per_size;
    for (const auto& [p, n] : alloc.live) ++per_size[n];
    for (std::size_t i = 0; i < plan.sizes.size(); ++i) {
      if (plan.live[i] > 0) {
        EXPECT_EQ(per_size[plan.sizes[i]], plan.live[i]) << "size " << plan.sizes[i];
      }
    }
    release_all_slots(alloc, std::span<Slot>(slots));
  }
  EXPECT_EQ(hashes[0], hashes[1]);
}

TEST(FleetProfile, SmallHeapsLeaveOutLargeSizesAndSayHowMuch) {
  // Profile 8 keeps 96% of its live bytes in blocks above 1 MiB: at 4 MiB a thread keeps none of them.
  const FleetProfilePlan plan = make_fleet_profile_plan(fleet_profile(8), 4u << 20);
  EXPECT_EQ(plan.max_block, 512u << 10);
  EXPECT_LE(plan.sizes.back(), plan.max_block);
  EXPECT_GT(plan.left_out_live_bytes_share, 0.9);
  EXPECT_THROW(make_fleet_profile_plan(fleet_profile(1), 7), std::invalid_argument);  // no block of at most 0 bytes
  EXPECT_THROW(fleet_profile(10), std::invalid_argument);
}

TEST(FleetProfile, CsvErrorsNameTheLine) {
  try {
    parse_fleet_profile_csv("16, 1, 2\n32, x, 1\n", "test.csv");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("test.csv line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_fleet_profile_csv("16, 1\n", "t"), std::invalid_argument);
  EXPECT_THROW(parse_fleet_profile_csv("16, 1, 1\n16, 2, 2\n", "t"), std::invalid_argument);
  EXPECT_THROW(parse_fleet_profile_csv("", "t"), std::invalid_argument);
  EXPECT_EQ(parse_fleet_profile_csv("32, 1, 2\n16, 3, 4\n", "t").front().size, 16u);
}

}  // namespace
}  // namespace allocstress
