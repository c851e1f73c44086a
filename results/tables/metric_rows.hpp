// The rows of the workload-metrics tables (one table per workload whose records carry
// `workload_metrics`: xthread, larson, lifetime, phase-*, false-sharing-*, programs), built once
// here and rendered by the Python report (tabulation/workload_metrics.py, through
// _core.workload_metric_rows), which chooses the workloads, orders and labels the columns.
//
//   One row per timing cell of every workload that is not a data structure (timing_cells.hpp:
//   ok, undisturbed repetitions; the recorded aggregate entries, else C++'s from the records),
//   grouped by (workload, threads) in the order they first appear, allocators in the order they
//   first appear:
//   {workload, allocator, threads, reps_ok (the cell's repetitions),
//    overhead_ratio (median; null where a repetition's overhead is invalid),
//    metrics: {key: median} for every key of the cell's records' workload_metrics, in the order
//      first seen (a repetition whose value is null is left out of that median; null in all: null),
//    companion: the workload the matrix runs beside this one (its registry entry's first
//      companion, with this workload's label: lifetime:x -> alloc-test:x), or null;
//    blowup, blowup_ci_low, blowup_ci_high (null: unbounded where low is a number), blowup_level:
//      with a companion, median overhead ratio / the companion's at the same allocator and threads,
//      with the quotient of the two medians' intervals (results_summary.hpp quotient_interval);
//    notes: why the overhead is invalid and why the blowup or its interval is missing, "; "-joined}.
#pragma once

#include <nlohmann/json.hpp>

namespace allocstress {

// pre: `results` is a results document (benchmarks holding iteration and aggregate entries).
nlohmann::json workload_metric_rows(const nlohmann::json& results);

}  // namespace allocstress
