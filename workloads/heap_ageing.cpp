// Parsing `--age SPEC` and the record's ageing block (see heap_ageing.hpp).
#include "workloads/heap_ageing.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace allocstress {

namespace {

constexpr const char* kAccepted =
    "accepted: HEAP[,keep=F][,sizes=MIN..MAX][,pattern=spread|random][,seed=N], HEAP in bytes with an optional K, M or G suffix "
    "(at least 64K), F in [0, 1) (0: all freed), 1 <= MIN <= MAX <= 1G; e.g. 64M,keep=0.25";

std::invalid_argument bad(std::string_view whole, const std::string& why) {
  return std::invalid_argument("--age '" + std::string(whole) + "': " + why + " (" + kAccepted + ")");
}

// A whole number with an optional K, M or G suffix (powers of 1024); nullopt when it is not one.
std::optional<std::uint64_t> byte_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t unit = 1;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': unit = 1ull << 10; break;
    case 'M': unit = 1ull << 20; break;
    case 'G': unit = 1ull << 30; break;
    default: break;
  }
  if (unit != 1) text.remove_suffix(1);
  if (text.empty() || text.size() > 15) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::strtoull(std::string(text).c_str(), nullptr, 10) * unit;
}

}  // namespace

AgeSpec parse_age_spec(std::string_view text) {
  AgeSpec spec;
  spec.text = std::string(text);
  std::size_t from = 0;
  bool first = true;
  while (true) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string_view part = text.substr(from, comma - from);
    if (first) {
      const auto heap = byte_count(part);
      if (!heap) throw bad(text, "the heap '" + std::string(part) + "' is not a byte count");
      if (*heap < 65536) throw bad(text, "a heap of " + std::to_string(*heap) + " bytes is below 64K");
      spec.heap_bytes = *heap;
      first = false;
    } else {
      const std::size_t eq = part.find('=');
      const std::string_view name = part.substr(0, eq), value = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
      if (eq == std::string_view::npos || value.empty()) throw bad(text, "'" + std::string(part) + "' is not NAME=VALUE");
      const std::string v(value);
      char* end = nullptr;
      if (name == "keep") {
        spec.keep = std::strtod(v.c_str(), &end);
        if (end != v.c_str() + v.size() || !(spec.keep >= 0 && spec.keep < 1)) throw bad(text, "keep=" + v + " is not in [0, 1)");
      } else if (name == "sizes") {
        const std::size_t dots = value.find("..");
        const auto lo = dots == std::string_view::npos ? std::nullopt : byte_count(value.substr(0, dots));
        const auto hi = dots == std::string_view::npos ? std::nullopt : byte_count(value.substr(dots + 2));
        if (!lo || !hi || *lo < 1 || *lo > *hi || *hi > (1ull << 30)) throw bad(text, "sizes=" + v + " is not MIN..MAX with 1 <= MIN <= MAX <= 1G");
        spec.min_size = *lo;
        spec.max_size = *hi;
      } else if (name == "pattern") {
        if (value == "spread") spec.pattern = AgePattern::spread;
        else if (value == "random") spec.pattern = AgePattern::random;
        else throw bad(text, "pattern=" + v + " is neither spread nor random");
      } else if (name == "seed") {
        const auto seed = byte_count(value);
        if (!seed || !std::isdigit(static_cast<unsigned char>(value.back()))) throw bad(text, "seed=" + v + " is not a whole number");
        spec.seed = *seed;
      } else {
        throw bad(text, "unknown part '" + std::string(name) + "'");
      }
    }
    if (comma == text.size()) break;
    from = comma + 1;
  }
  if (spec.max_size > spec.heap_bytes) throw bad(text, "the largest size is above the heap");
  return spec;
}

std::string warmed_spec_text(std::string_view spec) { return std::string(spec) + ",keep=0"; }  // a later part overrides an earlier one

nlohmann::json to_json(const AgeSpec& spec) {
  return {{"text", spec.text},
          {"heap_bytes", spec.heap_bytes},
          {"keep", spec.keep},
          {"min_size", spec.min_size},
          {"max_size", spec.max_size},
          {"pattern", spec.pattern == AgePattern::spread ? "spread" : "random"},
          {"seed", spec.seed}};
}

nlohmann::json ageing_record(const AgeSpec& spec, std::span<const AgeingOutcome* const> workers) {
  std::uint64_t blocks = 0, bytes = 0, survivors = 0, survivor_bytes = 0, corrupted = 0;
  nlohmann::json errors = nlohmann::json::array();
  for (const AgeingOutcome* w : workers) {
    if (w == nullptr) continue;
    blocks += w->blocks;
    bytes += w->bytes;
    survivors += w->survivors;
    survivor_bytes += w->survivor_bytes;
    corrupted += w->corrupted;
    if (!w->error.empty()) errors.push_back(w->error);
  }
  return {{"spec", to_json(spec)},
          {"blocks", blocks},
          {"bytes", bytes},
          {"survivors", survivors},
          {"survivor_bytes", survivor_bytes},
          {"corrupted_survivors", corrupted},
          {"errors", errors},
          {"means", "before the measured phase each worker allocated blocks (sizes p~1/size over the spec's range) through its "
                    "allocator until its share of the heap, wrote them, and freed all but the survivors, which stayed live "
                    "through the phase (in rss_before_bytes and peak_rss_bytes; not in the workload's live bytes)"}};
}

}  // namespace allocstress
