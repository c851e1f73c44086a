// Baseline subtraction, aggregation over repetitions, and the op-stream consistency check.
#include "results/results_summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "platform/statistics.hpp"
#include "results/variance_components.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

// Metrics summarised over repetitions: the aggregate field and where it is in a record.  A
// metric missing from any record of a group (e.g. cycles_per_pair of a bintree cell) is null.
const std::pair<const char*, const char*> kAggregatedMetrics[] = {
    {"real_time", "/real_time"}, {"cpu_time", "/cpu_time"}, {"cycles_per_pair", "/cycles_per_pair"},
    {"ns_per_pair", "/ns_per_pair"}, {"net_cycles_per_pair", "/net_cycles_per_pair"}, {"net_ns_per_pair", "/net_ns_per_pair"},
    {"build_cycles_per_node", "/build_cycles_per_node"}, {"churn_cycles_per_node", "/churn_cycles_per_node"},
    {"search_cycles_per_visit", "/search_cycles_per_visit"}, {"search_ns_per_visit", "/search_ns_per_visit"},
    {"cache_line_utilisation", "/placement_metrics/cache_line_utilisation"},
    {"page_utilisation", "/placement_metrics/page_utilisation"},
    {"set_histogram_max_over_mean", "/placement_metrics/set_histogram_max_over_mean"},
    {"wall_time_ns", "/wall_time_ns"}, {"peak_rss_bytes", "/peak_rss_bytes"}, {"rss_before_bytes", "/rss_before_bytes"},
    {"rss_end_bytes", "/rss_end_bytes"}, {"rss_after_free_bytes", "/rss_after_free_bytes"}, {"overhead_ratio", "/overhead_ratio"},
    {"peak_live_requested_bytes", "/peak_live_requested_bytes"}, {"minor_faults", "/minor_faults"},
    {"major_faults", "/major_faults"}, {"voluntary_context_switches", "/voluntary_context_switches"},
    {"involuntary_context_switches", "/involuntary_context_switches"}, {"thp_coverage", "/thp_coverage"}};

constexpr const char* kMedianIntervalMethod = "order statistics (distribution-free interval of the median)";

bool is_ok(const Json& r) { return r.value("status", "") == "ok"; }
bool is_ok_timing(const Json& r) { return is_ok(r) && is_timing_record(r); }
// Whether a record's workload is net of the void baseline (unknown workloads: no).
bool has_void_baseline(const std::string& workload) {
  const WorkloadEntry* e = find_workload(workload);
  return e != nullptr && e->void_baseline;
}

bool has_baseline(const Json& r) { return has_void_baseline(r.value("workload", "")); }

using CellRep = std::tuple<std::string, unsigned, unsigned>;  // workload, threads, repetition

CellRep workload_threads_rep(const Json& r) {
  return {r.at("workload").get<std::string>(), r.at("threads").get<unsigned>(), r.value("repetition_index", 0u)};
}

// The statistic `stat` (median, min, max or cv) of `values`; null where undefined (the cv of
// values with mean 0).
Json statistic(const std::vector<double>& values, const std::string& stat) {
  const Summary s = summarise(values);
  const double v = stat == "median" ? s.median : stat == "min" ? s.min : stat == "max" ? s.max : s.cv;
  return std::isnan(v) ? Json(nullptr) : Json(v);
}

// The statistic `stat` (median, min, max or cv) of every number in the group's
// `workload_metrics` blocks, by name; null when a repetition lacks it or it is not a number.
Json summarised_workload_metrics(const std::vector<const Json*>& group, const std::string& stat) {
  Json out = Json::object();
  for (const auto& [name, first_value] : group.front()->at("workload_metrics").items()) {
    std::vector<double> values;
    for (const Json* r : group) {
      const Json& m = r->value("workload_metrics", Json::object());
      if (m.contains(name) && m.at(name).is_number()) values.push_back(m.at(name).get<double>());
    }
    if (values.size() != group.size()) {
      out[name] = nullptr;
      continue;
    }
    out[name] = statistic(values, stat);
  }
  return out;
}

// The median's interval of `metric` over the group (its values per process: for a net metric each
// is the allocator's process minus the void process of the same repetition, so the void
// baseline's own spread is inside), or null when a record lacks it.
}  // namespace

Json median_interval_entry(const std::vector<const Json*>& group, const Json::json_pointer& where) {
  std::vector<double> values;
  for (const Json* r : group)
    if (const Json& v = metric_value(*r, where); v.is_number()) values.push_back(v.get<double>());
  if (values.size() != group.size() || values.size() < 2) return nullptr;
  const MedianInterval ci = median_interval(values);
  const double relative = relative_half_width(ci.low, ci.high, summarise(values).median);
  return {{"low", ci.low}, {"high", ci.high}, {"level", ci.level}, {"n", values.size()}, {"method", kMedianIntervalMethod},
          {"relative_half_width", std::isnan(relative) ? Json(nullptr) : Json(relative)}};
}

namespace {

MedianInterval interval_of(const Json& entry) {
  return {entry.at("low").get<double>(), entry.at("high").get<double>(), entry.at("level").get<double>()};
}

}  // namespace

Json quotient_interval(const Json& numerator, const Json& denominator, const std::string& method) {
  if (!numerator.is_object() || !denominator.is_object()) return nullptr;
  const std::optional<QuotientInterval> q = quotient_of_intervals(interval_of(numerator), interval_of(denominator));
  if (!q) return nullptr;
  return {{"low", q->low}, {"high", std::isfinite(q->high) ? Json(q->high) : Json(nullptr)}, {"level_at_least", q->level_at_least},
          {"method", method}};
}

namespace {

// System's median / this cell's median: the quotient of system's interval over this cell's.
Json ratio_interval(const Json& mine, const Json& system) {
  return quotient_interval(system, mine, "system's interval of the median over this cell's (both order-statistic intervals); level by Bonferroni");
}

// "faster" / "slower" than system when the two cells' intervals of the speed metric do not
// overlap, "indistinguishable" when they do; null without both intervals.
Json versus_system(const Json& mine, const Json& system) {
  if (!mine.is_object() || !system.is_object()) return nullptr;
  const MedianInterval m = interval_of(mine), s = interval_of(system);
  const std::optional<IntervalOrder> order = interval_order(m.low, m.high, s.low, s.high);
  if (!order) return nullptr;
  return *order == IntervalOrder::below ? "faster" : *order == IntervalOrder::above ? "slower" : "indistinguishable";
}

}  // namespace

std::string speed_metric(const std::string& workload) {
  const WorkloadEntry* e = find_workload(workload);
  const Metric* m = e != nullptr ? headline_metric(*e) : nullptr;
  return m != nullptr && (m->place == MetricPlace::record || e->table == TableKind::program) ? std::string(m->name) : std::string();
}

std::string memory_metric(const std::string& workload) {
  const WorkloadEntry* e = find_workload(workload);
  const Metric* m = e != nullptr ? memory_headline_metric(*e) : nullptr;
  return m != nullptr ? std::string(m->name) : std::string("overhead_ratio");
}

Json::json_pointer metric_pointer(const std::string& workload, const std::string& name) {
  if (const WorkloadEntry* e = find_workload(workload))
    for (const Metric* m : e->metrics)
      if (m->name == name && m->place == MetricPlace::workload_metrics) return Json::json_pointer("/workload_metrics/" + name);
  return Json::json_pointer("/" + name);
}

const Json& metric_value(const Json& entry, const Json::json_pointer& where) {
  static const Json none;
  return entry.contains(where) ? entry.at(where) : none;
}

bool is_timing_record(const Json& r) { return r.value("mode", "timing") == "timing"; }

bool is_ok_counts_record(const Json& r) {
  return r.value("run_type", "iteration") == "iteration" && is_ok(r) && r.value("mode", "") == "counts" && r.contains("counts");
}

bool is_disturbed_record(const Json& r) { return r.contains("interference") && r.at("interference").value("disturbed", false); }

void attach_blowup(std::vector<Json>& records) {
  auto growth_per_live_byte = [](const Json& r) -> std::optional<double> {
    const double live = r.value("peak_live_requested_bytes", 0.0);
    if (live <= 0) return std::nullopt;
    return (r.value("peak_rss_bytes", 0.0) - r.value("rss_before_bytes", 0.0)) / live;
  };
  std::map<std::string, double> single;  // allocator -> growth per live byte at 1 thread
  for (const auto& r : records)
    if (is_ok(r) && r.value("mode", "") == "profile" && r.at("threads") == 1)
      if (const auto g = growth_per_live_byte(r)) single[r.at("allocator").get<std::string>()] = *g;
  for (auto& r : records) {
    if (!is_ok(r) || r.value("mode", "") != "profile") continue;
    const auto one = single.find(r.at("allocator").get<std::string>());
    const auto g = growth_per_live_byte(r);
    r["profile"]["blowup"] = one != single.end() && one->second > 0 && g
                                 ? Json{{"value", *g / one->second}, {"provenance", "exact (RSS growth per peak live byte, N threads / 1 thread)"}}
                                 : Json{{"value", nullptr}, {"provenance", "n/a(no ok 1-thread profile cell of this allocator)"}};
  }
}

void attach_net_counts(std::vector<Json>& records) {
  static const char* const kFigures[] = {"instructions_per_unit",          "estimated_cycles_per_unit", "estimated_user_cycles_per_unit",
                                         "estimated_kernel_cycles_per_unit", "d1_misses_per_unit",        "ll_misses_per_unit"};
  std::map<std::pair<std::string, unsigned>, const Json*> baseline;  // (workload, threads) -> void's counts record
  for (const auto& r : records)
    if (is_ok_counts_record(r) && r.at("allocator") == kBaselineAllocator) baseline[{r.at("workload").get<std::string>(), r.at("threads").get<unsigned>()}] = &r;
  for (auto& r : records) {
    if (!is_ok_counts_record(r)) continue;
    const auto it = baseline.find({r.at("workload").get<std::string>(), r.at("threads").get<unsigned>()});
    const bool same_stream = it != baseline.end() && it->second->value("op_stream_hash", "") == r.value("op_stream_hash", "");
    Json& counts = r["counts"];
    for (const char* figure : kFigures) {
      const Json& mine = counts.value(figure, Json());
      const Json& theirs = same_stream ? it->second->at("counts").value(figure, Json()) : Json();
      counts[std::string("net_") + figure] = mine.is_number() && theirs.is_number() ? Json(mine.get<double>() - theirs.get<double>()) : Json(nullptr);
    }
    if (it == baseline.end()) r["warnings"].push_back("no ok void counts record for this workload and thread count: net counts are n/a");
    else if (!same_stream) r["warnings"].push_back("the void counts record ran another op stream: net counts are n/a");
  }
}

void attach_net_costs(std::vector<Json>& records) {
  struct Baseline {
    double cycles_per_pair, ns_per_pair;
    bool disturbed;
  };
  // A thp record's baseline is void's thp record of the same repetition and THP mode; a timing or
  // aged record's is void's timing record of the same repetition (an aged heap's harness work is
  // void's, fresh).
  const auto variant = [](const Json& r) { return r.value("mode", "") == "thp" ? r.value("thp_mode", Json()).dump() : std::string(); };
  const auto is_measured = [](const Json& r) {
    const std::string mode = r.value("mode", "timing");
    return is_ok(r) && (mode == "timing" || mode == "aged" || mode == "thp");
  };
  std::map<std::pair<CellRep, std::string>, Baseline> baseline;
  for (const auto& r : records)
    if (is_measured(r) && r.value("mode", "timing") != "aged" && has_baseline(r) && r.at("allocator") == kBaselineAllocator)
      baseline[{workload_threads_rep(r), variant(r)}] = {r.at("cycles_per_pair").get<double>(), r.at("ns_per_pair").get<double>(), is_disturbed_record(r)};
  for (auto& r : records) {
    if (!is_measured(r) || !has_baseline(r)) continue;
    const auto it = baseline.find({workload_threads_rep(r), variant(r)});
    if (it == baseline.end()) {
      r["baseline_cycles_per_pair"] = nullptr;
      r["net_cycles_per_pair"] = nullptr;
      r["net_ns_per_pair"] = nullptr;
      r["warnings"].push_back("no ok void-baseline record for the same threads and repetition: net cost is n/a");
      continue;
    }
    if (it->second.disturbed && r.at("allocator") != kBaselineAllocator && r.contains("interference")) {  // the difference is disturbed too
      r["interference"]["disturbed"] = true;
      r["interference"]["disturbed_by"].push_back("the void baseline process of this repetition was disturbed");
    }
    r["baseline_cycles_per_pair"] = it->second.cycles_per_pair;
    r["net_cycles_per_pair"] = r.at("cycles_per_pair").get<double>() - it->second.cycles_per_pair;
    r["net_ns_per_pair"] = r.at("ns_per_pair").get<double>() - it->second.ns_per_pair;
  }
}

// The metrics a program's definition reads from its output (cells/programs/program_cell.cpp): the names
// of params.program.metrics of the record, none for other workloads.
std::vector<std::string> program_metric_names(const Json& record) {
  std::vector<std::string> out;
  const Json& metrics = record.value("params", Json::object()).value("program", Json::object()).value("metrics", Json::array());
  for (const Json& m : metrics)
    if (m.is_object() && m.contains("name") && m.at("name").is_string()) out.push_back(m.at("name").get<std::string>());
  return out;
}

std::vector<Json> aggregate_entries(const std::vector<Json>& records) {
  for (const Json& r : records)
    if (r.is_object() && r.contains("workload") && r.at("workload").is_string())
      declare_programs_of({{"workload_params", {{r.at("workload").get<std::string>(), r.value("params", Json())}}}});
  using CellKey = RecordKey;  // a timing cell (cells/record_identity.hpp)
  std::vector<CellKey> order;
  std::map<CellKey, std::vector<const Json*>> groups;
  std::map<CellKey, std::size_t> disturbed;
  for (const auto& r : records) {
    if (!is_ok_timing(r)) continue;
    const CellKey key = record_key(r);
    if (is_disturbed_record(r)) {  // left out; the matrix runs the cell again within its budget
      ++disturbed[key];
      continue;
    }
    if (groups[key].empty()) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::map<std::pair<std::string, unsigned>, double> reference;  // median speed metric of `system` per (workload, threads)
  std::map<std::pair<std::string, unsigned>, Json> reference_interval;
  std::vector<Json> out;
  std::map<CellKey, std::size_t> median_index;
  for (const auto& key : order) {
    const auto& [workload, allocator, threads, mode, instance] = key;
    const auto& group = groups[key];
    const Json& first = *group.front();
    // the records' name (a hand-made file may lack it: then the one C++ gives the cell)
    const std::string run_name = first.value("name", record_name(RecordKey{workload, allocator, threads, mode, instance}));
    Json base = {{"run_name", run_name}, {"run_type", "aggregate"}, {"mode", mode},
                 {"workload", workload}, {"allocator", allocator}, {"threads", threads},
                 {"repetitions", first.value("repetitions", group.size())}, {"repetitions_ok", group.size()},
                 {"repetitions_disturbed", disturbed[key]},
                 {"status", "ok"}, {"time_unit", "ns"}};
    for (const char* stat : {"median", "min", "max", "cv"}) {
      Json e = base;
      e["name"] = run_name + "_" + stat;  // Google Benchmark's aggregate naming
      e["aggregate_name"] = stat;
      e["aggregate_unit"] = std::string(stat) == "cv" ? "percentage" : "time";
      for (const auto& [metric, path] : kAggregatedMetrics) {
        std::vector<double> values;
        const Json::json_pointer where(path);
        for (const Json* r : group)
          if (r->contains(where) && r->at(where).is_number()) values.push_back(r->at(where).get<double>());
        if (values.size() != group.size()) {
          e[metric] = nullptr;
          continue;
        }
        e[metric] = statistic(values, stat);
      }
      if (first.contains("workload_metrics")) e["workload_metrics"] = summarised_workload_metrics(group, stat);
      for (const Json* r : group)  // one invalid repetition makes the cell's overhead invalid (record_metrics.cpp)
        if (r->contains("overhead_ratio_invalid")) {
          e["overhead_ratio_invalid"] = r->at("overhead_ratio_invalid");
          break;
        }
      if (std::string(stat) == "median") {
        median_index[key] = out.size();
        const std::string metric = speed_metric(workload), memory = memory_metric(workload);
        Json intervals = Json::object();
        for (const std::string& m : {metric, std::string(has_void_baseline(workload) ? "net_ns_per_pair" : "")})
          if (!m.empty()) intervals[m] = median_interval_entry(group, metric_pointer(workload, m));
        // memory: where every process has a valid overhead ratio (never for the void baseline), or
        // the workload's own memory headline (a program's peak RSS)
        for (const std::string& m : program_metric_names(first))  // a program's own figures, ranked by the verdict too
          intervals[m] = median_interval_entry(group, Json::json_pointer("/workload_metrics/" + m));
        if (memory != "overhead_ratio") {
          if (allocator != kBaselineAllocator) intervals[memory] = median_interval_entry(group, metric_pointer(workload, memory));
        } else if (allocator != kBaselineAllocator && !e.contains("overhead_ratio_invalid") && e["overhead_ratio"].is_number()) {
          intervals["overhead_ratio"] = median_interval_entry(group, metric_pointer(workload, "overhead_ratio"));
        }
        e["intervals"] = intervals;
        if (const Json vc = variance_components(group); !vc.is_null()) e["variance_components"] = vc;
        if (const Json& v = metric.empty() ? Json() : metric_value(e, metric_pointer(workload, metric));
            allocator == kReferenceAllocator && v.is_number()) {
          reference[{workload, threads}] = v.get<double>();
          reference_interval[{workload, threads}] = intervals[metric];
        }
      }
      out.push_back(std::move(e));
    }
  }
  for (const auto& [key, index] : median_index) {
    const auto& [workload, allocator, threads, mode, instance] = key;
    Json& e = out[index];
    const std::string metric = speed_metric(workload);
    const auto ref = reference.find({workload, threads});
    const Json mine = metric.empty() ? Json() : metric_value(e, metric_pointer(workload, metric));
    const bool usable = !metric.empty() && ref != reference.end() && ref->second > 0 && mine.is_number() && mine.get<double>() > 0 &&
                        allocator != kBaselineAllocator;
    e["speed_vs_system"] = usable ? Json(ref->second / mine.get<double>()) : Json(nullptr);
    const auto ref_interval = reference_interval.find({workload, threads});
    e["vs_system"] = !metric.empty() && allocator != kBaselineAllocator && allocator != kReferenceAllocator && ref_interval != reference_interval.end()
                         ? versus_system(e["intervals"].value(metric, Json()), ref_interval->second)
                         : Json(nullptr);
    e["speed_vs_system_interval"] = usable && allocator != kReferenceAllocator && ref_interval != reference_interval.end()
                                        ? ratio_interval(e["intervals"].value(metric, Json()), ref_interval->second)
                                        : Json(nullptr);
  }
  return out;
}

std::vector<std::string> op_stream_mismatches(const std::vector<Json>& records) {
  std::map<CellRep, std::map<std::string, std::string>> hashes;  // -> hash -> first allocator
  for (const auto& r : records)
    if (is_ok_timing(r) && r.contains("op_stream_hash"))
      hashes[workload_threads_rep(r)].emplace(r.at("op_stream_hash").get<std::string>(), r.at("allocator").get<std::string>());
  std::vector<std::string> out;
  for (const auto& [k, by_hash] : hashes) {
    if (by_hash.size() < 2) continue;
    std::string who;
    for (const auto& [h, a] : by_hash) who += (who.empty() ? "" : ", ") + a + "=" + h;
    out.push_back(std::get<0>(k) + " threads " + std::to_string(std::get<1>(k)) + " repetition " + std::to_string(std::get<2>(k)) +
                  ": allocators saw different operation streams (" + who + ")");
  }
  return out;
}

}  // namespace allocstress
