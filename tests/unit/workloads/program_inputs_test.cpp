// The real-program workloads' generated inputs (workloads/programs/program_inputs.hpp) and their
// table: deterministic from the seed, sized by the work percentage; the throughput parsers and
// the not-installed reason.
#include "workloads/programs/program_inputs.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "workloads/programs/program_invocation.hpp"
#include "workloads/programs/program_table.hpp"

namespace allocstress {
namespace {

TEST(ProgramInputs, EachGeneratorIsDeterministicFromItsSeed) {
  for (const ProgramDefinition& p : program_table()) {
    if (p.make_input == nullptr) continue;
    SCOPED_TRACE(std::string(p.workload));
    const std::string a = p.make_input(42, 10), b = p.make_input(42, 10), c = p.make_input(43, 10);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
}

TEST(ProgramInputs, WorkScalesTheInput) {
  for (const ProgramDefinition& p : program_table()) {
    if (p.make_input == nullptr) continue;
    SCOPED_TRACE(std::string(p.workload));
    const std::size_t small = p.make_input(7, 10).size(), big = p.make_input(7, 40).size();
    if (p.workload == "prog-python3" || p.workload == "prog-lua") {
      EXPECT_EQ(small, big - 1);  // the step count in the script: "6000" -> "24000"
    } else {
      EXPECT_GT(double(big), 3.0 * double(small));
      EXPECT_LT(double(big), 5.0 * double(small));
    }
  }
}

TEST(ProgramInputs, CompressibleDataHasExactlyItsSize) {
  EXPECT_EQ(compressible_data(1, 100).size(), 4u << 20);
  EXPECT_EQ(compressible_data(1, 1).size(), (4u << 20) / 100);
}

TEST(ProgramInputs, ScriptsCarryTheirWork) {
  EXPECT_NE(python_churn_script(5, 100).find("STEPS = 60000"), std::string::npos);
  EXPECT_NE(lua_churn_script(5, 50).find("STEPS, WINDOW = 40000"), std::string::npos);
  const std::string ps = generated_postscript(5, 100);
  EXPECT_EQ(ps.rfind("%!PS", 0), 0u);
  EXPECT_NE(ps.find("%%Pages: 12"), std::string::npos);
}

TEST(ProgramTable, NamesAreProgWorkloadsAndFound) {
  for (const ProgramDefinition& p : program_table()) {
    EXPECT_EQ(p.workload.rfind("prog-", 0), 0u);
    EXPECT_EQ(find_program(p.workload), &p);
    EXPECT_EQ(find_program(std::string(p.workload) + ":label"), &p);
  }
  EXPECT_EQ(find_program("alloc-test"), nullptr);
}

TEST(ProgramTable, ThroughputOfRedisBenchmarkCsvIsTheHarmonicMean) {
  const ProgramDefinition& redis = *find_program("prog-redis");
  const std::string csv = "\"test\",\"rps\",\"avg_latency_ms\"\n\"SET\",\"100000.00\",\"0.1\"\n\"GET\",\"50000.00\",\"0.2\"\n";
  EXPECT_NEAR(program_throughput(redis, csv), 2.0 / (1 / 100000.0 + 1 / 50000.0), 1e-6);
  EXPECT_LT(program_throughput(redis, "nothing here"), 0);
}

TEST(ProgramTable, ThroughputOfDbBench) {
  const ProgramDefinition& rocks = *find_program("prog-rocksdb");
  const std::string out = "fillrandom   :       5.000 micros/op 200000 ops/sec 1.000 seconds 200000 operations;   22.1 MB/s\n"
                          "readrandom   :       2.500 micros/op 400000 ops/sec 0.500 seconds 200000 operations;\n";
  EXPECT_NEAR(program_throughput(rocks, out), 2.0 / (1 / 200000.0 + 1 / 400000.0), 1e-6);
  EXPECT_LT(program_throughput(*find_program("prog-lua"), out), 0);  // prints none
}

TEST(ProgramTable, AMissingProgramIsNamedWithItsPackage) {
  ::setenv("ALLOCSTRESS_PROGRAM_PATH", "/nonexistent-allocstress-dir", 1);
  const std::string why = program_unavailable("prog-lua", nlohmann::json::object());
  ::unsetenv("ALLOCSTRESS_PROGRAM_PATH");
  EXPECT_EQ(why, "not installed: lua5.4 from package lua5.4 (looked in /nonexistent-allocstress-dir; scripts/setup-deps.sh installs it)");
}

}  // namespace
}  // namespace allocstress
