// Lifetime cells (see lifetime_model_cell.hpp): the model's tables (workloads/lifetime_models.hpp)
// on the fitted workload's engine, through the engine's shared measured phase (fitted_cell.hpp).
#include "cells/lifetime_model_cell.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/lifetimes/lifetime_models.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"
#include "cells/cell_record.hpp"
#include "cells/fitted_cell.hpp"

namespace allocstress {

nlohmann::json run_lifetime_model_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                                       const std::vector<unsigned>& pus) {
  AllocTestParams base = cell.params;
  base.threads = unsigned(pus.size());
  const LifetimeParams params = make_lifetime_params(cell.lifetime, base);
  const LifetimeModel model(params);
  const LifetimeEngineRun run = run_lifetime_engine(model, cell.params.access, allocator, topology, pus);
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, run.phase, {run.outcomes.begin(), run.outcomes.end()});

  const LittleLawFigures law = little_law(params);
  const double threads = double(pus.size());
  double achieved = 0;
  for (const LifetimeThreadOutcome& o : run.outcomes) achieved += o.window_mean_live_requested_bytes;
  const double model_live = law.mean_live_bytes * threads;
  const std::uint64_t n = params.allocations_per_thread, window = n - lifetime_window_begin(n);
  rec["workload_metrics"] = {{"target_live_bytes", cell.lifetime.live_bytes},
                             {"model_mean_live_bytes", model_live},
                             {"achieved_mean_live_bytes", achieved},
                             {"achieved_over_target", achieved / double(cell.lifetime.live_bytes)},
                             // an estimate of the sd of `achieved` around the model, sqrt(T E[S^2 L^2] / W), as if each
                             // allocation's contribution were independent; they overlap in time, so seed-to-seed spread
                             // can be larger (1.4x measured for exponential lifetimes, fleet sizes, 12 seeds)
                             {"achieved_sd_estimate_bytes", std::sqrt(threads * law.live_bytes_second_moment / double(window))},
                             {"mean_lifetime_allocations", law.mean_lifetime},
                             {"lifetime_cv", law.lifetime_cv},
                             {"mean_size_bytes", law.mean_size}};
  nlohmann::json laws = nlohmann::json::array();
  std::uint64_t min_size = 1;
  std::size_t rows = 0;
  std::uint64_t longest = 0;
  for (const LifetimeLawFigures& l : law.laws) {
    laws.push_back({{"min_size", min_size},
                    {"max_size", l.max_size},
                    {"allocation_share", l.allocation_share},
                    {"mean_size", l.mean_size},
                    {"mean_lifetime", l.mean_lifetime},
                    {"lifetime_cv", l.lifetime_cv},
                    {"rows", l.rows},
                    {"max_lifetime", l.max_lifetime}});
    longest = std::max(longest, l.max_lifetime);
    min_size = l.max_size + 1;
    rows += l.rows;
  }
  rec["lifetime"] = {{"shape", std::string(to_string(cell.lifetime.shape))},
                     {"rows", rows},
                     {"truncation", lifetime_window_begin(n)},
                     {"longest_lifetime", longest},
                     {"window_begin", lifetime_window_begin(n)},
                     {"window_allocations_per_thread", window},
                     {"achieved", "mean over allocations floor(N/2)..N-1 of the live requested bytes after each, summed over threads"},
                     {"laws", laws}};
  return rec;
}

}  // namespace allocstress
