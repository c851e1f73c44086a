// Parsing callgrind's profile into the simulated-cache block; the simulator's command line.
#include "platform/cache_simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace allocstress {
namespace {

std::filesystem::path write_profile(const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("allocstress-cg-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::ofstream(p) << text;
  return p;
}

TEST(CacheSimulation, TotalsWithTrailingZerosLeftOut) {
  // callgrind omits trailing zero counts: DLmr and DLmw are 0 here.
  const auto p = write_profile("version: 1\ncreator: callgrind-3.19.0\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
                               "fl=(1) x.c\nfn=(1) f\n3 10 4 1\nsummary: 1000 300 100 2 40 10 2\ntotals: 1000 300 100 2 40 10 2\n");
  const auto s = simulated_cache_figures(p);
  EXPECT_EQ(s["data_refs"], 400);
  EXPECT_EQ(s["d1_misses"], 50);
  EXPECT_EQ(s["ll_misses"], 0);
  EXPECT_DOUBLE_EQ(s["d1_miss_rate"].get<double>(), 50.0 / 400.0);
  EXPECT_EQ(s["events"]["DLmw"], 0);
  EXPECT_EQ(s["phase"], "search");
  std::filesystem::remove(p);
}

TEST(CacheSimulation, AProfileWithoutTotalsIsAnError) {
  const auto p = write_profile("events: Ir Dr\n");
  try {
    simulated_cache_figures(p);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(p);
  EXPECT_THROW(simulated_cache_figures("/nonexistent/callgrind.out"), std::runtime_error);
}

TEST(CacheSimulation, CommandSwitchesCollectionOffAtStartAndRandomisationOff) {
  if (!std::filesystem::exists("/usr/bin/valgrind")) GTEST_SKIP() << "valgrind not installed";
  const auto argv = cache_simulation_command({"/bin/true"}, "/tmp/x.out");
  const std::string all = [&] {
    std::string s;
    for (const auto& a : argv) s += a + " ";
    return s;
  }();
  EXPECT_NE(all.find("--addr-no-randomize"), std::string::npos);
  EXPECT_NE(all.find("--collect-atstart=no"), std::string::npos);
  EXPECT_NE(all.find("--cache-sim=yes"), std::string::npos);
  EXPECT_NE(all.find("--callgrind-out-file=/tmp/x.out"), std::string::npos);
  EXPECT_NE(all.find("--fair-sched=yes"), std::string::npos);
  EXPECT_EQ(all.find("--separate-threads"), std::string::npos);
  EXPECT_EQ(argv.back(), "/bin/true");
  const auto per_thread = cache_simulation_command({"/bin/true"}, "/tmp/x.out", true);
  EXPECT_NE(std::find(per_thread.begin(), per_thread.end(), "--separate-threads=yes"), per_thread.end());
  EXPECT_EQ(per_thread.back(), "/bin/true");
}

TEST(CacheSimulation, ThreadProfilesAreFoundInThreadIdOrder) {
  const auto dir = std::filesystem::temp_directory_path() / "allocstress-thread-profiles-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* name : {"callgrind.out-10", "callgrind.out-02", "callgrind.out-01", "callgrind.out-x1", "other.out-03"})
    std::ofstream(dir / name) << "";
  const auto found = thread_profiles(dir / "callgrind.out");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].filename(), "callgrind.out-01");
  EXPECT_EQ(found[1].filename(), "callgrind.out-02");
  EXPECT_EQ(found[2].filename(), "callgrind.out-10");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace allocstress
