// The real-program workloads' generated inputs (workloads/programs/program_inputs.hpp), by the
// names programs files give them: deterministic from the seed, sized by the work percentage.
#include "workloads/programs/program_inputs.hpp"

#include <gtest/gtest.h>

namespace allocstress {
namespace {

TEST(ProgramInputs, EachGeneratorIsDeterministicFromItsSeed) {
  for (const InputGenerator& g : input_generators()) {
    SCOPED_TRACE(std::string(g.name));
    const std::string a = g.make(42, 10), b = g.make(42, 10), c = g.make(43, 10);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
}

TEST(ProgramInputs, WorkScalesTheInput) {
  for (const InputGenerator& g : input_generators()) {
    SCOPED_TRACE(std::string(g.name));
    const std::size_t small = g.make(7, 10).size(), big = g.make(7, 40).size();
    if (g.name == "python-churn" || g.name == "lua-churn") {
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

TEST(ProgramInputs, GeneratorsAreFoundByName) {
  ASSERT_NE(find_input_generator("lua-churn"), nullptr);
  EXPECT_EQ(find_input_generator("lua-churn")->make, &lua_churn_script);
  EXPECT_EQ(find_input_generator("lua-churn")->file_name, "churn.lua");
  EXPECT_EQ(find_input_generator("no-such-generator"), nullptr);
  EXPECT_NE(input_generator_names().find("python-churn, c-source"), std::string::npos);
}

}  // namespace
}  // namespace allocstress
