// The data-structure table's rows (structure_rows.hpp) from the cells' aggregate entries.
#include "results/tables/structure_rows.hpp"

#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"
#include "results/tables/timing_cells.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;
using table_parts::Figure;
using table_parts::TimingCell;
using table_parts::place;

bool is_structure(const std::string& workload) {
  const WorkloadEntry* e = registry_workload(workload);
  return e != nullptr && e->table == TableKind::structure;
}

Json number_or_null(const Json& object, const char* field) {
  const Json& v = object.is_object() ? object.value(field, Json()) : Json();
  return v.is_number() ? v : Json();
}

// The interval of search_vs_system: the recorded one; where the entry records none although it has
// the ratio (system's own row; files from before the interval was recorded), system's interval of
// the median over this cell's.
Json speed_interval(const TimingCell& cell, const Figure& search, const table_parts::TimingCells& cells) {
  const Json& recorded = cell.median->value("speed_vs_system_interval", Json());
  if (recorded.is_object() || !cell.median->value("speed_vs_system", Json()).is_number()) return recorded;
  const TimingCell* system = cells.find(cell.workload, kReferenceAllocator, cell.threads);
  if (system == nullptr) return nullptr;
  const Figure reference = table_parts::figure_of(*system, place("search_cycles_per_visit"), place("search_cycles_per_visit"), "search_cycles_per_visit");
  return quotient_interval(reference.interval, search.interval, "");
}

Json row_of(const TimingCell& cell, const table_parts::TimingCells& cells) {
  const Figure build = table_parts::figure_of(cell, place("build_cycles_per_node"), place("build_cycles_per_node"), "");
  const Figure search = table_parts::figure_of(cell, place("search_cycles_per_visit"), place("search_cycles_per_visit"), "search_cycles_per_visit");
  const Json speed = speed_interval(cell, search, cells);
  Json row = {{"workload", cell.workload}, {"allocator", cell.allocator}, {"threads", cell.threads}, {"reps_ok", search.values},
              {"build_cycles_per_node", build.median}, {"search_cycles_per_visit", search.median},
              {"search_ci_low", number_or_null(search.interval, "low")}, {"search_ci_high", number_or_null(search.interval, "high")},
              {"search_ci_level", number_or_null(search.interval, "level")}, {"search_cv", search.cv},
              {"unstable", table_parts::is_unstable(search.interval)},
              {"search_vs_system", cell.median->value("speed_vs_system", Json())},
              {"search_vs_system_ci_low", number_or_null(speed, "low")}, {"search_vs_system_ci_high", number_or_null(speed, "high")},
              {"search_vs_system_level", number_or_null(speed, "level_at_least")}};
  for (const char* m : {"cache_line_utilisation", "page_utilisation", "set_histogram_max_over_mean"})
    row[m] = table_parts::figure_of(cell, place("placement_metrics", m), place(m), "").median;
  row["overhead_ratio"] =
      table_parts::overhead_invalid(cell).empty() ? table_parts::figure_of(cell, place("overhead_ratio"), place("overhead_ratio"), "").median : Json();
  return row;
}

}  // namespace

Json structure_rows(const Json& results) {
  return table_parts::cell_rows(results, [](const TimingCell& cell, const table_parts::TimingCells& cells) {
    return is_structure(cell.workload) ? row_of(cell, cells) : Json();
  });
}

}  // namespace allocstress
