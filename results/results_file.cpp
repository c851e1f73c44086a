// Assembles the results document from journal records.
#include "results/results_file.hpp"

#include <map>

#include "cells/workload_registry.hpp"
#include "results/machine_costs.hpp"
#include "results/reproduction.hpp"
#include "results/results_summary.hpp"

namespace allocstress {

nlohmann::json cell_identity(const MatrixCell& cell, const AllocatorSpec& a, unsigned repetitions) {
  const Cell& c = cell.cell;
  const std::string name = record_name(c);
  return {{"name", name},
          {"run_name", name},
          {"cell_key", cell.key},
          {"workload", c.workload},
          {"mode", to_string(c.mode)},
          {"allocator", a.name},
          {"allocator_kind", a.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
          {"allocator_library", a.library_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.library_path)},
          {"allocator_package", a.package},
          {"allocator_version", a.version},
          {"allocator_origin", a.origin},
          {"threads", c.threads},
          {"placement", to_string(c.placement.policy)},
          {"params", record_params(c)},
          {"repetition_index", cell.repetition},
          {"repetitions", repetitions}};
}

nlohmann::json unmeasured_cell(const MatrixCell& cell, const AllocatorSpec& a, unsigned repetitions,
                               const std::string& status, const std::string& reason) {
  nlohmann::json e = cell_identity(cell, a, repetitions);
  e["run_type"] = "iteration";
  e["status"] = status;
  e["reason"] = reason;
  e["warnings"] = nlohmann::json::array();
  e["allocator_environment"] = a.environment;  // a measured cell records the values it saw instead
  return e;
}

std::vector<nlohmann::json> excluded_cells(const MatrixPlan& plan) {
  std::vector<nlohmann::json> out;
  for (const auto& ex : plan.excluded) {
    MatrixPlan only = plan;
    only.allocators = {ex.spec};
    only.skipped.clear();
    for (const auto& cell : only.cells())
      if (cell.cell.mode == CellMode::timing) out.push_back(unmeasured_cell(cell, ex.spec, plan.repetitions, ex.status, ex.reason));
  }
  for (const auto& cell : plan.skipped_cells()) {
    const SkippedPair* why = plan.skipped_pair(cell.cell.workload, cell.cell.allocator);
    for (const auto& a : plan.allocators)
      if (a.name == cell.cell.allocator) out.push_back(unmeasured_cell(cell, a, plan.repetitions, "skipped", why->reason));
  }
  return out;
}

nlohmann::json assemble_results(nlohmann::json context, const MatrixPlan& plan, std::vector<nlohmann::json> cells, nlohmann::json safety) {
  attach_net_costs(cells);
  // The counts tier's estimated cycles at this host's measured costs (machine_costs.hpp), before
  // they are taken net of void; the context says which costs.
  const MachineCosts costs = machine_costs_for_host(default_machine_costs_path(), context.value("host_name", ""));
  for (auto& c : cells)
    if (is_ok_counts_record(c)) price_counts(c["counts"], costs);
  context["machine_costs"] = costs.source;
  attach_net_counts(cells);
  attach_blowup(cells);
  for (const auto& w : op_stream_mismatches(cells)) context["warnings"].push_back(w);
  std::vector<nlohmann::json> aggregates = aggregate_entries(cells);
  // Reproduction intervals where this host has a calibration (reproduction.hpp); the context
  // says which calibration, or why there is none.
  std::string why_not;
  const nlohmann::json calibration = calibration_for_host(default_calibration_path(), context.value("host_name", ""), why_not);
  attach_reproduction(aggregates, cells, calibration);
  context["reproduction_calibration"] =
      calibration.is_object()
          ? nlohmann::json{{"file", calibration.at("file")}, {"created", calibration.value("created", "")}, {"level", calibration.at("level")},
                           {"factor", calibration.at("factor")}, {"runs", calibration.value("runs", nlohmann::json::array()).size()},
                           {"pairs", calibration.value("pairs", 0)}}
          : nlohmann::json{{"n/a", why_not}};
  nlohmann::json benchmarks = nlohmann::json::array();
  for (auto& c : cells) benchmarks.push_back(std::move(c));
  for (auto& c : excluded_cells(plan)) benchmarks.push_back(std::move(c));
  for (auto& a : aggregates) benchmarks.push_back(std::move(a));
  std::map<std::string, std::string> nonconforming;
  for (const auto& a : plan.allocators)
    if (!a.nonconforming.empty()) nonconforming[a.name] = a.nonconforming;
  for (const auto& e : plan.excluded)
    if (!e.spec.nonconforming.empty()) nonconforming[e.spec.name] = e.spec.nonconforming;
  for (auto& b : benchmarks)
    if (const auto found = nonconforming.find(b.value("allocator", "")); found != nonconforming.end()) b["nonconforming"] = found->second;
  context["plan"] = plan.to_json();
  nlohmann::json results = {{"schema", kResultsSchemaName},
                            {"schema_version", kResultsSchemaVersion},
                            {"context", std::move(context)},
                            {"benchmarks", std::move(benchmarks)}};
  if (!safety.is_null()) results["safety"] = std::move(safety);
  return results;
}

}  // namespace allocstress
