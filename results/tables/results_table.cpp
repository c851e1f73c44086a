// Renders the Markdown summary: the verdict (verdict.cpp), one table per workload from the aggregate entries
// (workload_tables.cpp), the simulated-cache and profile tables (mode_tables.cpp), then what was
// not measured and the warnings.
#include "results/tables/results_table.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"
#include "results/tables/cell_warnings.hpp"
#include "results/tables/table_parts.hpp"
#include "results/tables/timing_cells.hpp"

namespace allocstress {

namespace table_parts {

const Json* Aggregates::get(const CellKey& key, const std::string& stat) const {
  const auto cell = by_cell.find(key);
  if (cell == by_cell.end()) return nullptr;
  const auto it = cell->second.find(stat);
  return it == cell->second.end() ? nullptr : it->second;
}

std::string fixed(const Json& v, int decimals) {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  return buf;
}

std::string mib(const Json& bytes, int decimals) {
  return fixed(bytes.is_number() ? Json(bytes.get<double>() / 1048576.0) : Json(), decimals);
}

// The aggregate entries `benchmarks` records (table_parts.hpp).
Aggregates aggregates_of(const Json& benchmarks) {
  Aggregates agg;
  for (const auto& e : benchmarks) {
    if (e.at("run_type") != "aggregate") continue;
    const CellKey key{e.at("workload").get<std::string>(), e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()};
    if (agg.by_cell[key].empty()) agg.order.push_back(key);
    agg.by_cell[key][e.at("aggregate_name").get<std::string>()] = &e;
  }
  return agg;
}

}  // namespace table_parts

namespace {

using namespace table_parts;

// "Warnings of single cells": each group of cell_warning_groups() on a line, with the allocators
// whose cells gave it and how many of each cell's processes did.
void cell_warnings(std::ostringstream& md, const Json& benchmarks) {
  const std::vector<CellWarningGroup> groups = cell_warning_groups(benchmarks);
  if (groups.empty()) return;
  md << "\nWarnings of single cells:\n";
  for (const CellWarningGroup& g : groups) {
    std::string who;
    for (const auto& c : g.cells)
      who += (who.empty() ? "" : ", ") + c.allocator + " (" + std::to_string(c.with) + " of " + std::to_string(c.of) + ")";
    md << "- " << g.workload << " at " << g.threads << " thread" << (g.threads == 1 ? "" : "s")
       << (g.mode == "timing" ? "" : ", " + g.mode + " cells") << ": " << g.text << ": " << who << " process(es)\n";
  }
}

// What the workload's parameters were: its registry entry describes them.
std::string params_line(const std::string& workload, const Json& plan) {
  const WorkloadEntry* e = find_workload(workload);
  const Json& params = plan.value("workload_params", Json::object()).value(workload, Json());
  return e != nullptr && params.is_object() ? e->describe(params) : "(parameters not recorded)";
}

}  // namespace

std::string counts_markdown(const Json& results) {
  declare_programs_of(results);
  std::ostringstream md;
  counts_table(md, results.at("benchmarks"), aggregates_of(results.at("benchmarks")));
  return md.str();
}

Json summary_rows(const Json& results) {
  declare_programs_of(results);
  const Json& benchmarks = results.at("benchmarks");
  const Aggregates recorded = aggregates_of(benchmarks);
  const CellRecords records = cell_records(benchmarks);
  std::vector<Json> store;
  const Aggregates chosen = chosen_aggregates(benchmarks, recorded, records, store);
  std::vector<std::string> workloads;  // in the order their cells first appear
  for (const CellKey& key : chosen.order)
    if (std::find(workloads.begin(), workloads.end(), key.workload) == workloads.end()) workloads.push_back(key.workload);
  Json rows = Json::array();
  for (const std::string& w : workloads) {
    const WorkloadEntry* entry = find_workload(w);
    const bool net = entry != nullptr && entry->void_baseline;
    for (TableRow& row : table_rows(w, net ? chosen : recorded)) {
      if (net) row.columns = summary_columns(row, chosen, records);
      rows.push_back(table_row_json(row));
    }
  }
  return rows;
}

std::string memory_markdown(const Json& results) {
  std::ostringstream md;
  memory_tables(md, results.at("benchmarks"));
  return md.str();
}

std::string verdict_markdown(const Json& results) {
  declare_programs_of(results);
  // Files of schema version 1 have no plan.workloads: their entries name the workload (alloc-test).
  std::vector<std::string> workloads;
  const Json& plan = results.at("context").value("plan", Json::object());
  if (plan.contains("workloads")) workloads = plan.at("workloads").get<std::vector<std::string>>();
  for (const auto& e : results.at("benchmarks"))
    if (const std::string w = e.value("workload", "alloc-test"); std::find(workloads.begin(), workloads.end(), w) == workloads.end())
      workloads.push_back(w);
  std::ostringstream md;
  const Aggregates agg = aggregates_of(results.at("benchmarks"));
  verdict(md, workloads, results.at("benchmarks"), agg, results.value("safety", Json()));
  reproduction_table(md, results.at("context"), agg);
  return md.str();
}

std::string markdown_table(const Json& results) {
  declare_programs_of(results);
  const Json& ctx = results.at("context");
  const Json& plan = ctx.at("plan");
  const std::vector<std::string> workloads = plan.at("workloads").get<std::vector<std::string>>();
  std::string names;
  for (const auto& w : workloads) names += (names.empty() ? "" : ", ") + w;
  std::ostringstream md;
  md << "## allocstress: " << names << ", preset " << plan.at("preset").get<std::string>() << "\n\n"
     << "Machine: " << ctx.value("cpu_model", "?") << ", " << ctx.value("num_cpus", 0) << " PUs; THP "
     << ctx.value("thp_mode", "?") << "; " << ctx.value("date", "") << "; commit " << ctx.value("git_commit", "?") << "; "
     << plan.at("repetitions") << " repetitions, placement " << plan.at("placement").get<std::string>() << "\n";
  // A configuration is a library with settings: say which, under its name.
  bool any_configuration = false;
  for (const char* list : {"allocators", "excluded"})
    for (const auto& entry : plan.value(list, Json::array())) {
      const Json& a = entry.contains("allocator") ? entry.at("allocator") : entry;
      const Json settings = a.value("environment", Json::object());
      if (settings.empty()) continue;
      std::string text;
      for (const auto& [name, value] : settings.items()) text += " " + name + "=" + value.get<std::string>();
      md << (any_configuration ? "" : "\nConfigurations (an allocator's library with settings):\n") << "- " << a.value("name", "?") << ": "
         << a.value("library", "?") << " with" << text << "\n";
      any_configuration = true;
    }

  const Aggregates agg = aggregates_of(results.at("benchmarks"));
  std::map<CellKey, std::vector<const Json*>> unmeasured, disturbed;
  for (const auto& e : results.at("benchmarks")) {
    if (const std::string mode = e.value("mode", "");
        e.at("run_type") == "aggregate" || mode == "limited" || mode == "aged" || mode == "thp" || mode == "soak")
      continue;  // their own tables (memory_tables.cpp), which list their cells that did not run
    const CellKey key{e.at("workload").get<std::string>(), e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()};
    if (e.at("status") != "ok") {
      unmeasured[key].push_back(&e);
    } else if (is_timing_record(e) && is_disturbed_record(e)) {
      disturbed[key].push_back(&e);
    }
  }
  // A cell whose every ok process was disturbed has no aggregate, so no row: say so with the rest.
  for (const auto& [key, entries] : disturbed)
    if (agg.get(key, "median") == nullptr) unmeasured[key] = entries;
  verdict(md, workloads, results.at("benchmarks"), agg, results.value("safety", Json()));
  reproduction_table(md, ctx, agg);
  std::set<std::string> defined;  // column definitions given under an earlier table
  for (const auto& w : workloads) {
    md << "\n### " << w << "\n\nWorkload: " << params_line(w, plan) << "\n\n";
    workload_table(md, w, results.at("benchmarks"), agg, defined);
  }
  counts_table(md, results.at("benchmarks"), agg);
  simulation_table(md, results.at("benchmarks"), agg);
  profile_table(md, results.at("benchmarks"));
  memory_tables(md, results.at("benchmarks"));
  safety_table(md, results.value("safety", Json()));

  std::set<std::string> noted;
  for (const auto& [key, entries] : unmeasured) {
    const Json& first = *entries.front();
    const bool was_disturbed = first.at("status") == "ok";  // ok but disturbed: the first reason it gives
    const Json& why = was_disturbed ? first.at("interference").at("disturbed_by") : Json();
    const std::string reason = !was_disturbed ? first.value("reason", "") : why.empty() ? "disturbed" : why.front().get<std::string>();
    const std::string line = "- " + key.allocator + " x " + key.workload + " at " + std::to_string(key.threads) +
                             " threads: " + std::to_string(entries.size()) + " cell(s) " +
                             (was_disturbed ? std::string("disturbed") : first.at("status").get<std::string>()) + ": " + reason;
    if (noted.insert(line).second) md << (noted.size() == 1 ? "\nNot measured:\n" : "") << line << "\n";
  }
  if (!ctx.at("warnings").empty()) {
    md << "\nWarnings:\n";
    for (const auto& w : ctx.at("warnings")) md << "- " << w.get<std::string>() << "\n";
  }
  cell_warnings(md, results.at("benchmarks"));
  return md.str();
}

}  // namespace allocstress
