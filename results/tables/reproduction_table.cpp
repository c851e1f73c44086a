// The Markdown summary's reproduction section (contract: table_parts.hpp; the intervals:
// reproduction.hpp).
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

void reproduction_table(std::ostringstream& md, const Json& context, const Aggregates& agg) {
  if (!context.contains("reproduction_calibration")) return;  // files from before calibrations existed
  const Json& cal = context.at("reproduction_calibration");
  if (cal.contains("n/a")) {
    md << "\nReproduction intervals: n/a (" << cal.at("n/a").get<std::string>() << ").\n";
    return;
  }
  md << "\n### Reproduction\n\nWhere another run of this matrix on this host should put each median, with probability "
     << fixed(Json(100 * cal.at("level").get<double>()), 0) << "%: the distribution-free prediction interval of another run's median, "
     << "its sides widened by " << fixed(cal.at("factor"), 2) << ", the factor measured by `allocstress calibrate` from "
     << cal.at("runs").get<std::size_t>() << " runs (" << cal.at("pairs").get<std::size_t>() << " pairs of runs and cells; "
     << cal.at("file").get<std::string>() << ", " << cal.value("created", "") << "). It covers the drift of the whole machine "
     << "between runs, which the interval of the median does not.\n";
  std::ostringstream rows;
  std::string metric_label;  // the one metric of every row, as the header names it, or "" when they differ
  bool first = true;
  for (const CellKey& key : agg.order) {
    const Json* med = agg.get(key, "median");
    if (med == nullptr || !med->contains("reproduction")) continue;
    const Json& r = med->at("reproduction");
    const std::string metric = r.at("metric").get<std::string>();
    const std::string label = metric == "net_ns_per_pair" ? "net ns/pair" : metric;
    metric_label = first || metric_label == label ? label : "";
    first = false;
    rows << "| " << key.workload << " | " << key.threads << " | " << key.allocator << " | " << fixed(med->value(metric, Json()), 1)
         << " | "
         << (r.at("low").is_number() ? "[" + fixed(r.at("low"), 1) + ", " + fixed(r.at("high"), 1) + "]"
                                     : "n/a (" + r.value("reason", std::string("no interval")) + ")")
         << " |\n";
  }
  if (rows.str().empty()) {
    md << "\nNo timing cell of this run has one.\n";
    return;
  }
  const std::string unit = metric_label.empty() ? "" : ", " + metric_label;
  md << "\n| workload | threads | allocator | median" << unit << " | another run's median" << unit << " |\n|---|---:|---|---:|---|\n"
     << rows.str() << "\nIn net ns/pair where the workload is net of void, else in its headline metric (the verdict above is in cycles).\n";
}

}  // namespace allocstress::table_parts
