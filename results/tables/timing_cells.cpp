// The timing cells of a results document with the aggregate entries their figures come from
// (timing_cells.hpp): recorded where they summarised the cell's repetitions, else computed.
#include "results/tables/timing_cells.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "cells/programs/program_workloads.hpp"
#include "platform/statistics.hpp"
#include "results/results_summary.hpp"

namespace allocstress::table_parts {

namespace {

using Json = nlohmann::json;
using Key = std::tuple<std::string, std::string, unsigned>;  // workload, allocator, threads

Key key_of(const Json& e) { return {e.at("workload").get<std::string>(), e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()}; }

// (workload, allocator, threads) -> statistic -> entry, of the timing aggregate entries of `entries`.
std::map<Key, std::map<std::string, const Json*>> index_aggregates(const Json& entries) {
  std::map<Key, std::map<std::string, const Json*>> out;
  for (const Json& e : entries)
    if (e.value("run_type", "") == "aggregate" && is_timing_record(e) && e.contains("threads"))
      out[key_of(e)].emplace(e.value("aggregate_name", ""), &e);
  return out;
}

bool is_cell_record(const Json& r) {
  return r.value("run_type", "") == "iteration" && r.value("status", "") == "ok" && is_timing_record(r) && !is_disturbed_record(r);
}

}  // namespace

const TimingCell* TimingCells::find(const std::string& workload, const std::string& allocator, unsigned threads) const {
  const auto it = std::find_if(cells.begin(), cells.end(), [&](const TimingCell& c) {
    return c.workload == workload && c.allocator == allocator && c.threads == threads;
  });
  return it == cells.end() ? nullptr : &*it;
}

TimingCells timing_cells(const Json& benchmarks) {
  TimingCells out;
  std::vector<std::pair<std::string, unsigned>> groups;  // (workload, threads) in order of first appearance
  std::map<std::pair<std::string, unsigned>, std::vector<TimingCell>> by_group;
  for (const Json& r : benchmarks) {
    if (!is_cell_record(r)) continue;
    const Key key = key_of(r);
    const std::string& workload = std::get<0>(key);
    const std::string& allocator = std::get<1>(key);
    const unsigned threads = std::get<2>(key);
    auto& cells = by_group[{workload, threads}];
    if (cells.empty()) groups.emplace_back(workload, threads);
    auto cell = std::find_if(cells.begin(), cells.end(), [&](const TimingCell& c) { return c.allocator == allocator; });
    if (cell == cells.end()) cell = cells.insert(cells.end(), TimingCell{workload, allocator, threads, {}, nullptr, nullptr});
    cell->records.push_back(&r);
  }
  const auto recorded = index_aggregates(benchmarks);
  auto matches = [&](const TimingCell& c) {
    const auto it = recorded.find({c.workload, c.allocator, c.threads});
    const auto median = it == recorded.end() ? std::map<std::string, const Json*>::const_iterator() : it->second.find("median");
    return it != recorded.end() && median != it->second.end() && median->second->value("repetitions_ok", std::size_t{0}) == c.records.size();
  };
  bool compute = false;
  for (const auto& g : groups)
    for (const TimingCell& c : by_group[g]) compute = compute || !matches(c);
  if (compute) {  // a file without aggregates, or records changed after them: C++ aggregates them here
    std::vector<Json> records;
    for (const Json& r : benchmarks)
      if (r.value("run_type", "") == "iteration") records.push_back(r);
    out.computed = aggregate_entries(records);
  }
  std::map<Key, std::map<std::string, const Json*>> own;
  for (const Json& e : out.computed)
    if (is_timing_record(e)) own[key_of(e)].emplace(e.value("aggregate_name", ""), &e);
  for (const auto& g : groups)
    for (TimingCell& c : by_group[g]) {
      const auto& entries = matches(c) ? recorded.at({c.workload, c.allocator, c.threads}) : own[{c.workload, c.allocator, c.threads}];
      const auto median = entries.find("median"), cv = entries.find("cv");
      if (median == entries.end()) continue;  // not aggregated (cannot happen for an ok timing cell)
      c.median = median->second;
      c.cv = cv == entries.end() ? nullptr : cv->second;
      out.cells.push_back(std::move(c));
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
