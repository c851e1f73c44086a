// The Markdown summary's reproduction section (contract: table_parts.hpp; the intervals:
// reproduction.hpp).
#include "results/table_parts.hpp"

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
  for (const CellKey& key : agg.order) {
    const Json* med = agg.get(key, "median");
    if (med == nullptr || !med->contains("reproduction")) continue;
    const Json& r = med->at("reproduction");
    const std::string metric = r.at("metric").get<std::string>();
    rows << "| " << std::get<0>(key) << " | " << std::get<2>(key) << " | " << std::get<1>(key) << " | " << fixed(med->value(metric, Json()), 1)
         << " | "
         << (r.at("low").is_number() ? "[" + fixed(r.at("low"), 1) + ", " + fixed(r.at("high"), 1) + "]"
                                     : "n/a (" + r.value("reason", std::string("no interval")) + ")")
         << " |\n";
  }
  if (rows.str().empty()) {
    md << "\nNo timing cell of this run has one.\n";
    return;
  }
  md << "\n| workload | threads | allocator | median | another run's median |\n|---|---:|---|---:|---|\n"
     << rows.str() << "\nMedian and interval: net ns/pair where the workload is net of void, else its headline metric.\n";
}

}  // namespace allocstress::table_parts
