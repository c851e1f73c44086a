// One workload's table in the Markdown summary: a row per (allocator, threads) with the median of
// every metric its registry entry marks in_table, in the entry's order; after the headline
// metric its coefficient of variation and, where the headline is a record field, its speed
// relative to the system allocator; for a workload with a companion (xthread: alloc-test) the
// ratio of its overhead to the companion's.  Under the table, each column's definition from the
// metric catalogue.  The void baseline's row of a workload net of void shows 0 by definition.
// The rows are table_rows() (TableRow: one row source, which summary_rows() gives Python as data).
#include <algorithm>
#include <cstdio>
#include <deque>

#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

const Json& value_of(const Json& aggregate, const Metric& m) {
  static const Json none;
  const Json* where = &aggregate;  // record and placement metrics (flattened into the aggregates)
  if (m.place == MetricPlace::workload_metrics) {
    const auto block = aggregate.find("workload_metrics");
    if (block == aggregate.end()) return none;
    where = &*block;
  }
  const auto it = where->find(std::string(m.name));
  return it == where->end() ? none : *it;
}

std::string shown(const Json& v, const Metric& m) { return m.mib ? mib(v, m.decimals) : fixed(v, m.decimals); }

// The workload's overhead ratio over its companion's at the same allocator and threads, with the
// interval of the two overhead intervals (this low / companion high, this high / companion low),
// or n/a.
std::string companion_ratio(const CellKey& key, const std::string& companion, const Json& median, const Aggregates& agg) {
  const Json* ref = agg.get(CellKey{companion, key.allocator, key.threads}, "median");
  if (ref == nullptr) return "n/a";
  const Json& a = ref->value("overhead_ratio", Json());
  const Json& x = median.value("overhead_ratio", Json());
  if (!a.is_number() || !x.is_number() || a.get<double>() <= 0) return "n/a";
  const Json& ai = ref->value("intervals", Json::object()).value("overhead_ratio", Json());
  const Json& xi = median.value("intervals", Json::object()).value("overhead_ratio", Json());
  const std::string value = fixed(Json(x.get<double>() / a.get<double>()), 3);
  if (!ai.is_object() || !xi.is_object() || ai.at("low").get<double>() <= 0) return value + " [n/a]";
  return value + " [" + fixed(Json(xi.at("low").get<double>() / ai.at("high").get<double>()), 3) + ", " +
         fixed(Json(xi.at("high").get<double>() / ai.at("low").get<double>()), 3) + "]";
}

// The columns of a program's own metrics (its definition's): Metric views into `text`, which
// holds their names, labels and definitions.
std::vector<Metric> definition_columns(const Json& metrics, std::deque<std::string>& text) {
  std::vector<Metric> out;
  for (const Json& m : metrics) {
    const std::string name = m.value("name", ""), unit = m.value("unit", "");
    const bool higher = m.value("better", "higher") == "higher";
    const std::string& n = text.emplace_back(name);
    const std::string& label = text.emplace_back(name + (unit.empty() ? "" : " " + unit) + (higher ? " (higher is better)" : " (lower is better)"));
    const std::string& definition =
        text.emplace_back("Read from the program's " + m.value("stream", std::string("stdout")) + " by the regex '" + m.value("regex", "") +
                          "' of its definition (" + m.value("combine", std::string("last")) + " match); " + (higher ? "higher" : "lower") +
                          " is better.");
    out.push_back({.name = n, .place = MetricPlace::workload_metrics, .unit = unit.empty() ? std::string_view("count") : std::string_view(text.emplace_back(unit)),
                   .label = label, .decimals = 2, .definition = definition, .in_table = true});
  }
  return out;
}

}  // namespace

Json program_metrics_of(const std::string& workload, const Json& benchmarks) {
  for (const auto& e : benchmarks)
    if (e.value("run_type", "") == "iteration" && e.value("workload", "") == workload)
      if (const Json& m = e.value("params", Json::object()).value("program", Json::object()).value("metrics", Json()); m.is_array()) return m;
  return Json::array();
}

std::string interval_text(const Json& median, const Metric& m) {
  const Json& iv = median.value("intervals", Json::object()).value(std::string(m.name), Json());
  if (!iv.is_object()) return "n/a";
  return "[" + shown(iv.at("low"), m) + ", " + shown(iv.at("high"), m) + "] (" + fixed(Json(100 * iv.at("level").get<double>()), 1) + "%)";
}

bool is_unstable(const Json& interval) {
  const Json& w = interval.is_object() ? interval.value("relative_half_width", Json()) : Json();
  return w.is_number() && is_unstable_half_width(w.get<double>());
}

std::string ratio_text(double ratio) { return fixed(Json(ratio), ratio < 10 ? 2 : 1); }

std::string versus_system_text(const Json& median) {
  if (median.value("vs_system", Json()) == "indistinguishable") return "indistinguishable";
  const Json& speed = median.value("speed_vs_system", Json());
  const Json& iv = median.value("speed_vs_system_interval", Json());
  if (!speed.is_number() || !iv.is_object()) return "n/a";
  const Json& high = iv.at("high");
  return ratio_text(speed.get<double>()) + " [" + ratio_text(iv.at("low").get<double>()) + ", " +
         (high.is_number() ? ratio_text(high.get<double>()) : std::string("unbounded")) + "]";
}

std::vector<TableRow> table_rows(const std::string& workload, const Aggregates& agg) {
  const WorkloadEntry* entry = find_workload(workload);
  if (entry == nullptr) return {};
  const Metric* headline = headline_metric(*entry);
  std::vector<TableRow> rows;
  for (const CellKey& key : agg.order) {
    if (key.workload != workload) continue;
    TableRow row{.workload = workload, .allocator = key.allocator, .threads = key.threads, .median = agg.get(key, "median"),
                 .cv = agg.get(key, "cv")};
    row.baseline = entry->void_baseline && row.allocator == kBaselineAllocator;
    row.reference = row.allocator == kReferenceAllocator;
    if (headline != nullptr) {
      const Json& med = *row.median;
      row.headline = row.baseline ? Json(0) : value_of(med, *headline);
      // void's spread is that of its raw cost (its net cost is 0)
      row.spread = row.cv == nullptr ? Json() : row.baseline ? row.cv->value("cycles_per_pair", Json()) : value_of(*row.cv, *headline);
      if (!row.spread.is_number()) row.spread = Json();
      row.unstable = !row.baseline && is_unstable(med.value("intervals", Json::object()).value(std::string(headline->name), Json()));
      row.interval = row.baseline ? "-" : interval_text(med, *headline);
      row.versus = row.baseline ? "-" : row.reference ? "reference" : versus_system_text(med);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Json table_row_json(const TableRow& row) {
  const Json& med = *row.median;
  const WorkloadEntry* entry = find_workload(row.workload);
  const Metric* headline = entry == nullptr ? nullptr : headline_metric(*entry);
  const Json interval = headline == nullptr ? Json() : med.value("intervals", Json::object()).value(std::string(headline->name), Json());
  return {{"workload", row.workload}, {"allocator", row.allocator}, {"threads", row.threads}, {"baseline", row.baseline},
          {"reference", row.reference}, {"nonconforming", med.contains("nonconforming")}, {"reps_ok", med.at("repetitions_ok")},
          {"disturbed", med.value("repetitions_disturbed", std::size_t{0})},
          {"metric", headline == nullptr ? Json() : Json(std::string(headline->name))}, {"median", row.headline}, {"cv", row.spread},
          {"interval", row.baseline ? Json() : interval}, {"interval_text", row.interval}, {"unstable", row.unstable},
          {"speed_vs_system", med.value("speed_vs_system", Json())}, {"speed_vs_system_interval", med.value("speed_vs_system_interval", Json())},
          {"vs_system", med.value("vs_system", Json())}, {"versus", row.versus}, {"columns", row.columns}};
}

void workload_table(std::ostringstream& md, const std::string& workload, const Json& benchmarks, const Aggregates& agg,
                    std::set<std::string>& defined) {
  const WorkloadEntry* entry = find_workload(workload);
  if (entry == nullptr) {
    md << "(" << workload << " is not a workload this allocstress knows: no table)\n";
    return;
  }
  // A column no cell has a figure for says nothing: a program's throughput where it reads none.
  auto any_figure = [&](const Metric& m) {
    for (const CellKey& key : agg.order)
      if (key.workload == workload && value_of(*agg.get(key, "median"), m).is_number()) return true;
    return false;
  };
  std::vector<const Metric*> columns;
  for (const Metric* m : entry->metrics)
    if (m->in_table && (entry->table != TableKind::program || m->name != "throughput" || any_figure(*m))) columns.push_back(m);
  std::deque<std::string> own_text;
  const std::vector<Metric> own = definition_columns(program_metrics_of(workload, benchmarks), own_text);
  for (const Metric& m : own)  // prog-redis's throughput is the entry's own column, under its name
    if (std::none_of(columns.begin(), columns.end(), [&](const Metric* c) { return c->name == m.name; })) columns.push_back(&m);
  const Metric* headline = headline_metric(*entry);
  const bool vs_system = headline != nullptr && !speed_metric(workload).empty();
  const std::string companion = entry->companions.empty() ? "" : std::string(entry->companions.front());

  md << "| allocator | threads | reps ok |";
  std::string rule = "|---|---:|---:|";
  for (const Metric* m : columns) {
    md << " " << m->label << " |";
    rule += "---:|";
    if (m == headline) {
      md << " CV % | interval (level) |" << (vs_system ? " vs system [interval] |" : "");
      rule += vs_system ? "---:|---:|---:|" : "---:|---:|";
    }
  }
  if (!companion.empty()) {
    md << " blowup vs " << companion << " [interval] |";
    rule += "---:|";
  }
  md << "\n" << rule << "\n";

  bool invalid_overhead = false, any_disturbed = false;
  for (const TableRow& row : table_rows(workload, agg)) {
    const Json& med = *row.median;
    const bool baseline = row.baseline;
    const std::size_t disturbed = med.value("repetitions_disturbed", std::size_t{0});
    md << "| " << row.allocator << (baseline ? " (baseline)" : "") << (med.contains("nonconforming") ? " (non-conforming, not ranked)" : "")
       << " | " << row.threads << " | " << med.at("repetitions_ok")
       << (disturbed > 0 ? " (+" + std::to_string(disturbed) + " disturbed)" : std::string()) << " |";
    any_disturbed = any_disturbed || disturbed > 0;
    for (const Metric* m : columns) {
      const bool net = std::string_view(m->name).starts_with("net_");
      if (baseline && m == headline) md << " 0 (by definition) |";
      else if (baseline && net) md << " 0 |";
      else if (baseline && (m->place == MetricPlace::workload_metrics || m->name == "overhead_ratio")) md << " - |";
      else if (m->name == "overhead_ratio" && med.contains("overhead_ratio_invalid")) {
        md << " invalid (< 1) |";
        invalid_overhead = true;
      }
      else md << " " << shown(value_of(med, *m), *m) << (m == headline && row.unstable ? "†" : "") << " |";
      if (m != headline) continue;
      md << " " << (row.spread.is_number() ? fixed(Json(100 * row.spread.get<double>()), 1) : std::string("n/a")) << " | " << row.interval << " |";
      if (vs_system) md << " " << row.versus << " |";
    }
    if (!companion.empty())
      md << " " << (baseline ? std::string("-") : companion_ratio(CellKey{workload, row.allocator, row.threads}, companion, med, agg)) << " |";
    md << "\n";
  }

  md << "\nMedians over the ok repetitions.";
  bool repeated = false;  // a column defined under an earlier table
  for (const Metric* m : columns) {
    if (defined.insert(std::string(m->label)).second) md << " **" << m->label << "**: " << m->definition;
    else repeated = true;
  }
  if (headline != nullptr) {
    md << " **CV %**: coefficient of variation of " << headline->label << " over repetitions, in percent of the mean";
    md << (entry->void_baseline ? " (of raw cycles/pair for void)." : ".");
    md << " **interval (level)**: a distribution-free interval of the median (order statistics) with its real coverage, which is "
          "below 95% with 5 or fewer processes; **†** marks an unstable figure, whose interval is wider than ±"
       << fixed(Json(100 * kUnstableRelativeHalfWidth), 0) << "% of its median"
       << (entry->void_baseline ? "; each value is one allocator process minus the void process of the same repetition, so void's own "
                                  "spread is inside."
                                : ".");
    if (vs_system)
      md << " **vs system [interval]**: median " << headline->label << " of system / of this allocator: > 1 is cheaper than glibc; "
            "the interval is system's interval over this allocator's (it holds the ratio whenever both intervals hold their medians: "
            "level at least the sum of both levels - 1; unbounded where this allocator's interval reaches 0); **indistinguishable** "
            "where the two intervals overlap (no ranking).";
  }
  if (repeated) md << " Columns defined under an earlier table mean the same here.";
  if (invalid_overhead)
    md << " **invalid (< 1)**: the RSS grew by less than the live bytes in some repetition (blocks not resident, e.g. "
          "`--access none`): no memory overhead, not ranked (the reason is in each record's overhead_ratio_invalid).";
  if (any_disturbed)
    md << " **disturbed**: processes during which another task held a worker's CPU (or the hypervisor stole it, or a pinned "
          "worker migrated); left out of every figure here (each record's interference block says why).";
  if (!companion.empty())
    md << " **blowup vs " << companion << " [interval]**: this overhead ratio / " << companion << "'s at the same allocator and threads ("
       << entry->companion_reason << "); the interval is this cell's interval of the overhead ratio over " << companion
       << "'s (level at least the sum of both levels - 1; n/a without both).";
  md << "\n";
}

}  // namespace allocstress::table_parts
