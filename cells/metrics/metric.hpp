// A figure a cell's record carries that tables, plots and readers compare allocators by.  Each
// workload's registry entry lists the metrics its records carry; metric_catalogue.hpp gathers
// them into the one catalogue the C++ tables, the Python package and results/README.md read.
#pragma once

#include <string_view>

namespace allocstress {

enum class MetricPlace {
  record,            // a top-level field of the record (e.g. cycles_per_pair)
  workload_metrics,  // a field of the record's `workload_metrics` object
  placement_metrics,  // a field of the record's `placement_metrics` object (data structures)
};

struct Metric {
  std::string_view name;        // the field's name
  MetricPlace place;
  std::string_view unit;        // "TSC cycles", "ns", "bytes", "ratio", "fraction", "count", "ms", "lines"
  std::string_view label;       // a table's column header
  int decimals;                 // decimals a table shows
  std::string_view definition;  // what it is and how it is computed, for a reader of the results
  bool headline = false;        // the figure a workload's allocators are ranked by
  bool mib = false;             // a byte count tables show in MiB
  bool in_table = false;        // a column of the workload's Markdown summary table
  // The figure a workload's allocators are ranked by for memory (the verdict's memory line); a
  // workload without one is ranked by overhead_ratio where its records carry it.
  bool memory_headline = false;
};

// A field of `workload_metrics` (shown as a column of its workload's table unless `in_table` is false).
constexpr Metric workload_metric(std::string_view name, std::string_view unit, std::string_view label, int decimals,
                                 std::string_view definition, bool in_table = true, bool mib = false, bool headline = false) {
  return {.name = name, .place = MetricPlace::workload_metrics, .unit = unit, .label = label, .decimals = decimals,
          .definition = definition, .headline = headline, .mib = mib, .in_table = in_table};
}

}  // namespace allocstress
