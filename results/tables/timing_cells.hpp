// The timing cells of a results document, each with its records and the aggregate entries its
// figures come from: the tables built as rows (structure_rows.hpp, metric_rows.hpp) read a cell's
// figures here, so that they show what the results file recorded.
//
//   A cell = the ok, undisturbed timing iteration records of one (workload, allocator, threads),
//   in file order (the records results_summary.hpp aggregate_entries summarises).
//   Its aggregate entries (chosen_aggregates, the one rule every table built as rows follows, the
//   comparison table's summary_rows too): where the recorded median entry summarised as many
//   repetitions as the cell has (repetitions_ok), the recorded entries, each recorded figure taking
//   the place of the one aggregate_entries recomputes from the records, and the recomputed ones
//   completing what an older file lacks (but for vs_system and speed_vs_system_interval, which a
//   reader then derives from the intervals chosen); otherwise (a file without aggregates, or
//   records edited after them) the recomputed entries.
//   A figure of a cell (figure_of) is the recorded number where the aggregate has one; where it has
//   none (null: some repetition lacks the value) the median of the repetitions that have a number,
//   and the interval of that median likewise (platform/statistics.hpp summarise, median_interval).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

// Whether an aggregate entry describes a set of `repetitions` repetitions: it summarised as many
// (its repetitions_ok).  Only then may a reader take its figures for them (Python's
// results/aggregates.py asks it of a frame's group, through _core.entry_describes).
bool entry_describes(const nlohmann::json& entry, std::size_t repetitions);
// The ok, undisturbed timing iteration records of each cell of `benchmarks`, in file order.
CellRecords cell_records(const nlohmann::json& benchmarks);
// The aggregate entries each cell's figures come from (the rule above), by cell, in the order
// the recomputed cells first appear; `recorded` is aggregates_of(benchmarks), `records`
// cell_records(benchmarks).  `store` holds the recomputed entries the result points to.
Aggregates chosen_aggregates(const nlohmann::json& benchmarks, const Aggregates& recorded, const CellRecords& records,
                             std::vector<nlohmann::json>& store);

struct TimingCell {
  std::string workload, allocator;
  unsigned threads = 0;
  std::vector<const nlohmann::json*> records;  // never empty
  const nlohmann::json* median = nullptr;      // its median aggregate entry (never null)
  const nlohmann::json* cv = nullptr;          // its cv entry, or null
};

// The cells of `benchmarks`, grouped as the tables list them: by (workload, threads) in the order
// each first appears, the allocators within in the order they first appear.  The entries the
// cells point at live in `benchmarks` or in `computed`.
struct TimingCells {
  std::vector<TimingCell> cells;
  std::vector<nlohmann::json> computed;  // aggregate entries computed here (never resized once cells point in)
  const TimingCell* find(const std::string& workload, const std::string& allocator, unsigned threads) const;
};
TimingCells timing_cells(const nlohmann::json& benchmarks);
// A table's rows: `row` of each cell of the results document `results` (its programs declared
// first), in the cells' order, where it gives one (not null).
nlohmann::json cell_rows(const nlohmann::json& results,
                         const std::function<nlohmann::json(const TimingCell&, const TimingCells&)>& row);

// One figure of a cell: its median (null: no repetition has a number), the interval of that median
// (the median entry's `intervals` object of `interval_name`, or one of the same shape from the
// records; null below two values; not looked for when `interval_name` is ""), its cv (null: none)
// and how many repetitions have a number.
struct Figure {
  nlohmann::json median, interval, cv;
  std::size_t values = 0;
};
// `in_record`: where the figure is in a record; `in_aggregate`: in an aggregate entry.
Figure figure_of(const TimingCell& cell, const nlohmann::json::json_pointer& in_record,
                 const nlohmann::json::json_pointer& in_aggregate, const std::string& interval_name);
// A field's place as a JSON pointer ("/overhead_ratio"; ("/workload_metrics", key) escapes the key).
inline nlohmann::json::json_pointer place(const std::string& field) { return nlohmann::json::json_pointer("/" + field); }
inline nlohmann::json::json_pointer place(const std::string& block, const std::string& field) {
  return nlohmann::json::json_pointer("/" + block) / field;
}

// Why the cell's overhead ratio is invalid ("" when it is valid): the first repetition's
// overhead_ratio_invalid (one invalid repetition makes the cell's overhead invalid, as in the
// aggregates: never ranked).
std::string overhead_invalid(const TimingCell& cell);

}  // namespace allocstress::table_parts
