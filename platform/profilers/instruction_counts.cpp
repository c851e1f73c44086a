// The counts tier's figures (see instruction_counts.hpp).
#include "platform/profilers/instruction_counts.hpp"

#include <algorithm>

namespace allocstress {

namespace {

std::uint64_t event(const CallgrindProfile& p, const std::vector<std::uint64_t>& cost, const char* name) {
  for (std::size_t i = 0; i < p.events.size() && i < cost.size(); ++i)
    if (p.events[i] == name) return cost[i];
  return 0;
}

template <class Event>
std::uint64_t weighted_accesses(Event e) {
  const std::uint64_t accesses = e("Ir") + e("Dr") + e("Dw");
  const std::uint64_t l1_misses = e("I1mr") + e("D1mr") + e("D1mw");
  const std::uint64_t ram = e("ILmr") + e("DLmr") + e("DLmw");
  return (accesses - l1_misses) + kLastLevelHitWeight * (l1_misses - ram) + kRamHitWeight * ram;
}

std::uint64_t estimated_cycles(const CallgrindProfile& p, const std::vector<std::uint64_t>& cost) {
  return weighted_accesses([&](const char* name) { return event(p, cost, name); });
}

nlohmann::json per(double value, double units) { return units > 0 ? nlohmann::json(value / units) : nlohmann::json(nullptr); }

}  // namespace

std::uint64_t estimated_cycles(const CallgrindProfile& p) { return estimated_cycles(p, p.totals); }

std::uint64_t estimated_cycles(const nlohmann::json& events) {
  return weighted_accesses([&](const char* name) { return events.value(name, std::uint64_t{0}); });
}

const std::vector<std::string>& glibc_malloc_functions() {
  static const std::vector<std::string> names = {"malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign",
                                                 "aligned_alloc", "valloc", "pvalloc", "malloc_usable_size", "cfree"};
  return names;
}

namespace {

// The program rule: a call into the allocator (see OutsideCalls).
bool is_allocator_call(const CallgrindProfile::Call& call, const OutsideCalls& rule) {
  if (call.callee_object != rule.allocator_object) return false;
  if (!rule.allocator_functions.empty())
    return std::find(rule.allocator_functions.begin(), rule.allocator_functions.end(), call.callee_function) != rule.allocator_functions.end();
  return call.caller_object != rule.allocator_object;
}

}  // namespace

OutsideCost outside_calls_cost(const CallgrindProfile& p, const OutsideCalls& rule) {
  OutsideCost out;
  out.total.assign(p.events.size(), 0);
  for (const auto& [call, cost] : p.calls) {
    if (!rule.allocator_object.empty()) {
      if (!is_allocator_call(call, rule)) continue;
    } else if (call.caller_object != rule.workload_object || call.callee_object == rule.workload_object) {
      continue;
    }
    // (clang before 16, which builds the fuzz targets, cannot capture a structured binding)
    const std::string& callee = call.callee_function;
    if (std::any_of(rule.excluded_prefixes.begin(), rule.excluded_prefixes.end(),
                    [&](const std::string& prefix) { return callee.starts_with(prefix); }))
      continue;
    for (std::size_t i = 0; i < out.total.size() && i < cost.size(); ++i) out.total[i] += cost[i];
    out.instructions_by_function[call.callee_function] += event(p, cost, "Ir");
  }
  return out;
}

nlohmann::json instruction_count_figures(const CallgrindProfile& p, double units, const std::string& unit,
                                         const std::optional<OutsideCalls>& rule, const std::string& no_rule) {
  const std::string provenance = "simulated (" + (p.creator.empty() ? std::string("callgrind, version unknown") : p.creator) + ")";
  nlohmann::json events = nlohmann::json::object();
  for (std::size_t i = 0; i < p.events.size(); ++i) events[p.events[i]] = p.totals[i];
  const std::uint64_t ir = p.total("Ir"), d1 = p.total("D1mr") + p.total("D1mw"), ll = p.total("DLmr") + p.total("DLmw");
  const std::uint64_t cycles = estimated_cycles(p);
  nlohmann::json own;
  if (rule) {
    const OutsideCost cost = outside_calls_cost(p, *rule);
    nlohmann::json own_events = nlohmann::json::object();
    for (std::size_t i = 0; i < p.events.size() && i < cost.total.size(); ++i) own_events[p.events[i]] = cost.total[i];
    own = {{"instructions", event(p, cost.total, "Ir")},
           {"events", own_events},
           {"instructions_per_unit", per(double(event(p, cost.total, "Ir")), units)},
           {"estimated_cycles", estimated_cycles(p, cost.total)},
           {"estimated_cycles_per_unit", per(double(estimated_cycles(p, cost.total)), units)},
           {"instructions_by_function", cost.instructions_by_function},
           {"excluded_functions", rule->allocator_object.empty()
                                      ? "names starting with " + nlohmann::json(rule->excluded_prefixes).dump() + " (the workload's own block writes)"
                                      : std::string("none")},
           {"rule", rule->allocator_object.empty() ? "the inclusive cost of the workload's calls out of " + rule->workload_object
                    : rule->allocator_functions.empty()
                        ? "the inclusive cost of every call into " + rule->allocator_object + " from code outside it"
                        : "the inclusive cost of every call to glibc's malloc family (" + nlohmann::json(rule->allocator_functions).dump() +
                              ") in " + rule->allocator_object},
           {"provenance", provenance}};
  } else {
    own = {{"instructions", nullptr}, {"instructions_per_unit", nullptr}, {"estimated_cycles", nullptr},
           {"estimated_cycles_per_unit", nullptr}, {"provenance", "n/a(" + no_rule + ")"}};
  }
  return {{"provenance", provenance},
          {"unit", unit},
          {"units", units},
          {"events", events},
          {"instructions", ir},
          {"instructions_per_unit", per(double(ir), units)},
          {"d1_misses", d1},
          {"d1_misses_per_unit", per(double(d1), units)},
          {"ll_misses", ll},
          {"ll_misses_per_unit", per(double(ll), units)},
          {"estimated_cycles", cycles},
          {"estimated_cycles_per_unit", per(double(cycles), units)},
          {"estimated_cycles_formula", "L1 hits + " + std::to_string(kLastLevelHitWeight) + " x LL hits + " + std::to_string(kRamHitWeight) +
                                           " x RAM hits (Turner-Trauring, as iai uses it)"},
          {"allocator_calls", own}};
}

}  // namespace allocstress
