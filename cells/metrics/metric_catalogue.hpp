// The metric catalogue: every metric a workload's records carry (registry entries list them),
// once, with the workloads that carry it.  The C++ Markdown tables (results/), the Python package
// (through allocstress._core) and the generated section of results/README.md read it; a test holds
// it to what real records carry, in both directions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cells/metrics/metric.hpp"

namespace allocstress {

struct CatalogueEntry {
  const Metric* metric;
  std::vector<std::string> workloads;  // registry order
};

// In the order the registry first lists each metric.  Throws std::logic_error when two different
// Metric declarations share a place and name (one figure must have one definition).
std::vector<CatalogueEntry> metric_catalogue();

// [{"name", "place", "unit", "label", "decimals", "mib", "definition", "headline", "memory_headline", "in_table", "workloads"}]
nlohmann::json metric_catalogue_json();

// The Markdown section results/README.md carries between its "metric catalogue" markers.
std::string metric_catalogue_markdown();

std::string_view to_string(MetricPlace place);  // "record", "workload_metrics", "placement_metrics"

}  // namespace allocstress
