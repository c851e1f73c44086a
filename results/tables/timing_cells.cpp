// The timing cells of a results document with the aggregate entries their figures come from
// (timing_cells.hpp): recorded where they summarised the cell's repetitions, completed or else
// replaced by the entries recomputed from the records.
#include "results/tables/timing_cells.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "cells/programs/program_workloads.hpp"
#include "platform/statistics.hpp"
#include "results/results_summary.hpp"

namespace allocstress::table_parts {

namespace {

using Json = nlohmann::json;

CellKey key_of(const Json& e) { return {e.at("workload").get<std::string>(), e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()}; }

bool is_cell_record(const Json& r) {
  return r.value("run_type", "") == "iteration" && r.value("status", "") == "ok" && is_timing_record(r) && !is_disturbed_record(r);
}

}  // namespace

bool entry_describes(const Json& entry, std::size_t repetitions) { return entry.value("repetitions_ok", Json()) == Json(repetitions); }

CellRecords cell_records(const Json& benchmarks) {
  CellRecords out;
  for (const Json& r : benchmarks)
    if (is_cell_record(r)) out[key_of(r)].push_back(&r);
  return out;
}

Aggregates chosen_aggregates(const Json& benchmarks, const Aggregates& recorded, const CellRecords& records, std::vector<Json>& store) {
  std::vector<Json> iterations;
  for (const auto& e : benchmarks)
    if (e.at("run_type") == "iteration") iterations.push_back(e);
  store = aggregate_entries(iterations);
  Aggregates agg = recorded;  // the recorded entries of cells without ok records stay as they are
  for (Json& fresh : store) {
    if (!is_timing_record(fresh)) continue;
    const CellKey key = key_of(fresh);
    const Json* median = recorded.get(key, "median");
    const auto cell = records.find(key);
    const bool describes = median != nullptr && cell != records.end() && entry_describes(*median, cell->second.size());
    if (const Json* old = recorded.get(key, fresh.at("aggregate_name").get<std::string>()); describes && old != nullptr) {
      for (const char* derived : {"vs_system", "speed_vs_system_interval"})  // from the intervals chosen, where not recorded
        if (old->value(derived, Json()).is_null()) fresh.erase(derived);
      for (const auto& [name, value] : old->items()) {
        if (value.is_null()) continue;
        if (name != "intervals" || !value.is_object() || !fresh.contains("intervals")) fresh[name] = value;
        else fresh["intervals"].update(value);
      }
    }
    if (agg.by_cell[key].empty()) agg.order.push_back(key);
    agg.by_cell[key][fresh.at("aggregate_name").get<std::string>()] = &fresh;
  }
  return agg;
}

const TimingCell* TimingCells::find(const std::string& workload, const std::string& allocator, unsigned threads) const {
  const auto it = std::find_if(cells.begin(), cells.end(), [&](const TimingCell& c) {
    return c.workload == workload && c.allocator == allocator && c.threads == threads;
  });
  return it == cells.end() ? nullptr : &*it;
}

TimingCells timing_cells(const Json& benchmarks) {
  TimingCells out;
  const CellRecords records = cell_records(benchmarks);
  const Aggregates chosen = chosen_aggregates(benchmarks, aggregates_of(benchmarks), records, out.computed);
  // by (workload, threads) in the order each first appears, the allocators within in the order they first appear
  std::vector<std::pair<std::string, unsigned>> groups;
  std::map<std::pair<std::string, unsigned>, std::vector<CellKey>> by_group;
  for (const Json& r : benchmarks) {
    if (!is_cell_record(r)) continue;
    const CellKey key = key_of(r);
    auto& cells = by_group[{key.workload, key.threads}];
    if (cells.empty()) groups.emplace_back(key.workload, key.threads);
    if (std::find(cells.begin(), cells.end(), key) == cells.end()) cells.push_back(key);
  }
  for (const auto& g : groups)
    for (const CellKey& key : by_group[g]) {
      const Json* median = chosen.get(key, "median");
      if (median == nullptr) continue;  // not aggregated (cannot happen for an ok timing cell)
      out.cells.push_back(TimingCell{key.workload, key.allocator, key.threads, records.at(key), median, chosen.get(key, "cv")});
    }
  return out;
}

Json cell_rows(const Json& results, const std::function<Json(const TimingCell&, const TimingCells&)>& row) {
  declare_programs_of(results);
  const TimingCells cells = timing_cells(results.at("benchmarks"));
  Json rows = Json::array();
  for (const TimingCell& cell : cells.cells)
    if (Json r = row(cell, cells); !r.is_null()) rows.push_back(std::move(r));
  return rows;
}

Figure figure_of(const TimingCell& cell, const Json::json_pointer& record_place, const Json::json_pointer& aggregate_place,
                 const std::string& interval_name) {
  std::vector<const Json*> with;  // the repetitions that have a number there
  std::vector<double> values;
  for (const Json* r : cell.records)
    if (const Json& v = metric_value(*r, record_place); v.is_number()) {
      with.push_back(r);
      values.push_back(v.get<double>());
    }
  Figure f;
  f.values = values.size();
  const Json& median = metric_value(*cell.median, aggregate_place);
  const Json& interval = cell.median->value("intervals", Json::object()).value(interval_name, Json());
  const Json& cv = cell.cv == nullptr ? Json() : metric_value(*cell.cv, aggregate_place);
  if (median.is_number()) {  // recorded: every repetition has a number
    f.median = median;
    f.interval = interval;
    f.cv = cv.is_number() ? cv : Json();
    if (!interval.is_null() || interval_name.empty() || values.size() < 2) return f;
  } else if (!values.empty()) {
    const Summary s = summarise(values);
    f.median = s.median;
    f.cv = values.size() >= 2 && !std::isnan(s.cv) ? Json(s.cv) : Json();
  }
  if (interval_name.empty()) return f;
  f.interval = median_interval_entry(with, record_place);
  return f;
}

std::string overhead_invalid(const TimingCell& cell) {
  for (const Json* r : cell.records)
    if (const Json& why = r->value("overhead_ratio_invalid", Json()); why.is_string() && !why.get<std::string>().empty())
      return why.get<std::string>();
  return "";
}

}  // namespace allocstress::table_parts
