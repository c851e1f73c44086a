// Safety properties of an allocator, measured over many fresh processes (`allocstress-safety-probe
// properties` prints one sample per process):
//   - address entropy: how unpredictable the first block's address is from one process to the
//     next (ASLR and the allocator together), and placement entropy: how unpredictable the gap
//     between two consecutive blocks is (the allocator's own randomisation alone; the gap in
//     sign and magnitude, so that its sign is one bit);
//   - whether an inaccessible page follows a large block (a guard page);
//   - whether metadata sits inline: a header before the block (a size field, or bytes that change
//     when it is freed), or a free-list link written into a freed block.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstress {

struct PropertySample {
  std::uint64_t address = 0;
  std::int64_t gap = 0;
  std::map<std::uint64_t, std::string> guard;   // block size -> guard | none | unmapped
  std::map<std::uint64_t, std::string> header;  // block size -> size | state | none | unreadable
  std::string freed_link;                       // yes | no | unreadable
};

// One process's sample.  Throws std::runtime_error naming what is missing or malformed.
PropertySample parse_property_sample(const std::string& probe_output);

// Entropy estimate in bits of a set of values: the sum over the 64 bit positions of the binary
// entropy of each bit's frequency.  An upper estimate (it ignores dependence between bits), and a
// bit that never changed in n samples counts 0: with 30 processes a fully random bit gives ~0.97.
double bitwise_entropy_bits(const std::vector<std::uint64_t>& values);

struct SafetyProperties {
  unsigned processes = 0;
  double address_entropy_bits = 0, placement_entropy_bits = 0;
  std::map<std::uint64_t, std::string> guard;  // block size -> the value most processes gave
  bool header = false;                         // most processes saw a header at one of the sizes at least
  std::string freed_link;                      // the value most processes gave
  std::string inline_metadata() const;         // "header, free-list link in freed blocks", "none", ...
};

// pre: !samples.empty().
SafetyProperties summarise_properties(const std::vector<PropertySample>& samples);

nlohmann::json to_json(const SafetyProperties& properties);

}  // namespace allocstress
