// The counts tier's model of the clock (results/machine_costs.hpp): its arithmetic on hand-made
// events and costs, the uncalibrated fallback, and the machine-costs file's checks.
#include "results/machine_costs.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace allocstress {
namespace {

using Json = nlohmann::json;

// Costs chosen so that every term of the model is visible in the result.
MachineCosts test_costs() {
  MachineCosts c;
  c.calibrated = true;
  c.cycles_per_instruction = 0.5;
  c.l1_latency = 2;
  c.last_level_latency = 12;   // 10 more than an L1 hit
  c.ram_latency = 102;         // 100 more
  c.kernel = {{"minor_fault", 1000}, {"mmap", 300}, {"munmap", 400}, {"madvise", 5000}, {"brk", 200},
              {"mprotect", 250},     {"mremap", 350}, {"syscall", 100}};
  c.source = {{"file", "test"}, {"created", "2026-11-27T00:00:00Z"}};
  return c;
}

// 1,000 instructions; 30 L1 misses of which 4 went to RAM.
Json test_events() {
  return {{"Ir", 1000}, {"Dr", 400}, {"Dw", 200}, {"I1mr", 5}, {"D1mr", 20}, {"D1mw", 5}, {"ILmr", 1}, {"DLmr", 2}, {"DLmw", 1}};
}

Json test_kernel_events() {
  return {{"minor_faults", 7}, {"major_faults", 0},
          {"syscalls", {{"mmap", 2}, {"munmap", 1}, {"madvise", 1}, {"brk", 3}, {"futex", 4}, {"prctl", 1}}}};
}

TEST(MachineCosts, UserPartIsInstructionsAtCpiPlusMissPenalties) {
  // 0.5 x 1000 + 10 x (30 - 4) + 100 x 4
  EXPECT_DOUBLE_EQ(user_cycles(test_events(), test_costs()), 500 + 260 + 400);
}

TEST(MachineCosts, FirstTouchesOfFaultedPagesAreChargedAsLastLevelHits) {
  MachineCosts c = test_costs();
  c.lines_per_page = 2;
  // 1 fault x 2 lines: 2 of the 4 RAM hits become LL hits: 500 + 10 x 28 + 100 x 2; 9 faults cover all 4
  EXPECT_DOUBLE_EQ(user_cycles(test_events(), c, 1), 500 + 280 + 200);
  EXPECT_DOUBLE_EQ(user_cycles(test_events(), c, 9), 500 + 300);
}

TEST(MachineCosts, KernelPartPricesFaultsAndEachCallByKindAndTheRestAsABareSyscall) {
  // 7 faults x 1000 + 2 mmap x 300 + munmap 400 + madvise 5000 + 3 brk x 200 + (4 futex + 1 prctl) x 100
  const auto k = kernel_cycles(test_kernel_events(), test_costs());
  ASSERT_TRUE(k.has_value());
  EXPECT_DOUBLE_EQ(*k, 7000 + 600 + 400 + 5000 + 600 + 500);
}

TEST(MachineCosts, UncalibratedIsIaisWeightsAndLeavesTheKernelUnpriced) {
  const MachineCosts none;
  // accesses 1600, L1 misses 30, RAM 4: (1600 - 30) + 5 x 26 + 35 x 4
  EXPECT_DOUBLE_EQ(user_cycles(test_events(), none), 1570 + 130 + 140);
  EXPECT_FALSE(kernel_cycles(test_kernel_events(), none).has_value());
}

TEST(MachineCosts, PriceCountsWritesTheTotalItsPartsAndPerUnitFigures) {
  Json counts = {{"units", 10.0}, {"events", test_events()}, {"kernel_events", test_kernel_events()},
                 {"allocator_calls", {{"events", {{"Ir", 100}}}, {"instructions", 100}}},
                 {"per_worker", Json::array({{{"units", 5.0}, {"events", {{"Ir", 40}}}, {"allocator_calls", {{"events", {{"Ir", 20}}}}}}})}};
  price_counts(counts, test_costs());
  EXPECT_DOUBLE_EQ(counts["estimated_user_cycles"].get<double>(), 1160);
  EXPECT_DOUBLE_EQ(counts["estimated_kernel_cycles"].get<double>(), 14100);
  EXPECT_DOUBLE_EQ(counts["estimated_cycles"].get<double>(), 15260);
  EXPECT_DOUBLE_EQ(counts["estimated_cycles_per_unit"].get<double>(), 1526);
  EXPECT_DOUBLE_EQ(counts["estimated_kernel_cycles_per_unit"].get<double>(), 1410);
  EXPECT_DOUBLE_EQ(counts["allocator_calls"]["estimated_cycles"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(counts["per_worker"][0]["estimated_cycles_per_unit"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(counts["per_worker"][0]["allocator_calls"]["estimated_cycles_per_unit"].get<double>(), 2);
  EXPECT_FALSE(counts.contains("kernel_cycles_na"));
  EXPECT_NE(counts["cost_model"].get<std::string>().find("calibrated on this machine"), std::string::npos);
}

TEST(MachineCosts, KernelEventsThatAreNaLeaveTheKernelPartNullWithTheReason) {
  Json counts = {{"units", 10.0}, {"events", test_events()}, {"kernel_events", {{"n/a", "strace is not installed"}}}};
  price_counts(counts, test_costs());
  EXPECT_TRUE(counts["estimated_kernel_cycles"].is_null());
  EXPECT_DOUBLE_EQ(counts["estimated_cycles"].get<double>(), 1160);
  EXPECT_EQ(counts["kernel_cycles_na"], "no kernel events: strace is not installed");
}

class MachineCostsFile : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("allocstress-costs-test-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const Json& doc) {
    const auto path = dir / "machine-costs.json";
    std::ofstream(path) << doc.dump();
    return path;
  }
  static Json valid(const std::string& host) {
    Json costs = Json::object();
    for (const char* name : {"cycles_per_instruction", "l1_latency", "last_level_latency", "ram_latency", "minor_fault", "mmap", "munmap", "madvise",
                             "brk", "mprotect", "mremap", "syscall"})
      costs[name] = {{"median", 10.0}, {"low", 9.0}, {"high", 11.0}};
    costs["lines_per_page"] = {{"value", 64}};
    return {{"schema", kMachineCostsSchemaName}, {"schema_version", kMachineCostsSchemaVersion}, {"host_name", host}, {"created", "today"},
            {"unit", "rdtsc ticks"}, {"costs", costs}};
  }
};

TEST_F(MachineCostsFile, ThisHostsFileIsUsedAndAnotherHostsIsNot) {
  const auto path = write(valid("here"));
  EXPECT_TRUE(machine_costs_for_host(path, "here").calibrated);
  const MachineCosts other = machine_costs_for_host(path, "elsewhere");
  EXPECT_FALSE(other.calibrated);
  EXPECT_NE(other.source.at("n/a").get<std::string>().find("host here's, not elsewhere's"), std::string::npos);
}

TEST_F(MachineCostsFile, AMissingCostOrAForeignFileIsRefusedByName) {
  Json doc = valid("here");
  doc["costs"].erase("madvise");
  EXPECT_THROW(
      {
        try {
          read_machine_costs(write(doc));
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("no measured madvise"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
  EXPECT_THROW(read_machine_costs(write({{"schema", "something-else"}})), std::runtime_error);
  EXPECT_FALSE(machine_costs_for_host(dir / "absent.json", "here").calibrated);
  // found by fuzzing (tests/fuzz/calibration_fuzz.cpp): a number beyond double is not JSON either
  const auto huge = dir / "huge.json";
  std::ofstream(huge) << R"({"schema": "allocstress-machine-costs", "created": 1e999})";
  EXPECT_THROW(read_machine_costs(huge), std::runtime_error);
  EXPECT_FALSE(machine_costs_for_host(huge, "here").calibrated);
  // found with the fuzz harness: members the model does not need, of another type, are no reason to throw
  Json odd = valid("here");
  odd["created"] = 5;
  odd["costs"]["cycles_per_instruction"] = 5;
  const MachineCosts costs = machine_costs_for_host(write(odd), "here");
  EXPECT_TRUE(costs.calibrated);
  EXPECT_EQ(costs.source.at("medians").at("cycles_per_instruction"), "n/a: missing");
}

}  // namespace
}  // namespace allocstress
