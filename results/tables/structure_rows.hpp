// The rows of the data-structure table (the registry's "structure" table kind: bintree,
// linkedlist), built once here and rendered by the Python report (tabulation/structures.py,
// through _core.structure_rows): what the allocator's block placement costs when a program later
// walks its nodes.  Raw figures (no void baseline exists for a structure).
//
//   One row per timing cell of a structure workload (timing_cells.hpp: ok, undisturbed
//   repetitions; the recorded aggregate entries, else C++'s from the records), grouped by
//   (workload, threads) in the order they first appear, allocators in the order they first appear:
//   {workload, allocator, threads, reps_ok (repetitions with a search cost),
//    build_cycles_per_node, search_cycles_per_visit (medians), search_ci_low, search_ci_high,
//    search_ci_level (the interval of that median), search_cv, unstable (the interval wider than
//    +-10% of the median: platform/statistics.hpp is_unstable_half_width, the one rule),
//    search_vs_system (the median entry's speed_vs_system: system's median search cost / this
//    one's), search_vs_system_ci_low, search_vs_system_ci_high (null: unbounded),
//    search_vs_system_level (its speed_vs_system_interval; where the entry has the ratio but
//    records no interval -- system's own row, files from before the interval was recorded --
//    system's interval of the median over this cell's), cache_line_utilisation, page_utilisation, set_histogram_max_over_mean,
//    overhead_ratio (medians; overhead null where a repetition's is invalid)}.
//   A figure that is null is n/a.  The Mann-Whitney p-values are not here (a rule of the Python
//   package alone, stats/statistics.py).
#pragma once

#include <nlohmann/json.hpp>

namespace allocstress {

// pre: `results` is a results document (benchmarks holding iteration and aggregate entries).
nlohmann::json structure_rows(const nlohmann::json& results);

}  // namespace allocstress
