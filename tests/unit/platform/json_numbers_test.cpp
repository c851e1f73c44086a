// json_whole_number(): counts read from JSON are whole numbers in their range, refused as what
// they are (issue 29: nlohmann's get<unsigned>() made -3 4294967293 and 2.5 2).
#include "platform/json_numbers.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace allocstress {
namespace {

std::string error_of(const nlohmann::json& v, std::uint64_t min = 1, std::uint64_t max = 4294967295u) {
  try {
    json_whole_number(v, "threads", min, max);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonNumbers, WholeNumbersInTheirRangePass) {
  EXPECT_EQ(json_whole_number(nlohmann::json(3), "n", 1), 3u);
  EXPECT_EQ(json_whole_number(nlohmann::json(0), "n"), 0u);
  EXPECT_EQ(json_whole_number(nlohmann::json::parse("18446744073709551615"), "n"), 18446744073709551615u);
  EXPECT_EQ(json_small_whole_number(nlohmann::json(4294967295u), "n"), 4294967295u);
}

TEST(JsonNumbers, OthersAreRefusedAsWhatTheyAre) {
  EXPECT_EQ(error_of(-3), "\"threads\" must be a whole number ≥ 1, got -3");
  EXPECT_EQ(error_of(2.5), "\"threads\" must be a whole number ≥ 1, got 2.5");
  EXPECT_EQ(error_of(nlohmann::json::parse("1e3")), "\"threads\" must be a whole number ≥ 1, got 1000.0");
  EXPECT_EQ(error_of(2.0), "\"threads\" must be a whole number ≥ 1, got 2.0");
  EXPECT_EQ(error_of("x"), "\"threads\" must be a whole number ≥ 1, got \"x\"");
  EXPECT_EQ(error_of(nullptr), "\"threads\" must be a whole number ≥ 1, got null");
  EXPECT_EQ(error_of(true), "\"threads\" must be a whole number ≥ 1, got true");
  EXPECT_EQ(error_of(0), "\"threads\" must be a whole number ≥ 1, got 0");
  EXPECT_EQ(error_of(4294967296u), "\"threads\" must be a whole number from 1 to 4294967295, got 4294967296");
  EXPECT_THROW(json_small_whole_number(nlohmann::json(4294967296u), "n"), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
