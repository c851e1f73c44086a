// Shared record metrics (see record_metrics.hpp).
#include "cells/metrics/record_metrics.hpp"

namespace allocstress {

const Metric kNetCyclesPerPair{
    .name = "net_cycles_per_pair", .place = MetricPlace::record, .unit = "TSC cycles", .label = "net cycles/pair", .decimals = 1,
    .definition = "cycles_per_pair minus the void baseline's at the same workload, threads, repetition and seed (added when the results "
    "file is assembled): the allocator's own cost per malloc/free pair, including the cache misses its placement causes; "
    "null without an ok baseline record.",
    .headline = true, .in_table = true};
const Metric kNetNsPerPair{.name = "net_ns_per_pair", .place = MetricPlace::record, .unit = "ns", .label = "net ns/pair", .decimals = 2,
                           .definition = "net_cycles_per_pair in nanoseconds (TSC cycles / the TSC rate calibrated over the measured phase).",
                           .in_table = true};
const Metric kCyclesPerPair{.name = "cycles_per_pair", .place = MetricPlace::record, .unit = "TSC cycles", .label = "raw cycles/pair",
                            .decimals = 1,
                            .definition = "TSC cycles of the measured phase summed over workers, per two operations (a malloc/free pair; "
                            "replay: two trace operations), before the baseline is subtracted.",
                            .in_table = true};
const Metric kOverheadRatio{.name = "overhead_ratio", .place = MetricPlace::record, .unit = "ratio", .label = "overhead ratio", .decimals = 3,
                            .definition = "(peak RSS of the measured phase - RSS before the first allocation) / peak live requested bytes: "
                            "memory the allocator kept per byte the workload asked for (harness memory, mapped before, does "
                            "not count); null when nothing was live, for the void baseline, and when the quotient is below 1 (the RSS grew "
                            "by less than was live: blocks not resident, so no overhead; the quotient is then in "
                            "overhead_ratio_measured and the reason in overhead_ratio_invalid, and the tables say invalid).",
                            .in_table = true};
const Metric kPeakRss{.name = "peak_rss_bytes", .place = MetricPlace::record, .unit = "bytes", .label = "peak RSS MiB", .decimals = 1,
                      .definition = "Peak resident set size of the measured phase (VmHWM, reset right before it).", .mib = true, .in_table = true};

const Metric kThpCoverage{.name = "thp_coverage", .place = MetricPlace::record, .unit = "fraction", .label = "THP coverage", .decimals = 2,
                          .definition = "Hugepage coverage of the process over the timed work: the median over readings of /proc/self/smaps_rollup "
                          "every 50 ms (or slower: the sampler keeps its own cost under 1%) of AnonHugePages / Anonymous (PMD-sized "
                          "transparent huge pages over resident anonymous memory; smaller multi-size THP folios are not counted there, "
                          "see hugepages.mthp); the record's hugepages block holds the timeline, the peak and the sampler's cost. Null "
                          "where smaps_rollup is unreadable or nothing was sampled (counts and simulated cells).",
                          .in_table = true};

const std::vector<const Metric*>& pair_cost_metrics() {
  static const std::vector<const Metric*> metrics = {&kNetCyclesPerPair, &kNetNsPerPair, &kCyclesPerPair, &kOverheadRatio, &kPeakRss, &kThpCoverage};
  return metrics;
}

std::vector<const Metric*> pair_cost_metrics_and(std::vector<const Metric*> own) {
  std::vector<const Metric*> all = pair_cost_metrics();
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

}  // namespace allocstress
