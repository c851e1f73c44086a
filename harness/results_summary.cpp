// Baseline subtraction, aggregation over repetitions, and the op-stream consistency check.
#include "results_summary.hpp"

#include <cmath>
#include <map>
#include <utility>

#include "statistics.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

// Metrics summarised over repetitions (each a number in every ok record, or null).
const char* const kAggregatedMetrics[] = {
    "real_time", "cpu_time", "cycles_per_pair", "ns_per_pair", "net_cycles_per_pair", "net_ns_per_pair",
    "wall_time_ns", "peak_rss_bytes", "rss_before_bytes", "rss_end_bytes", "rss_after_free_bytes",
    "overhead_ratio", "peak_live_requested_bytes", "minor_faults", "major_faults",
    "voluntary_context_switches", "involuntary_context_switches"};

bool is_ok(const Json& r) { return r.value("status", "") == "ok"; }

std::pair<unsigned, unsigned> threads_rep(const Json& r) {
  return {r.at("threads").get<unsigned>(), r.value("repetition_index", 0u)};
}

}  // namespace

void attach_net_costs(std::vector<Json>& records) {
  struct Baseline {
    double cycles_per_pair, ns_per_pair;
  };
  std::map<std::pair<unsigned, unsigned>, Baseline> baseline;  // by (threads, repetition)
  for (const auto& r : records)
    if (is_ok(r) && r.at("allocator") == kBaselineAllocator)
      baseline[threads_rep(r)] = {r.at("cycles_per_pair").get<double>(), r.at("ns_per_pair").get<double>()};
  for (auto& r : records) {
    if (!is_ok(r)) continue;
    const auto it = baseline.find(threads_rep(r));
    if (it == baseline.end()) {
      r["baseline_cycles_per_pair"] = nullptr;
      r["net_cycles_per_pair"] = nullptr;
      r["net_ns_per_pair"] = nullptr;
      r["warnings"].push_back("no ok void-baseline record for the same threads and repetition: net cost is n/a");
      continue;
    }
    r["baseline_cycles_per_pair"] = it->second.cycles_per_pair;
    r["net_cycles_per_pair"] = r.at("cycles_per_pair").get<double>() - it->second.cycles_per_pair;
    r["net_ns_per_pair"] = r.at("ns_per_pair").get<double>() - it->second.ns_per_pair;
  }
}

std::vector<Json> aggregate_entries(const std::vector<Json>& records) {
  std::vector<std::pair<std::string, unsigned>> order;
  std::map<std::pair<std::string, unsigned>, std::vector<const Json*>> groups;
  for (const auto& r : records) {
    if (!is_ok(r)) continue;
    const std::pair<std::string, unsigned> key{r.at("allocator").get<std::string>(), r.at("threads").get<unsigned>()};
    if (groups[key].empty()) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::map<unsigned, double> reference_net;  // median net cycles/pair of `system` per thread count
  std::vector<Json> out;
  std::map<std::pair<std::string, unsigned>, std::size_t> median_index;
  for (const auto& key : order) {
    const auto& group = groups[key];
    const Json& first = *group.front();
    Json base = {{"run_name", first.at("name")}, {"run_type", "aggregate"},
                 {"workload", first.at("workload")}, {"allocator", key.first}, {"threads", key.second},
                 {"repetitions", first.value("repetitions", group.size())}, {"repetitions_ok", group.size()},
                 {"status", "ok"}, {"time_unit", "ns"}};
    for (const char* stat : {"median", "min", "max", "cv"}) {
      Json e = base;
      e["name"] = first.at("name").get<std::string>() + "_" + stat;  // Google Benchmark's aggregate naming
      e["aggregate_name"] = stat;
      e["aggregate_unit"] = std::string(stat) == "cv" ? "percentage" : "time";
      for (const char* metric : kAggregatedMetrics) {
        std::vector<double> values;
        for (const Json* r : group)
          if (r->contains(metric) && r->at(metric).is_number()) values.push_back(r->at(metric).get<double>());
        if (values.size() != group.size()) {
          e[metric] = nullptr;
          continue;
        }
        const Summary s = summarise(values);
        const std::string st = stat;
        const double v = st == "median" ? s.median : st == "min" ? s.min : st == "max" ? s.max : s.cv;
        e[metric] = std::isnan(v) ? Json(nullptr) : Json(v);  // cv of values with mean 0 is undefined
      }
      if (std::string(stat) == "median") {
        median_index[key] = out.size();
        if (key.first == kReferenceAllocator && e["net_cycles_per_pair"].is_number())
          reference_net[key.second] = e["net_cycles_per_pair"].get<double>();
      }
      out.push_back(std::move(e));
    }
  }
  for (const auto& [key, index] : median_index) {
    Json& e = out[index];
    const auto ref = reference_net.find(key.second);
    const bool usable = ref != reference_net.end() && ref->second > 0 && e["net_cycles_per_pair"].is_number() &&
                        e["net_cycles_per_pair"].get<double>() > 0 && key.first != kBaselineAllocator;
    e["speed_vs_system"] = usable ? Json(ref->second / e["net_cycles_per_pair"].get<double>()) : Json(nullptr);
  }
  return out;
}

std::vector<std::string> op_stream_mismatches(const std::vector<Json>& records) {
  std::map<std::pair<unsigned, unsigned>, std::map<std::string, std::string>> hashes;  // -> hash -> first allocator
  for (const auto& r : records)
    if (is_ok(r)) hashes[threads_rep(r)].emplace(r.at("op_stream_hash").get<std::string>(), r.at("allocator").get<std::string>());
  std::vector<std::string> out;
  for (const auto& [k, by_hash] : hashes) {
    if (by_hash.size() < 2) continue;
    std::string who;
    for (const auto& [h, a] : by_hash) who += (who.empty() ? "" : ", ") + a + "=" + h;
    out.push_back("threads " + std::to_string(k.first) + " repetition " + std::to_string(k.second) +
                  ": allocators saw different operation streams (" + who + ")");
  }
  return out;
}

}  // namespace allocstress
