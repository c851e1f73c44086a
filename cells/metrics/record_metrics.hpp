// The metrics of the record fields that many workloads share (cell_record.hpp writes them; the
// net ones are added when a results file is assembled), for the workloads' registry entries to
// list.  Each workload's own metrics are declared in its cell file.
#pragma once

#include <vector>

#include "cells/metrics/metric.hpp"

namespace allocstress {

extern const Metric kNetCyclesPerPair, kNetNsPerPair, kCyclesPerPair, kOverheadRatio, kPeakRss;

// A workload counted in malloc/free pairs with a void baseline: net cycles/pair (its headline),
// net ns/pair, raw cycles/pair, overhead ratio, peak RSS.
const std::vector<const Metric*>& pair_cost_metrics();
// pair_cost_metrics() followed by `own`.
std::vector<const Metric*> pair_cost_metrics_and(std::vector<const Metric*> own);

}  // namespace allocstress
