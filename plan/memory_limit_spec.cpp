// Parsing `--memory-limit` (see memory_limit_spec.hpp).
#include "plan/memory_limit_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "platform/errors.hpp"

namespace allocstress {

namespace {

constexpr const char* kAccepted = "accepted: BYTES or FxPEAK (e.g. 268435456, 0.8xPEAK), or max=LIMIT,high=LIMIT";

LimitValue parse_value(std::string_view text, std::string_view whole) {
  auto bad = [&](const std::string& why) {
    return UsageError("--memory-limit '" + std::string(whole) + "': " + why + " (" + kAccepted + ")");
  };
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  LimitValue v;
  if (lower.size() > 5 && lower.ends_with("xpeak")) {
    const std::string factor = lower.substr(0, lower.size() - 5);
    char* end = nullptr;
    v.peak_factor = std::strtod(factor.c_str(), &end);
    if (end != factor.c_str() + factor.size() || !std::isfinite(v.peak_factor) || v.peak_factor <= 0 || v.peak_factor > 1000)
      throw bad("'" + factor + "' is not a factor in (0, 1000]");
    return v;
  }
  if (lower.empty() || !std::all_of(lower.begin(), lower.end(), [](unsigned char c) { return std::isdigit(c); }) || lower.size() > 19)
    throw bad("'" + std::string(text) + "' is neither a byte count nor FxPEAK");
  v.bytes = std::strtoull(lower.c_str(), nullptr, 10);
  if (v.bytes < 1048576) throw bad(std::string(text) + " bytes is below 1 MiB, less than a process needs to start");
  return v;
}

}  // namespace

std::uint64_t LimitValue::resolve(std::uint64_t reference_peak_bytes) const {
  const double want = bytes > 0 ? double(bytes) : peak_factor * double(reference_peak_bytes);
  return std::max<std::uint64_t>(std::uint64_t(want), 4096);
}

MemoryLimitSpec parse_memory_limit_spec(std::string_view text) {
  MemoryLimitSpec spec;
  spec.text = std::string(text);
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string_view part = text.substr(from, comma - from);
    from = comma + 1;
    const std::size_t eq = part.find('=');
    const std::string_view name = eq == std::string_view::npos ? "max" : part.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? part : part.substr(eq + 1);
    LimitValue* slot = name == "max" ? &spec.max : name == "high" ? &spec.high : nullptr;
    if (slot == nullptr) throw UsageError("--memory-limit '" + std::string(text) + "': unknown limit '" + std::string(name) + "' (" + kAccepted + ")");
    if (slot->set()) throw UsageError("--memory-limit '" + std::string(text) + "' sets " + std::string(name) + " twice (" + kAccepted + ")");
    *slot = parse_value(value, text);
    if (comma == text.size()) break;
  }
  return spec;
}

}  // namespace allocstress
