// The `fitted` cells (workloads/lifetimes/lifetime_workload.hpp) and their registry entry: the fit
// file's model (written by `allocstress fit`), one worker per thread on the lifetime engine
// (lifetime_engine.hpp), the alloc-test-family record (cell_record.hpp) plus a `fitted` block
// naming the model (rows, allocations per thread, immortal share, the trace it came from).
#include "cells/workload_registry.hpp"

#include "cells/cell_record.hpp"
#include "cells/lifetimes/lifetime_engine.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"

namespace allocstress {

namespace {

// The fit file a cell names, loaded and validated (std::invalid_argument otherwise).
FitConfig fit_of(const nlohmann::json& params) { return load_fit_config(word_field(params, "fit")); }

nlohmann::json run_fitted_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus) {
  const FitConfig fit = fit_of(cell.params);
  LifetimeParams params = fit.params;
  params.threads = unsigned(pus.size());
  params.seed = count_field(cell.params, "seed");
  const LifetimeModel model(params);
  const LifetimeEngineRun run = run_lifetime_engine(model, parse_memory_access(word_field(cell.params, "memory_access")), allocator, topology, pus);
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, run.phase, {run.outcomes.begin(), run.outcomes.end()});
  rec["fitted"] = {{"allocations_per_thread", params.allocations_per_thread},
                   {"size_rows", params.sizes.size()},
                   {"lifetime_rows", params.lifetimes.size()},
                   {"lifetime_classes", params.lifetime_classes.size()},
                   {"immortal_share", params.immortal_share},
                   {"trace", fit.trace.path}};
  return rec;
}

void check(const nlohmann::json& params, unsigned) {
  fit_of(params);
  parse_memory_access(word_field(params, "memory_access"));
  count_field(params, "seed");
}

std::string describe(const nlohmann::json& p) {
  return "fit " + word_field(p, "fit") + " (sizes and lifetimes fitted to a trace), access " + word_field(p, "memory_access") +
         ", seed " + p.at("seed").dump();
}

// The fit file's threads and seed, used unless --threads / --seed are given.
InputDefaults input_defaults(const nlohmann::json& params, const nlohmann::json&) {
  const FitConfig fit = fit_of(params);
  return {fit.params.threads, false, fit.params.seed};
}

const WorkloadOption kFitOption{"--fit", "fit", OptionKind::file,
                                "fitted: the fit file written by `allocstress fit` (its threads and seed unless --threads/--seed)",
                                kTraceGroup, "FILE (written by `allocstress fit TRACE -o FILE`)"};

}  // namespace

extern const WorkloadEntry kFittedEntry;
const WorkloadEntry kFittedEntry{
    .name = kFittedWorkload,
    .family = "traces",
    .summary = "an alloc-test-style workload whose sizes and lifetimes are fitted to a trace (`allocstress fit`)",
    .options = {&kFitOption, &kAccessOption, &kSeedOption},
    .metrics = pair_cost_metrics(),
    .defaults = [](const AllocTestParams& preset) {
      return nlohmann::json{{"fit", nullptr}, {"memory_access", to_string(preset.access)}, {"seed", preset.seed}};
    },
    .check = check,
    .describe = describe,
    .run = run_fitted_cell,
    .input_defaults = input_defaults,
    .counts = true,
};

}  // namespace allocstress
