// Parsing callgrind's profile into the simulated-cache block; the simulator's command line.
#include "platform/profilers/cache_simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "platform/profilers/cache_geometry.hpp"
#include "platform/process/child_process.hpp"

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

// The simulation against a program whose misses are known in advance (tests/support/
// strided_walk.c), through the project's own command (the machine's geometry from hwloc) and
// parser.  With a stride of one line over n lines, in caches that start empty when instrumentation
// starts (LRU; the region aligned so that every set gets the same number of lines):
//   half the L1d, 1 write pass + 2 read passes: the write pass misses every line once, in the L1d
//     and the last level (cold), the reads all hit: D1mw = DLmw = n, D1mr = DLmr = 0;
//   twice the L1d, 1 write + 2 reads: 2A lines cycled through each A-way L1d set miss every time,
//     while the last level (far larger) misses each line once: D1mw = n, D1mr = 2n, DLmw = n, DLmr = 0;
//   twice the last level, 2 reads: every access misses both: D1mr = DLmr = 2n, no writes.
// Besides the walk, the collected stretch holds one thing: the client request that ends collection,
// which reads and writes its arguments on the stack once (a walk of 0 passes collects exactly 1 Dr
// and 1 Dw, the write a cold miss at both levels).  So Dr and Dw are the walk's + 1 exactly, and
// each miss count is the model's or one more (the stated slack: that request's one access of each
// kind).  Valgrind's and the program's start-up run before instrumentation starts: no slack for them.
// A broken simulation command, geometry or parser is off by hundreds of lines, not by one.
#ifdef ALLOCSTRESS_STRIDED_WALK
struct Walk {
  std::size_t bytes;
  int write_passes, read_passes;
};

nlohmann::json simulate_walk(const Walk& w, std::size_t stride, std::size_t align) {
  const auto dir = make_temporary_folder("allocstress-walk-");
  const TemporaryFolder keep(dir);
  const auto profile = dir / "callgrind.out";
  const auto argv = cache_simulation_command({ALLOCSTRESS_STRIDED_WALK, std::to_string(w.bytes), std::to_string(stride), std::to_string(align),
                                              std::to_string(w.write_passes), std::to_string(w.read_passes)},
                                             profile);
  EnvironmentChanges env;
  for (const auto& [k, v] : callgrind_environment()) env[k] = v;
  const ChildOutcome o = run_child(argv, env, 120);
  if (!o.succeeded()) throw std::runtime_error("the walk under callgrind failed: " + describe_failure(o, 120) + "\n" + o.err);
  return simulated_cache_figures(profile);
}

TEST(CacheSimulation, AStridedWalkMissesExactlyAsTheGeometrySays) {
  ASSERT_EQ(cache_simulation_unavailable(), "") << "the reference needs valgrind and setarch";
  const CacheGeometry &d1 = l1_data_cache(), &ll = last_level_cache();
  ASSERT_EQ(d1.line, ll.line) << "one stride for both levels";
  const std::size_t line = d1.line, align = std::max(d1.period(), ll.period());
  struct Case {
    const char* what;
    Walk walk;
    std::uint64_t d1mr, d1mw, dlmr, dlmw;  // in lines of the region
  };
  const std::size_t half_l1 = d1.size / 2 / line, twice_l1 = 2 * d1.size / line, twice_ll = 2 * ll.size / line;
  const Case cases[] = {
      {"half the L1d", {d1.size / 2, 1, 2}, 0, half_l1, 0, half_l1},
      {"twice the L1d", {2 * d1.size, 1, 2}, 2 * twice_l1, twice_l1, 0, twice_l1},
      {"twice the last level", {2 * ll.size, 0, 2}, 2 * twice_ll, 0, 2 * twice_ll, 0},
  };
  for (const Case& c : cases) {
    const nlohmann::json s = simulate_walk(c.walk, line, align);
    const nlohmann::json& e = s.at("events");
    SCOPED_TRACE(std::string(c.what) + " (L1d " + std::to_string(d1.size) + " B " + std::to_string(d1.associativity) + "-way, LL " +
                 std::to_string(ll.size) + " B " + std::to_string(ll.associativity) + "-way, " + std::to_string(line) + " B lines): " + s.dump());
    const std::uint64_t lines = c.walk.bytes / line;
    EXPECT_EQ(e.value("Dr", std::uint64_t{0}), lines * std::uint64_t(c.walk.read_passes) + 1);
    EXPECT_EQ(e.value("Dw", std::uint64_t{0}), lines * std::uint64_t(c.walk.write_passes) + 1);
    const std::pair<const char*, std::uint64_t> model[] = {{"D1mr", c.d1mr}, {"D1mw", c.d1mw}, {"DLmr", c.dlmr}, {"DLmw", c.dlmw}};
    for (const auto& [event, want] : model) {
      const std::uint64_t got = e.value(event, std::uint64_t{0});
      EXPECT_TRUE(got == want || got == want + 1) << event << ": " << got << ", the model says " << want << " (+1 at most)";
    }
    // The parser's figures are these events' sums, whatever they are.
    EXPECT_EQ(s.at("d1_misses").get<std::uint64_t>(), e.value("D1mr", std::uint64_t{0}) + e.value("D1mw", std::uint64_t{0}));
    EXPECT_EQ(s.at("ll_misses").get<std::uint64_t>(), e.value("DLmr", std::uint64_t{0}) + e.value("DLmw", std::uint64_t{0}));
    EXPECT_EQ(s.at("data_refs").get<std::uint64_t>(), lines * std::uint64_t(c.walk.write_passes + c.walk.read_passes) + 2);
    // And the two figures users read are the model's, within the same slack.
    const std::uint64_t d1_model = c.d1mr + c.d1mw, ll_model = c.dlmr + c.dlmw;
    EXPECT_GE(s.at("d1_misses").get<std::uint64_t>(), d1_model);
    EXPECT_LE(s.at("d1_misses").get<std::uint64_t>(), d1_model + 2);
    EXPECT_GE(s.at("ll_misses").get<std::uint64_t>(), ll_model);
    EXPECT_LE(s.at("ll_misses").get<std::uint64_t>(), ll_model + 2);
    EXPECT_EQ(s.at("d1").at("size").get<std::size_t>(), d1.size);
    EXPECT_EQ(s.at("ll").at("size").get<std::size_t>(), ll.size);
  }
}
#endif

}  // namespace
}  // namespace allocstress
