// The workload-metrics tables' rows (metric_rows.hpp) from the cells' aggregate entries.
#include "results/tables/metric_rows.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"
#include "results/tables/timing_cells.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;
using table_parts::Figure;
using table_parts::TimingCell;

// The workload its blowup is against: its registry entry's first companion, with its label.
std::string companion_of(const std::string& workload) {
  const WorkloadEntry* e = registry_workload(workload_base_name(workload));
  if (e == nullptr || e->companions.empty()) return "";
  const std::string_view label = workload_label(workload);
  return std::string(e->companions.front()) + (label.empty() ? "" : ":" + std::string(label));
}

// The cell's overhead ratio: none (values 0) where a repetition's is invalid.
Figure overhead_of(const TimingCell& cell) {
  return table_parts::overhead_invalid(cell).empty() ? table_parts::figure_of(cell, table_parts::place("overhead_ratio"), table_parts::place("overhead_ratio"), "overhead_ratio")
                                                     : Figure{};
}

// {blowup, blowup_ci_low, blowup_ci_high, blowup_level} and why it or its interval is missing ("" when it is not).
std::pair<Json, std::string> blowup(const Figure& mine, const TimingCell* companion_cell, const std::string& companion) {
  Json out = {{"blowup", nullptr}, {"blowup_ci_low", nullptr}, {"blowup_ci_high", nullptr}, {"blowup_level", nullptr}};
  const Figure theirs = companion_cell == nullptr ? Figure{} : overhead_of(*companion_cell);
  if (theirs.values == 0) return {out, "no ok " + companion + " cell at this allocator and threads: no blowup"};
  if (mine.values == 0 || !(mine.median.get<double>() > 0) || !(theirs.median.get<double>() > 0))
    return {out, "a median overhead ratio is missing or <= 0 (no RSS growth, e.g. void): no blowup"};
  out["blowup"] = mine.median.get<double>() / theirs.median.get<double>();
  const Json q = quotient_interval(mine.interval, theirs.interval, "");
  if (q.is_null())
    return {out, mine.values < 2 || theirs.values < 2 ? "blowup: fewer than 2 values: no interval"
                                                      : "blowup: no interval (an interval of a median is not above 0)"};
  out["blowup_ci_low"] = q.at("low");
  out["blowup_ci_high"] = q.at("high");
  out["blowup_level"] = q.at("level_at_least");
  return {out, ""};
}

// The medians of every workload_metrics key of the cell's records, in the order first seen.
Json metric_medians(const TimingCell& cell) {
  std::vector<std::string> keys;
  for (const Json* r : cell.records) {
    const auto block = r->find("workload_metrics");
    if (block == r->end() || !block->is_object()) continue;
    for (const auto& [key, value] : block->items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  Json out = Json::object();
  for (const std::string& key : keys) {
    const Json::json_pointer where = table_parts::place("workload_metrics", key);
    out[key] = table_parts::figure_of(cell, where, where, "").median;
  }
  return out;
}

Json row_of(const TimingCell& cell, const table_parts::TimingCells& cells) {
  const std::string invalid = table_parts::overhead_invalid(cell);
  const Figure overhead = overhead_of(cell);
  Json row = {{"workload", cell.workload}, {"allocator", cell.allocator}, {"threads", cell.threads}, {"reps_ok", cell.records.size()},
              {"overhead_ratio", overhead.median}, {"metrics", metric_medians(cell)}, {"companion", nullptr}};
  std::string notes = invalid.empty() ? "" : table_parts::kOverheadInvalidNote + invalid;
  if (const std::string companion = companion_of(cell.workload); !companion.empty()) {
    auto [figures, why] = blowup(overhead, cells.find(companion, cell.allocator, cell.threads), companion);
    row["companion"] = companion;
    row.update(figures);
    if (!why.empty()) notes += (notes.empty() ? "" : "; ") + why;
  }
  row["notes"] = notes;
  return row;
}

}  // namespace

Json workload_metric_rows(const Json& results) {
  return table_parts::cell_rows(results, [](const TimingCell& cell, const table_parts::TimingCells& cells) {
    const WorkloadEntry* e = find_workload(cell.workload);
    return e == nullptr || e->table != TableKind::structure ? row_of(cell, cells) : Json();
  });
}

}  // namespace allocstress
