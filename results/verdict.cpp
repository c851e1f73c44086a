// The verdict at the top of the Markdown summary (and of the HTML report, through _core).  Per
// workload and thread count:
//   - cost: allocators ranked by the median of the workload's headline metric, each with its
//     interval of the median; consecutive allocators whose intervals overlap pairwise form one
//     tied group (this run cannot order them).  One sentence per group: its members, "indistinguishable
//     from each other" where there are several, and each member's ratio against system (glibc) with
//     the ratio's interval (results_summary.hpp: speed_vs_system_interval);
//   - memory: the same grouping on the overhead ratio (lower is leaner), then, where the run has
//     them, the aged heap's penalty and the other THP modes (variant_tables.cpp), and the soak
//     cells' RSS drift (soak_tables.cpp; also at thread counts without timing cells);
// then the counts tier's ranking, which is exact and identical on every run.  Figures whose
// interval is wider than ±10% of the median carry a dagger (unstable).
#include <algorithm>

#include "cells/workload_registry.hpp"
#include "platform/statistics.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

struct Ranked {
  std::string allocator;
  double median, low, high;
  bool unstable;
  std::string versus;      // the ratio against system in words ("" for memory and where there is none)
  bool reference = false;  // system itself
};

constexpr const char* kIndistinguishableFromSystem = "indistinguishable from system";

// Intervals with a NaN bound are taken as overlapping (nothing orders them), as before.
bool overlap(const Ranked& a, const Ranked& b) {
  const std::optional<IntervalOrder> order = interval_order(a.low, a.high, b.low, b.high);
  return !order || *order == IntervalOrder::overlap;
}

// Ascending medians cut into groups whose members' intervals overlap pairwise.
std::vector<std::vector<Ranked>> tied_groups(std::vector<Ranked> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Ranked& a, const Ranked& b) { return a.median < b.median; });
  std::vector<std::vector<Ranked>> groups;
  for (const Ranked& r : rows) {
    if (!groups.empty() && std::all_of(groups.back().begin(), groups.back().end(), [&](const Ranked& m) { return overlap(m, r); }))
      groups.back().push_back(r);
    else
      groups.push_back({r});
  }
  return groups;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

// Phrases "2.10× [...] cheaper than system" of several members share their ending: said once.
std::string versus_sentence(const std::vector<std::string>& phrases) {
  for (const std::string ending : {" cheaper than system", " more expensive than system"}) {
    if (!std::all_of(phrases.begin(), phrases.end(), [&](const std::string& p) { return p.ends_with(ending); })) continue;
    std::vector<std::string> heads;
    for (const std::string& p : phrases) heads.push_back(p.substr(0, p.size() - ending.size()));
    return joined(heads) + ending;
  }
  return joined(phrases);
}

// "- 1: **a** 1.0 [0.9, 1.1] and **b** 1.2 [...]†: indistinguishable from each other; 2.10× [...] and 2.00× [...] cheaper than system"
void group_lines(std::ostringstream& md, const std::vector<std::vector<Ranked>>& groups, int decimals) {
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const bool with_reference = std::any_of(groups[g].begin(), groups[g].end(), [](const Ranked& r) { return r.reference; });
    std::vector<std::string> members, versus;
    for (const Ranked& r : groups[g]) {
      members.push_back("**" + r.allocator + "** " + fixed(Json(r.median), decimals) + (r.unstable ? "†" : "") + " [" +
                        fixed(Json(r.low), decimals) + ", " + fixed(Json(r.high), decimals) + "]" + (r.reference ? " (reference)" : ""));
      // "indistinguishable from system" says nothing more in system's own group
      if (!r.versus.empty() && !(with_reference && r.versus == kIndistinguishableFromSystem)) versus.push_back(r.versus);
    }
    md << "- " << g + 1 << ": " << joined(members);
    std::vector<std::string> said;
    if (groups[g].size() > 1) said.push_back("indistinguishable from each other");
    if (!versus.empty()) said.push_back(versus_sentence(versus));
    for (std::size_t i = 0; i < said.size(); ++i) md << (i == 0 ? ": " : "; ") << said[i];
    md << "\n";
  }
}

// The allocator's ratio against system in words, with its interval: "2.10× [1.90, 2.30] cheaper
// than system", "1.40× [1.20, 1.70] more expensive than system", "indistinguishable from system".
std::string versus_system_words(const Json& median) {
  const Json& verdict = median.value("vs_system", Json());
  const Json& speed = median.value("speed_vs_system", Json());
  const Json& iv = median.value("speed_vs_system_interval", Json());
  if (verdict == "indistinguishable") return kIndistinguishableFromSystem;
  if (!speed.is_number() || !iv.is_object() || verdict.is_null()) return "";
  const bool cheaper = verdict == "faster";
  const double low = iv.at("low").get<double>();
  const Json& high = iv.at("high");
  // A cost ratio is the inverse of the speed ratio: its interval is [1 / high, 1 / low].
  const double value = cheaper ? speed.get<double>() : 1 / speed.get<double>();
  const Json lo = cheaper ? Json(low) : high.is_number() ? Json(1 / high.get<double>()) : Json(0.0);
  const Json hi = cheaper ? high : Json(1 / low);
  return ratio_text(value) + "× [" + ratio_text(lo.get<double>()) + ", " + (hi.is_number() ? ratio_text(hi.get<double>()) : "unbounded") +
         "] " + (cheaper ? "cheaper than" : "more expensive than") + " system";
}

// Allocators left out of every ranking (non-conforming), set by verdict() for the lines below.
using LeftOut = std::map<std::string, std::string>;

void cost_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Metric& m, const Aggregates& agg,
                bool net_of_void, const LeftOut& left_out) {
  std::vector<Ranked> rows;
  double lowest_level = 1, lowest_ratio_level = 1;
  bool any_ratio = false;
  std::size_t without = 0;
  for (const CellKey& key : agg.order) {
    if (key.workload != workload || key.threads != threads || (net_of_void && key.allocator == kBaselineAllocator) ||
        left_out.count(key.allocator))
      continue;
    const Json& med = *agg.get(key, "median");
    const Json& iv = med.value("intervals", Json::object()).value(std::string(m.name), Json());
    if (!iv.is_object() || !metric_value(med, metric_pointer(workload, std::string(m.name))).is_number()) {
      ++without;
      continue;
    }
    const bool reference = key.allocator == kReferenceAllocator;
    const std::string versus = reference ? "" : versus_system_words(med);
    if (const Json& r = med.value("speed_vs_system_interval", Json()); r.is_object() && versus.find('[') != std::string::npos) {
      any_ratio = true;
      lowest_ratio_level = std::min(lowest_ratio_level, r.at("level_at_least").get<double>());
    }
    rows.push_back({key.allocator, metric_value(med, metric_pointer(workload, std::string(m.name))).get<double>(), iv.at("low").get<double>(),
                    iv.at("high").get<double>(), is_unstable(iv), versus, reference});
    lowest_level = std::min(lowest_level, iv.at("level").get<double>());
  }
  if (rows.empty()) return;
  md << "\n**" << workload << ", " << threads << " thread" << (threads == 1 ? "" : "s") << "**: cost in " << m.label
     << ", cheapest first (median [interval of the median, order statistics, level " << fixed(Json(100 * lowest_level), 1)
     << "% or more]" << (any_ratio ? "; ratios against system, level " + fixed(Json(100 * lowest_ratio_level), 1) + "% or more" : "")
     << ")\n";
  group_lines(md, tied_groups(rows), m.decimals);
  if (without > 0) md << "- not ranked: " << without << " allocator(s) without an interval (fewer than 2 processes)\n";
}

// The memory line ranks by the workload's memory metric (results_summary.hpp memory_metric): the
// overhead ratio, or the workload's own memory headline (a program's peak RSS).
void memory_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Aggregates& agg, const LeftOut& left_out) {
  const std::string metric = memory_metric(workload);
  const Json::json_pointer where = metric_pointer(workload, metric);
  const WorkloadEntry* entry = find_workload(workload);
  const Metric* own = entry != nullptr ? memory_headline_metric(*entry) : nullptr;
  std::vector<Ranked> rows;
  std::vector<std::string> invalid;
  double lowest_level = 1;
  for (const CellKey& key : agg.order) {
    if (key.workload != workload || key.threads != threads || key.allocator == kBaselineAllocator || left_out.count(key.allocator))
      continue;
    const Json& med = *agg.get(key, "median");
    if (own == nullptr && med.contains("overhead_ratio_invalid")) invalid.push_back(key.allocator);
    const Json& iv = med.value("intervals", Json::object()).value(metric, Json());
    const Json& value = metric_value(med, where);
    if (!iv.is_object() || !value.is_number()) continue;
    rows.push_back({key.allocator, value.get<double>(), iv.at("low").get<double>(), iv.at("high").get<double>(), is_unstable(iv), ""});
    lowest_level = std::min(lowest_level, iv.at("level").get<double>());
  }
  if (rows.empty()) return;
  const std::string what = own != nullptr ? std::string(own->label) : std::string("overhead ratio (peak RSS growth per live byte)");
  md << "\n**" << workload << ", " << threads << " thread" << (threads == 1 ? "" : "s") << "**: memory, " << what
     << ", leanest first (median [interval of the median, order statistics, level " << fixed(Json(100 * lowest_level), 1) << "% or more])\n";
  group_lines(md, tied_groups(rows), own != nullptr ? own->decimals : 2);
  if (!invalid.empty()) md << "- not ranked: " << joined(invalid) << " (overhead ratio invalid: below 1)\n";
}

// A program's own figure (its definition's metric, read from its output): ranked best first --
// highest first where higher is better -- in groups of overlapping intervals, like the cost.
void program_metric_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& metric, const Aggregates& agg,
                          const LeftOut& left_out) {
  const std::string name = metric.value("name", "");
  const bool higher = metric.value("better", "higher") == "higher";
  const std::string unit = metric.value("unit", "");
  std::vector<Ranked> rows;
  double lowest_level = 1;
  for (const CellKey& key : agg.order) {
    if (key.workload != workload || key.threads != threads || left_out.count(key.allocator)) continue;
    const Json& med = *agg.get(key, "median");
    const Json& iv = med.value("intervals", Json::object()).value(name, Json());
    const Json& value = med.value("workload_metrics", Json::object()).value(name, Json());
    if (!iv.is_object() || !value.is_number()) continue;
    const double v = value.get<double>(), low = iv.at("low").get<double>(), high = iv.at("high").get<double>();
    // Higher is better: grouped on the negated figures, so that the best comes first.
    rows.push_back({key.allocator, higher ? -v : v, higher ? -high : low, higher ? -low : high, is_unstable(iv), "",
                    key.allocator == kReferenceAllocator});
    lowest_level = std::min(lowest_level, iv.at("level").get<double>());
  }
  if (rows.empty()) return;
  std::vector<std::vector<Ranked>> groups = tied_groups(rows);
  if (higher)
    for (auto& g : groups)
      for (Ranked& r : g) r = {r.allocator, -r.median, -r.high, -r.low, r.unstable, r.versus, r.reference};
  md << "\n**" << workload << ", " << threads << " thread" << (threads == 1 ? "" : "s") << "**: " << name << (unit.empty() ? "" : " (" + unit + ")")
     << ", read from the program's output, " << (higher ? "highest" : "lowest") << " first (median [interval of the median, order statistics, level "
     << fixed(Json(100 * lowest_level), 1) << "% or more])\n";
  group_lines(md, groups, 2);
}

// The counts tier's ranking: net estimated cycles per pair; a real program (no void baseline): the
// estimated cycles of its whole run, with the instructions spent in allocator calls beside each.
void counts_line(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& benchmarks, const LeftOut& left_out) {
  const bool program = is_program_workload(workload);
  std::vector<Ranked> rows;
  for (const auto& e : benchmarks)
    if (is_ok_counts_record(e) && e.value("workload", "") == workload && e.value("threads", 0u) == threads &&
        e.at("allocator") != kBaselineAllocator && !left_out.count(e.at("allocator").get<std::string>())) {
      const Json& v = e.at("counts").value(program ? "estimated_cycles" : "net_estimated_cycles_per_unit", Json());
      const Json& own = e.at("counts").value("allocator_calls", Json::object()).value("instructions", Json());
      if (v.is_number())
        rows.push_back({e.at("allocator").get<std::string>(), v.get<double>(), v.get<double>(), v.get<double>(), false,
                        program && own.is_number() ? " (" + fixed(own, 0) + " instructions in allocator calls)" : ""});
    }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const Ranked& a, const Ranked& b) { return a.median < b.median; });
  std::string model;  // which costs priced the counts (machine_costs.hpp)
  for (const auto& e : benchmarks)
    if (is_ok_counts_record(e) && e.value("workload", "") == workload && e.at("counts").contains("cost_model")) {
      model = e.at("counts").at("cost_model").get<std::string>() + "; ";
      break;
    }
  if (program)
    md << "\n**" << workload << ", counts tier** (" << model << "estimated cycles of one run: callgrind's counts of every process of the program, plus the "
       << "faults and system calls of native runs; near-exact, each record's counts.reproducibility says how near): ";
  else
    md << "\n**" << workload << ", counts tier** (" << model << "net estimated cycles/pair, " << threads
       << (threads == 1 ? " thread; exact, the same on every run): " : " threads; near-exact, valgrind's interleaving of the workers can move a figure by a few percent): ");
  for (std::size_t i = 0; i < rows.size(); ++i)
    md << (i == 0 ? "" : rows[i - 1].median < rows[i].median ? " < " : " = ") << "**" << rows[i].allocator << "** "
       << fixed(Json(rows[i].median), program ? 0 : 1) << rows[i].versus;
  md << "\n";
}

// The thread counts of `workload`'s counts records, ascending.
std::vector<unsigned> counts_threads(const std::string& workload, const Json& benchmarks) {
  std::vector<unsigned> out;
  for (const auto& e : benchmarks)
    if (is_ok_counts_record(e) && e.value("workload", "") == workload) out.push_back(e.value("threads", 0u));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

void verdict(std::ostringstream& md, const std::vector<std::string>& workloads, const Json& benchmarks, const Aggregates& agg,
             const Json& safety) {
  const LeftOut left_out = nonconforming_allocators(benchmarks, safety);
  std::ostringstream lines;
  for (const auto& w : workloads) {
    const WorkloadEntry* entry = find_workload(w);
    const Metric* m = entry != nullptr ? headline_metric(*entry) : nullptr;
    const bool ranked = m != nullptr && !speed_metric(w).empty();
    // The thread counts of the timing cells, then of the soak cells (a soak may run without them).
    std::vector<unsigned> threads;
    const auto add = [&](unsigned t) {
      if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
    };
    if (ranked)
      for (const CellKey& key : agg.order)
        if (key.workload == w) add(key.threads);
    for (const auto& e : benchmarks)
      if (e.value("mode", "") == "soak" && e.value("workload", "") == w) add(e.value("threads", 0u));
    const Json own = ranked ? program_metrics_of(w, benchmarks) : Json::array();
    for (unsigned t : threads) {
      const auto before = lines.tellp();
      if (ranked) {
        cost_lines(lines, w, t, *m, agg, entry->void_baseline, left_out);
        memory_lines(lines, w, t, agg, left_out);
        variant_verdict_lines(lines, w, t, benchmarks);
      }
      std::ostringstream soak;
      soak_verdict_lines(soak, w, t, benchmarks);
      if (!soak.str().empty() && lines.tellp() == before)  // no ranking above to say where the soak line belongs
        lines << "\n**" << w << ", " << t << " thread" << (t == 1 ? "" : "s") << "**: memory over a soak\n";
      lines << soak.str();
      if (ranked)
        for (const Json& metric : own) program_metric_lines(lines, w, t, metric, agg, left_out);
    }
    for (unsigned t : counts_threads(w, benchmarks)) counts_line(lines, w, t, benchmarks, left_out);
  }
  if (!left_out.empty() && !lines.str().empty()) {
    lines << "\nLeft out of the rankings (non-conforming: a program may break under them, so no figure of theirs is comparable):\n";
    for (const auto& [name, why] : left_out) lines << "- **" << name << "**: " << why << "\n";
  }
  std::ostringstream safety_lines;
  safety_verdict_lines(safety_lines, safety, workloads, agg);
  if (lines.str().empty() && safety_lines.str().empty()) return;
  md << "\n### Verdict\n";
  if (lines.str().empty()) {  // a misuse battery alone: nothing ranked
    md << safety_lines.str();
    return;
  }
  md << "\nRanked groups: allocators in one group have pairwise overlapping intervals, so this run cannot order them "
        "(order them by the counts tier, or run more processes: `--target-ci`). A ratio against system is system's median over the "
        "allocator's, with the interval of system's interval over the allocator's. †: unstable, the interval is wider than ±"
     << fixed(Json(100 * kUnstableRelativeHalfWidth), 0) << "% of the median.\n"
     << lines.str() << safety_lines.str();
}

}  // namespace allocstress::table_parts
