// The `lifetime` cells and their registry entry: a lifetime model's tables
// (workloads/lifetimes/lifetime_models.hpp) on the fitted workload's engine (lifetime_engine.hpp).
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "workloads/lifetimes/lifetime_models.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"
#include "cells/cell_record.hpp"
#include "cells/lifetimes/lifetime_engine.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "cells/alloc_test/sized_params.hpp"

namespace allocstress {

namespace {

LifetimeModelSpec lifetime_spec(const nlohmann::json& params) {
  return {parse_lifetime_shape(word_field(params, "lifetime")), count_field(params, "live_bytes")};
}

nlohmann::json run_lifetime_model_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology,
                                       const std::vector<unsigned>& pus) {
  const AllocTestParams base = sized_params(cell.params, unsigned(pus.size()));
  const LifetimeModelSpec spec = lifetime_spec(cell.params);
  const LifetimeParams params = make_lifetime_params(spec, base);
  const LifetimeModel model(params);
  const LifetimeEngineRun run = run_lifetime_engine(model, base.access, allocator, topology, pus);
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, run.phase, {run.outcomes.begin(), run.outcomes.end()});

  const LittleLawFigures law = little_law(params);
  const double threads = double(pus.size());
  double achieved = 0;
  for (const LifetimeThreadOutcome& o : run.outcomes) achieved += o.window_mean_live_requested_bytes;
  const double model_live = law.mean_live_bytes * threads;
  const std::uint64_t n = params.allocations_per_thread, window = n - lifetime_window_begin(n);
  rec["workload_metrics"] = {{"target_live_bytes", spec.live_bytes},
                             {"model_mean_live_bytes", model_live},
                             {"achieved_mean_live_bytes", achieved},
                             {"achieved_over_target", achieved / double(spec.live_bytes)},
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
  rec["lifetime"] = {{"shape", std::string(to_string(spec.shape))},
                     {"rows", rows},
                     {"truncation", lifetime_window_begin(n)},
                     {"longest_lifetime", longest},
                     {"window_begin", lifetime_window_begin(n)},
                     {"window_allocations_per_thread", window},
                     {"achieved", "mean over allocations floor(N/2)..N-1 of the live requested bytes after each, summed over threads"},
                     {"laws", laws}};
  return rec;
}

void check(const nlohmann::json& params, unsigned threads) {
  const AllocTestParams base = sized_params(params, threads);
  validate(base);
  const LifetimeModelSpec spec = lifetime_spec(params);
  validate(spec);
  validate(spec, base);
}

std::string describe(const nlohmann::json& p) {
  char live[32];
  std::snprintf(live, sizeof live, "%.1f", double(count_field(p, "live_bytes")) / 1048576.0);
  return describe_sized(p, "allocations") + "; " + word_field(p, "lifetime") + " lifetimes, target live " + live + " MiB (Little's law)";
}

std::string refusal(const AllocatorSpec& a, const nlohmann::json& p, unsigned threads) {
  return bump_budget_refusal("lifetime", a, p, threads, 1.0);  // every iteration allocates
}

constexpr Metric kTargetLive = workload_metric("target_live_bytes", "bytes", "target live MiB", 1,
                                               "The live heap the model targets, all threads (--live-bytes; Little's law: live = "
                                               "allocation rate x mean lifetime).",
                                               true, true);
constexpr Metric kModelLive = workload_metric("model_mean_live_bytes", "bytes", "model mean live MiB", 1,
                                              "The mean live requested bytes the model's size and lifetime laws imply, all threads.",
                                              false, true);
constexpr Metric kAchievedLive = workload_metric(
    "achieved_mean_live_bytes", "bytes", "mean live MiB", 1,
    "Live requested bytes after each allocation, averaged over the second half of each thread's allocations (steady "
    "state) and summed over threads.",
    true, true);
constexpr Metric kAchievedOverTarget = workload_metric("achieved_over_target", "ratio", "achieved/target", 2,
                                                       "achieved_mean_live_bytes / target_live_bytes.");
constexpr Metric kAchievedSd = workload_metric(
    "achieved_sd_estimate_bytes", "bytes", "live sd estimate MiB", 2,
    "An estimate of the standard deviation of achieved_mean_live_bytes from the model's randomness alone, treating "
    "allocations as independent: the real seed-to-seed spread can be larger (1.4x measured for exponential lifetimes with "
    "fleet sizes).",
    false, true);
constexpr Metric kMeanLifetime = workload_metric("mean_lifetime_allocations", "allocations", "mean lifetime (allocs)", 0,
                                                 "The model's mean lifetime, in allocations made in between.", false);
constexpr Metric kLifetimeCv = workload_metric("lifetime_cv", "fraction", "lifetime CV", 2,
                                               "Coefficient of variation of the model's lifetimes (pareto > exponential).");
constexpr Metric kMeanSize = workload_metric("mean_size_bytes", "bytes", "mean size B", 0, "The model's mean block size.", false);

const WorkloadOption kLifetimeOption{"--lifetime", "lifetime", OptionKind::word,
                                     "lifetime: the lifetime law: exponential, pareto or size-classes", kLifetimeGroup};

}  // namespace

extern const WorkloadEntry kLifetimeEntry;
const WorkloadEntry kLifetimeEntry{
    .name = kLifetimeWorkload,
    .family = "lifetimes",
    .summary = "explicit lifetimes in allocations, chosen so that Little's law meets a target live heap",
    .options = [] {
      std::vector<const WorkloadOption*> o = sized_options(false);
      o.insert(o.end() - 1, {&kLifetimeOption, &kLiveBytesOption});
      return o;
    }(),
    .metrics = pair_cost_metrics_and({&kTargetLive, &kModelLive, &kAchievedLive, &kAchievedOverTarget, &kAchievedSd, &kMeanLifetime,
                                      &kLifetimeCv, &kMeanSize}),
    .defaults = [](const AllocTestParams& preset) {
      nlohmann::json j = sized_defaults(preset, false);
      // 64 MiB of 41.5 B blocks live means a mean lifetime of 1.6e6 allocations at 1 thread, which
      // must stay within 1/16 of the allocations (check): 3.2e7 is the least default that runs.
      j["iterations_per_thread"] = std::max<std::uint64_t>(preset.iterations_per_thread, 32'000'000);
      const LifetimeModelSpec d;
      j["lifetime"] = to_string(d.shape);
      j["live_bytes"] = d.live_bytes;
      return j;
    },
    .check = check,
    .describe = describe,
    .run = run_lifetime_model_cell,
    .refusal = refusal,
    .counts = true,
    .soaks = true,
};

}  // namespace allocstress
