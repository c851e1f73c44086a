// The fleet profiles' parsing and a thread's plan at a chosen heap (see fleet_profile.hpp).
#include "workloads/fleet/fleet_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "workloads/fleet/fleet_profile_data.hpp"

namespace allocstress {

namespace {

// The fields of one line "a, b, c" (spaces around commas allowed); false when it has another count.
bool split_fields(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = line.find(',', from);
    std::string_view f = line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '\r')) f.remove_suffix(1);
    fields.emplace_back(f);
    if (comma == std::string_view::npos) return true;
    from = comma + 1;
  }
}

double number_field(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    throw std::invalid_argument(where + ": '" + text + "' is not a number >= 0");
  return v;
}

std::uint64_t heap_bytes_of(unsigned k) {
  const std::string_view text = fleet_heap_sizes_text();
  std::vector<std::string> fields;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    split_fields(text.substr(from, end - from), fields);
    if (fields.size() == 2 && fields[0] == std::to_string(k))
      return std::uint64_t(number_field(fields[1], "heap_size.csv, profile " + fields[0]) * 1048576.0);
    from = end + 1;
  }
  throw std::invalid_argument("heap_size.csv has no line for profile " + std::to_string(k));
}

}  // namespace

std::vector<FleetProfileRow> parse_fleet_profile_csv(std::string_view text, const std::string& what) {
  std::vector<FleetProfileRow> rows;
  std::vector<std::string> fields;
  std::size_t from = 0, line_number = 0;
  while (from < text.size()) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    const std::string_view line = text.substr(from, end - from);
    from = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = what + " line " + std::to_string(line_number);
    if (!split_fields(line, fields) || fields.size() != 3)
      throw std::invalid_argument(where + ": expected 3 fields 'size, rate, live', got " + std::to_string(fields.size()));
    const double size = number_field(fields[0], where);
    if (size < 1 || size != std::floor(size) || size > 0x1p62) throw std::invalid_argument(where + ": size '" + fields[0] + "' is not a whole number >= 1");
    rows.push_back({std::uint64_t(size), number_field(fields[1], where), number_field(fields[2], where)});
  }
  if (rows.empty()) throw std::invalid_argument(what + " holds no rows");
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.size < b.size; });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].size == rows[i - 1].size) throw std::invalid_argument(what + ": size " + std::to_string(rows[i].size) + " appears twice");
  return rows;
}

const FleetProfile& fleet_profile(unsigned k) {
  if (k >= kFleetProfileCount)
    throw std::invalid_argument("fleet profile " + std::to_string(k) + " does not exist (accepted: 0 to " + std::to_string(kFleetProfileCount - 1) + ")");
  static std::array<FleetProfile, kFleetProfileCount> profiles;
  static std::array<std::once_flag, kFleetProfileCount> parsed;
  std::call_once(parsed[k], [k] {
    FleetProfile& p = profiles[k];
    p.index = k;
    p.rows = parse_fleet_profile_csv(fleet_profile_text(k), "TCMALLOC_" + std::to_string(k) + ".csv");
    p.heap_bytes = heap_bytes_of(k);
  });
  return profiles[k];
}

FleetProfilePlan make_fleet_profile_plan(const FleetProfile& profile, std::uint64_t thread_heap_bytes) {
  FleetProfilePlan plan;
  plan.max_block = thread_heap_bytes / kFleetProfileMaxBlockDivisor;
  double rate_all = 0, rate_out = 0, bytes_all = 0, bytes_kept = 0;
  std::vector<const FleetProfileRow*> kept;
  for (const FleetProfileRow& r : profile.rows) {
    rate_all += r.rate;
    bytes_all += double(r.size) * r.live;
    if (r.size > plan.max_block) {
      rate_out += r.rate;
      continue;
    }
    bytes_kept += double(r.size) * r.live;
    kept.push_back(&r);
  }
  if (kept.empty() || bytes_kept <= 0 || rate_all <= 0)
    throw std::invalid_argument("a heap of " + std::to_string(thread_heap_bytes) + " bytes per thread holds no block of fleet profile " +
                                std::to_string(profile.index) + " (its blocks may be at most 1/8 of it): choose a larger --heap");
  plan.left_out_rate_share = rate_out / rate_all;
  plan.left_out_live_bytes_share = 1.0 - bytes_kept / bytes_all;
  // Cumulative rounding in size order: every run of consecutive sizes is within one block of its share.
  const double scale = double(thread_heap_bytes) / bytes_kept;
  double cumulative = 0;
  std::uint64_t rounded_before = 0;
  std::vector<double> rates;
  for (const FleetProfileRow* r : kept) {
    cumulative += r->live * scale;
    const auto rounded = std::uint64_t(std::llround(cumulative));
    plan.sizes.push_back(r->size);
    plan.first_slot.push_back(rounded_before);
    plan.live.push_back(rounded - rounded_before);
    plan.live_bytes += r->size * (rounded - rounded_before);
    rates.push_back(r->rate);
    rounded_before = rounded;
  }
  plan.slots = rounded_before;
  if (plan.slots >= (std::uint64_t{1} << 32))
    throw std::invalid_argument("fleet profile " + std::to_string(profile.index) + " at " + std::to_string(thread_heap_bytes) +
                                " bytes per thread needs " + std::to_string(plan.slots) + " live blocks (accepted: fewer than 2^32): choose a smaller --heap");
  if (std::all_of(rates.begin(), rates.end(), [](double r) { return r <= 0; }))
    throw std::invalid_argument("fleet profile " + std::to_string(profile.index) + " allocates no size of at most " +
                                std::to_string(plan.max_block) + " bytes: choose a larger --heap");
  plan.rate_columns = build_alias_columns(rates);
  plan.slot_row.resize(plan.slots);
  for (std::size_t i = 0; i < plan.sizes.size(); ++i)
    std::fill_n(plan.slot_row.begin() + std::ptrdiff_t(plan.first_slot[i]), plan.live[i], std::uint32_t(i));
  return plan;
}

void shuffle_build_order(std::span<std::uint32_t> order, WorkloadRng& rng) {
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = std::uint32_t(i);
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = std::size_t((std::uint64_t(std::uint32_t(rng())) * i) >> 32);
    std::swap(order[i - 1], order[j]);
  }
}

}  // namespace allocstress
