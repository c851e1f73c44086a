// Safety properties over many processes (allocators/safety/safety_properties.hpp): the entropy
// estimate against values whose entropy is known, the majority rules, and strict reading.
#include <gtest/gtest.h>

#include "allocators/safety/safety_properties.hpp"

namespace allocstress {
namespace {

TEST(SafetyProperties, BitwiseEntropyCountsOnlyBitsThatVary) {
  EXPECT_DOUBLE_EQ(bitwise_entropy_bits({0x1000, 0x1000, 0x1000}), 0.0);
  // 4 values over 2 independent fair bits (bits 4 and 5): exactly 2 bits.
  EXPECT_DOUBLE_EQ(bitwise_entropy_bits({0x7000, 0x7010, 0x7020, 0x7030}), 2.0);
  // 64 values 0..63 at a 4 KiB stride: six fair bits.
  std::vector<std::uint64_t> pages;
  for (std::uint64_t i = 0; i < 64; ++i) pages.push_back(0x55550000000 + (i << 12));
  EXPECT_NEAR(bitwise_entropy_bits(pages), 6.0, 1e-12);
  // One bit set in 1 of 4 samples: H(0.25) = 0.811 bits.
  EXPECT_NEAR(bitwise_entropy_bits({0, 0, 0, 1}), 0.811278, 1e-6);
}

PropertySample sample(std::uint64_t address, std::int64_t gap, std::string guard, std::string header, std::string link) {
  return parse_property_sample("provider /x.so\naddress 0x" + [&] {
    char b[32];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(address));
    return std::string(b);
  }() + "\ngap " + std::to_string(gap) + "\nguard 1048576 " + guard + "\nguard 262144 none\nheader 24 " + header + "\nheader 200 none\nheader 2000 none\nfreed-link " +
                               link + "\ndone\n");
}

TEST(SafetyProperties, TheMajorityDecidesGuardHeaderAndLink) {
  const SafetyProperties p = summarise_properties({sample(0x1000, 80, "guard", "size", "yes"), sample(0x2000, 80, "guard", "size", "no"),
                                                   sample(0x3000, 80, "none", "none", "yes")});
  EXPECT_EQ(p.processes, 3u);
  EXPECT_EQ(p.guard.at(1048576), "guard");
  EXPECT_EQ(p.guard.at(262144), "none");
  EXPECT_TRUE(p.header);
  EXPECT_EQ(p.freed_link, "yes");
  EXPECT_EQ(p.inline_metadata(), "header, free-list link in freed blocks");
  EXPECT_DOUBLE_EQ(p.placement_entropy_bits, 0.0);  // the same gap every time
  EXPECT_GT(p.address_entropy_bits, 1.0);
  const SafetyProperties none = summarise_properties({sample(0x1000, 64, "none", "none", "no"), sample(0x1000, -64, "none", "state", "no"),
                                                      sample(0x1000, 128, "none", "none", "no")});
  EXPECT_FALSE(none.header);
  EXPECT_EQ(none.inline_metadata(), "none");
  EXPECT_DOUBLE_EQ(none.address_entropy_bits, 0.0);
  EXPECT_GT(none.placement_entropy_bits, 0.0);
  const nlohmann::json j = to_json(none);
  EXPECT_EQ(j.at("guard_page").at("1048576"), "none");
  EXPECT_EQ(j.at("inline_metadata"), "none");
}

TEST(SafetyProperties, AGapsSignIsOneBitOfPlacementEntropy) {
  // Gaps of +64 and -64 in equal numbers: the sign is the only thing that varies, one fair bit
  // (raw two's complement would count the 58 high bits that flip with it).
  const SafetyProperties p = summarise_properties({sample(0x1000, 64, "none", "none", "no"), sample(0x1000, -64, "none", "none", "no")});
  EXPECT_DOUBLE_EQ(p.placement_entropy_bits, 1.0);
}

TEST(SafetyProperties, AnIncompleteOrMalformedSampleIsRefused) {
  EXPECT_THROW(parse_property_sample("address 0x1000\ngap 16\n"), std::runtime_error);
  EXPECT_THROW(parse_property_sample("address zz\ngap 16\nguard 1048576 none\nheader 24 none\nfreed-link no\ndone\n"), std::runtime_error);
  EXPECT_THROW(parse_property_sample("address 0x10\ngap x16\nguard 1048576 none\nheader 24 none\nfreed-link no\ndone\n"), std::runtime_error);
}

}  // namespace
}  // namespace allocstress
