// The verdict at the top of the Markdown summary: per workload and thread count, the allocators
// ranked by the median of the headline metric with their intervals, "<" where two neighbours'
// intervals do not overlap and "≈" where they do (indistinguishable at this precision); then the
// counts tier's ranking, which is exact and identical on every run.
#include <algorithm>

#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"
#include "results/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

struct Ranked {
  std::string allocator;
  double median, low, high;
};

// "a 1.0 [0.9, 1.1] < b 2.0 [...] ≈ c ...": costs ascending.
std::string chain(std::vector<Ranked> rows, const Metric& m) {
  std::stable_sort(rows.begin(), rows.end(), [](const Ranked& a, const Ranked& b) { return a.median < b.median; });
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += rows[i - 1].high < rows[i].low ? " < " : " ≈ ";
    out += "**" + rows[i].allocator + "** " + fixed(Json(rows[i].median), m.decimals) + " [" + fixed(Json(rows[i].low), m.decimals) + ", " +
           fixed(Json(rows[i].high), m.decimals) + "]";
  }
  return out;
}

void timing_lines(std::ostringstream& md, const std::string& workload, const Aggregates& agg) {
  const WorkloadEntry* entry = find_workload(workload);
  const Metric* m = entry != nullptr ? headline_metric(*entry) : nullptr;
  if (m == nullptr || m->place != MetricPlace::record) return;
  std::vector<unsigned> threads;
  for (const CellKey& key : agg.order)
    if (std::get<0>(key) == workload && std::find(threads.begin(), threads.end(), std::get<2>(key)) == threads.end())
      threads.push_back(std::get<2>(key));
  for (unsigned t : threads) {
    std::vector<Ranked> rows;
    double lowest_level = 1;
    std::size_t without = 0;
    for (const CellKey& key : agg.order) {
      if (std::get<0>(key) != workload || std::get<2>(key) != t || (entry->void_baseline && std::get<1>(key) == "void")) continue;
      const Json& med = *agg.get(key, "median");
      const Json& iv = med.value("intervals", Json::object()).value(std::string(m->name), Json());
      if (!iv.is_object() || !med.value(std::string(m->name), Json()).is_number()) {
        ++without;
        continue;
      }
      rows.push_back({std::get<1>(key), med.at(std::string(m->name)).get<double>(), iv.at("low").get<double>(), iv.at("high").get<double>()});
      lowest_level = std::min(lowest_level, iv.at("level").get<double>());
    }
    if (rows.empty()) continue;
    md << "- **" << workload << ", " << t << " thread" << (t == 1 ? "" : "s") << "**, timing (" << m->label << ", median [interval], levels "
       << fixed(Json(100 * lowest_level), 1) << "% or more): " << chain(rows, *m);
    if (without > 0) md << " (" << without << " allocator(s) without an interval: fewer than 2 processes)";
    md << "\n";
  }
}

void counts_line(std::ostringstream& md, const std::string& workload, const Json& benchmarks) {
  std::vector<Ranked> rows;
  for (const auto& e : benchmarks)
    if (is_ok_counts_record(e) && e.value("workload", "") == workload && e.at("allocator") != "void") {
      const Json& v = e.at("counts").value("net_estimated_cycles_per_unit", Json());
      if (v.is_number()) rows.push_back({e.at("allocator").get<std::string>(), v.get<double>(), v.get<double>(), v.get<double>()});
    }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const Ranked& a, const Ranked& b) { return a.median < b.median; });
  md << "- **" << workload << ", counts tier** (net estimated cycles/pair, 1 thread; exact, the same on every run): ";
  for (std::size_t i = 0; i < rows.size(); ++i)
    md << (i == 0 ? "" : rows[i - 1].median < rows[i].median ? " < " : " = ") << "**" << rows[i].allocator << "** " << fixed(Json(rows[i].median), 1);
  md << "\n";
}

}  // namespace

void verdict(std::ostringstream& md, const std::vector<std::string>& workloads, const Json& benchmarks, const Aggregates& agg) {
  std::ostringstream lines;
  for (const auto& w : workloads) {
    timing_lines(lines, w, agg);
    counts_line(lines, w, benchmarks);
  }
  if (lines.str().empty()) return;
  md << "\n### Verdict\n\nCheapest first. `<`: the two intervals do not overlap; `≈`: they overlap, so this run cannot tell the two "
        "apart (rank those by the counts tier, or run more processes: `--target-ci`).\n\n"
     << lines.str();
}

}  // namespace allocstress::table_parts
