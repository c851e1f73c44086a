// Pieces the Markdown summary's tables share (results_table.cpp renders the summary, workload_tables.cpp
// one table per workload, mode_tables.cpp the simulated-cache and profile tables).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cells/metrics/metric.hpp"
#include "platform/statistics.hpp"

namespace allocstress::table_parts {

using Json = nlohmann::json;
// A timing cell of the tables: its aggregate entries are looked up by it (ordered as the tuple
// (workload, allocator, threads) would be, so maps keep the tables' row order).
struct CellKey {
  std::string workload;
  std::string allocator;
  unsigned threads = 0;
  auto operator<=>(const CellKey&) const = default;
};
// The aggregate entries of each cell by aggregate name ("median", "cv", ...), and the cells in
// the order they first appear.
struct Aggregates {
  std::map<CellKey, std::map<std::string, const Json*>> by_cell;
  std::vector<CellKey> order;
  const Json* get(const CellKey& key, const std::string& stat) const;
};
// The aggregate entries `benchmarks` records, by cell, in the order the cells first appear.
Aggregates aggregates_of(const Json& benchmarks);

// `v` printed with `decimals` decimals, or "n/a" when it is not a number.
std::string fixed(const Json& v, int decimals);
std::string mib(const Json& bytes, int decimals = 1);

// A cell is unstable when its interval of the median is wider than ±10% of the median: this run
// cannot place it to better than that (the tables mark it with a dagger; the rule and
// kUnstableRelativeHalfWidth are platform/statistics.hpp's).
bool is_unstable(const Json& interval);
// A ratio with two decimals below 10, one above.
std::string ratio_text(double ratio);

// "[low, high] (level%)" of the median entry's interval of metric m, or "n/a".
std::string interval_text(const Json& median, const Metric& m);
// The speed ratio against system with its interval ("2.10 [1.90, 2.30]"), "indistinguishable"
// where the two cells' intervals overlap, "n/a" without both intervals.
std::string versus_system_text(const Json& median);

// One row of a workload's table: a cell (allocator x threads), its aggregate entries and the
// figures the table shows beside its headline metric.  workload_table() prints these rows and
// summary_rows() (results_table.hpp) gives them to Python: one row source for both renderers.
struct TableRow {
  std::string workload;
  std::string allocator;
  unsigned threads = 0;
  const Json* median = nullptr;  // the cell's median entry (never null)
  const Json* cv = nullptr;      // its cv entry; null without one
  bool baseline = false;         // void of a workload net of void: its net figures are 0 by definition
  bool reference = false;        // the reference allocator (system)
  Json headline;                 // the headline metric's median (0 for the baseline); null: none
  Json spread;                   // the headline's cv (the baseline: of raw cycles/pair); null: n/a
  bool unstable = false;         // the headline's interval is wider than the unstable mark (never the baseline)
  std::string interval;          // interval_text() of the headline; "-" for the baseline, "" without a headline
  std::string versus;            // the "vs system [interval]" cell: "-" for the baseline, "reference", versus_system_text()
  Json columns;                  // summary_columns() where summary_rows() gives it (workloads net of void); else null
};
// The rows of `workload`'s table in the order its cells first appear; none for a workload this
// build does not know.
std::vector<TableRow> table_rows(const std::string& workload, const Aggregates& agg);
// `row` as data: {workload, allocator, threads, baseline, reference, nonconforming, reps_ok,
// disturbed, metric, median, cv, interval, interval_text, unstable, speed_vs_system,
// speed_vs_system_interval, vs_system, versus, columns}.
Json table_row_json(const TableRow& row);

// The note of the void baseline's row in the comparison table (summary_columns; Python's
// tabulation/tables.py renders it as _core.baseline_no_overhead_note).
inline constexpr const char* kBaselineNoOverheadNote =
    "void baseline: one aliased buffer, so its RSS is not memory use and it has no overhead ratio";
// The start of a row's note when a repetition's overhead ratio is invalid (its reason follows):
// summary_columns, metric_rows, and Python's tables.py as _core.overhead_invalid_note.
inline constexpr const char* kOverheadInvalidNote = "overhead invalid (< 1, not ranked): ";
// The ok, undisturbed timing records of each cell, in file order.
using CellRecords = std::map<CellKey, std::vector<const Json*>>;
// Every column of the comparison table (analysis tabulation/tables.py COLUMNS) but run and the
// Mann-Whitney p-values, for `row` of a workload net of void, from its entries and system's at the
// same threads (summary_columns.cpp): {reps_ok, net_cycles_per_pair, net_cycles_ci_low/high/level/
// method, net_cycles_rel_half_width, net_cycles_cv, unstable, cycles_per_pair, net_ns_per_pair,
// overhead_ratio, overhead_ratio_ci_low/high/level, thp_coverage, speed_vs_system, speed_ci_low/
// high/level, speed_vs_system_verdict, overhead_vs_system, overhead_ci_low/high/level,
// overhead_vs_system_verdict, notes}; null figures are n/a, a ratio interval's null high with a low
// is unbounded; reps_ok counts the cell's `records` with a net cost.
Json summary_columns(const TableRow& row, const Aggregates& agg, const CellRecords& records);

// One workload's table (its registry entry's metrics) from the aggregates; unknown workloads get none.
// A program workload also gets a column per metric of its definition (from `benchmarks`), and
// its throughput column only where some cell has one.  Under it, the definitions of the columns
// not in `defined` yet (which it extends).
void workload_table(std::ostringstream& md, const std::string& workload, const Json& benchmarks, const Aggregates& agg,
                    std::set<std::string>& defined);
// The metrics of program workload `workload`'s definition ([{name, regex, better, unit, ...}]),
// from any of its records; [] for other workloads.
Json program_metrics_of(const std::string& workload, const Json& benchmarks);

// The verdict (verdict.cpp): per workload and thread count the timing ranking with intervals, then
// the counts tier's ranking, then the misuse battery's scores beside cost (`safety`: the results
// file's section, null when it has none).  Non-conforming allocators are left out of every
// ranking, each named once with the reason.
void verdict(std::ostringstream& md, const std::vector<std::string>& workloads, const Json& benchmarks, const Aggregates& agg,
             const Json& safety);

// The misuse battery (safety_tables.cpp): the cases x allocators table with its legend, the
// scores, conformance and properties; nothing without a `safety` section.
void safety_table(std::ostringstream& md, const Json& safety);
// The verdict's safety lines: per allocator "detects N of M; 1.60× system's cost".
void safety_verdict_lines(std::ostringstream& md, const Json& safety, const std::vector<std::string>& workloads, const Aggregates& agg);
// Allocator -> why it is non-conforming: from its records' `nonconforming` and the safety section.
std::map<std::string, std::string> nonconforming_allocators(const Json& benchmarks, const Json& safety);

// The Gleipnir-style simulated-cache table (mode "simulate" records), and the profile table.
void simulation_table(std::ostringstream& md, const Json& benchmarks, const Aggregates& agg);
void profile_table(std::ostringstream& md, const Json& benchmarks);
// The memory tables beside speed (memory_tables.cpp): the outcomes of the limited cells (mode
// "limited"), then the ageing penalty (mode "aged") and the THP modes (mode "thp"), both in
// variant_tables.cpp, then the soak cells (mode "soak", soak_tables.cpp); each only where it has cells.
void memory_tables(std::ostringstream& md, const Json& benchmarks);
void memory_limit_table(std::ostringstream& md, const Json& benchmarks);
void ageing_penalty_table(std::ostringstream& md, const Json& benchmarks);
void thp_modes_table(std::ostringstream& md, const Json& benchmarks);
// One allocator's verdict on a variant: (allocator, "**slower**"/"**faster**" (the words the caller
// chose, in bold), "none shown" or "n/a", "figure [low, high]").
using Verdicts = std::vector<std::tuple<std::string, std::string, std::string>>;
// "; slower: a 1.6 [1.4, 2.1], b ...; faster: ...; none shown for N other(s)": the allocators of
// each word in the order given; the n/a ones are not named (variant_tables.cpp).
std::string grouped(const Verdicts& verdicts, const std::string& slower, const std::string& faster);
// The soak cells (mode soak, cells/modes/soak.hpp; soak_tables.cpp): one row per soak process with its
// per-bin RSS growth and hugepage coverage and their drift per hour (Theil-Sen, Sen's interval);
// the soak cells that did not run are listed under it.  Nothing without soak cells.
void soak_table(std::ostringstream& md, const Json& benchmarks);
// The verdict's soak line at (workload, threads), one per soak spec: the allocators whose RSS
// drift interval excludes 0 (growing or shrinking, with the drift per hour and its interval), or
// that none drifted detectably, and those whose drift is n/a with why.  Nothing without soak cells
// there (void aside).
void soak_verdict_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& benchmarks);
// The verdict's memory part at (workload, threads): one line per variant the run has, the aged heap's
// cost aged / warmed and each further THP mode's coverage and cost, each allocator with a verdict
// named (variant_tables.cpp).
void variant_verdict_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& benchmarks);
// The counts tier (mode "counts" records), one table per workload, ranked by net estimated cycles.
void counts_table(std::ostringstream& md, const Json& benchmarks, const Aggregates& agg);
// Reproduction intervals (reproduction_table.cpp): one row per cell whose median entry has one,
// with the calibration they come from; one line saying why when the run had no calibration.
void reproduction_table(std::ostringstream& md, const Json& context, const Aggregates& agg);

}  // namespace allocstress::table_parts
