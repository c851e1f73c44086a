// The metric catalogue (see metric_catalogue.hpp).
#include "cells/metrics/metric_catalogue.hpp"

#include <stdexcept>

#include "cells/workload_registry.hpp"

namespace allocstress {

std::string_view to_string(MetricPlace place) {
  switch (place) {
    case MetricPlace::record: return "record";
    case MetricPlace::workload_metrics: return "workload_metrics";
    case MetricPlace::placement_metrics: return "placement_metrics";
  }
  return "record";
}

std::vector<CatalogueEntry> metric_catalogue() {
  std::vector<CatalogueEntry> out;
  for (const WorkloadEntry* w : workload_registry())
    for (const Metric* m : w->metrics) {
      CatalogueEntry* found = nullptr;
      for (CatalogueEntry& e : out)
        if (e.metric->name == m->name && e.metric->place == m->place) found = &e;
      if (found != nullptr && found->metric != m)
        throw std::logic_error("metric " + std::string(m->name) + " (" + std::string(to_string(m->place)) +
                               ") is declared twice, with two definitions: " + std::string(w->name) + " lists the second");
      if (found == nullptr) out.push_back({m, {}});
      (found != nullptr ? found : &out.back())->workloads.emplace_back(w->name);
    }
  return out;
}

nlohmann::json metric_catalogue_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const CatalogueEntry& e : metric_catalogue()) {
    const Metric& m = *e.metric;
    out.push_back({{"name", m.name},
                   {"place", to_string(m.place)},
                   {"unit", m.unit},
                   {"label", m.label},
                   {"decimals", m.decimals},
                   {"mib", m.mib},
                   {"definition", m.definition},
                   {"headline", m.headline},
                   {"memory_headline", m.memory_headline},
                   {"in_table", m.in_table},
                   {"workloads", e.workloads}});
  }
  return out;
}

namespace {

// "alloc-test, xthread, ..." or "every workload that ..." when it is all of a kind.
std::string workload_text(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string metric_catalogue_markdown() {
  std::string md =
      "| metric | in the record | unit | carried by | definition |\n"
      "|---|---|---|---|---|\n";
  for (const CatalogueEntry& e : metric_catalogue()) {
    const Metric& m = *e.metric;
    const std::string where = m.place == MetricPlace::record ? "top level" : std::string(to_string(m.place));
    md += "| `" + std::string(m.name) + "`" + (m.headline ? " (headline)" : "") + (m.memory_headline ? " (memory headline)" : "") + " | " + where + " | " + std::string(m.unit) + " | " +
          workload_text(e.workloads) + " | " + std::string(m.definition) + " |\n";
  }
  return md;
}

}  // namespace allocstress
