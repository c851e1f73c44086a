// Reading property samples and summarising them (see safety_properties.hpp).
#include "allocators/safety/safety_properties.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace allocstress {

namespace {

// The value given most often (ties: the first in map order, so the same samples give the same answer).
std::string most_common(const std::vector<std::string>& values) {
  std::map<std::string, unsigned> counts;
  for (const auto& v : values) ++counts[v];
  std::string best;
  unsigned most = 0;
  for (const auto& [v, n] : counts)
    if (n > most) {
      best = v;
      most = n;
    }
  return best;
}

std::uint64_t parse_unsigned(const std::string& text, int base, const std::string& line) {
  std::size_t used = 0;
  try {
    const unsigned long long v = std::stoull(text, &used, base);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::runtime_error("the safety probe's properties line '" + line + "' has no number where one belongs");
}

}  // namespace

PropertySample parse_property_sample(const std::string& out) {
  PropertySample s;
  bool address = false, gap = false, done = false;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key, a, b;
    words >> key >> a >> b;
    if (key == "address") {
      s.address = parse_unsigned(a, 16, line);
      address = true;
    } else if (key == "gap") {
      try {
        std::size_t used = 0;
        s.gap = std::stoll(a, &used, 10);
        gap = used == a.size();
      } catch (const std::exception&) {
      }
      if (!gap) throw std::runtime_error("the safety probe's properties line '" + line + "' has no number where one belongs");
    } else if (key == "guard") {
      s.guard[parse_unsigned(a, 10, line)] = b;
    } else if (key == "header") {
      s.header[parse_unsigned(a, 10, line)] = b;
    } else if (key == "freed-link") {
      s.freed_link = a;
    } else if (key == "done") {
      done = true;
    }
  }
  if (!address || !gap || s.guard.empty() || s.header.empty() || s.freed_link.empty() || !done)
    throw std::runtime_error("the safety probe's properties output is incomplete (needs address, gap, guard, header, freed-link and done lines)");
  return s;
}

double bitwise_entropy_bits(const std::vector<std::uint64_t>& values) {
  if (values.empty()) return 0;
  double bits = 0;
  for (int bit = 0; bit < 64; ++bit) {
    std::size_t ones = 0;
    for (std::uint64_t v : values) ones += (v >> bit) & 1u;
    const double p = double(ones) / double(values.size());
    if (p > 0 && p < 1) bits -= p * std::log2(p) + (1 - p) * std::log2(1 - p);
  }
  return bits;
}

std::string SafetyProperties::inline_metadata() const {
  const bool link = freed_link == "yes";
  if (header && link) return "header, free-list link in freed blocks";
  if (header) return "header";
  if (link) return "free-list link in freed blocks";
  return "none";
}

SafetyProperties summarise_properties(const std::vector<PropertySample>& samples) {
  SafetyProperties p;
  p.processes = unsigned(samples.size());
  std::vector<std::uint64_t> addresses, gaps;
  std::map<std::uint64_t, std::vector<std::string>> guards, headers;
  std::vector<std::string> links;
  for (const auto& s : samples) {
    addresses.push_back(s.address);
    // Sign and magnitude: the sign is one bit (in two's complement a sign change would flip every
    // high bit and count each as entropy).
    const std::uint64_t magnitude = s.gap < 0 ? 0 - std::uint64_t(s.gap) : std::uint64_t(s.gap);
    gaps.push_back((s.gap < 0 ? std::uint64_t(1) << 63 : 0) | (magnitude & ~(std::uint64_t(1) << 63)));
    for (const auto& [size, v] : s.guard) guards[size].push_back(v);
    for (const auto& [size, v] : s.header) headers[size].push_back(v);
    links.push_back(s.freed_link);
  }
  p.address_entropy_bits = bitwise_entropy_bits(addresses);
  p.placement_entropy_bits = bitwise_entropy_bits(gaps);
  for (const auto& [size, values] : guards) p.guard[size] = most_common(values);
  for (const auto& [size, values] : headers) {
    const std::string v = most_common(values);
    p.header = p.header || v == "size" || v == "state";
  }
  p.freed_link = most_common(links);
  return p;
}

nlohmann::json to_json(const SafetyProperties& p) {
  nlohmann::json guard = nlohmann::json::object();
  for (const auto& [size, v] : p.guard) guard[std::to_string(size)] = v;
  return {{"processes", p.processes},
          {"address_entropy_bits", p.address_entropy_bits},
          {"placement_entropy_bits", p.placement_entropy_bits},
          {"guard_page", guard},
          {"inline_metadata", p.inline_metadata()}};
}

}  // namespace allocstress
