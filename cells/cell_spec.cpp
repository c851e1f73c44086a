// Command-line and JSON renderings of a cell.
#include "cells/cell_spec.hpp"

#include "cells/model_specs_json.hpp"

namespace allocstress {

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = {
      kAllocTestWorkload,   kBinTreeWorkload,      kLinkedListWorkload,   kMultiListWorkload,          kReplayWorkload,
      kFittedWorkload,      kXThreadWorkload,      kLarsonWorkload,       kLifetimeWorkload,           kPhaseRampWorkload,
      kPhasePlateauWorkload, kPhasePeakWorkload,   kFalseSharingActiveWorkload, kFalseSharingPassiveWorkload};
  return names;
}

bool uses_slots(const std::string& w) { return w == kAllocTestWorkload || w == kXThreadWorkload || w == kLarsonWorkload; }

bool draws_sizes(const std::string& w) { return uses_slots(w) || w == kLifetimeWorkload || is_phase_workload(w); }

bool has_void_baseline(const std::string& w) { return draws_sizes(w) || w == kReplayWorkload || w == kFittedWorkload; }

std::vector<std::string> run_arguments(const CellSpec& c) {
  std::vector<std::string> args = {"--allocator",
                                   c.user_library.empty() ? c.allocator : c.allocator + "=" + c.user_library,
                                   "--workload", c.workload,
                                   "--threads", std::to_string(c.params.threads)};
  auto add = [&](const char* option, const std::string& value) {
    args.push_back(option);
    args.push_back(value);
  };
  if (is_structure_workload(c.workload)) {
    const StructureParams& s = c.structure;
    add("--nodes", std::to_string(s.nodes));
    add("--node-size", std::to_string(s.node_size));
    add("--searches", std::to_string(s.searches));
    add("--interleave", std::to_string(s.interleave));
    add("--churn", std::to_string(s.churn_percent));
    if (c.workload == kMultiListWorkload) {
      add("--heads", std::to_string(s.heads));
      add("--zipf", nlohmann::json(s.zipf).dump());  // shortest text that reads back as the same double
    }
    if (s.hints) args.push_back("--hints");
  } else if (c.workload == kReplayWorkload) {
    add("--trace", c.replay.trace);
    add("--access", std::string(to_string(c.replay.access)));
    if (c.replay.allocstats_every != 0) add("--allocstats-every", std::to_string(c.replay.allocstats_every));
    if (!c.replay.program.empty()) add("--replay-program", c.replay.program);
  } else if (c.workload == kFittedWorkload) {
    add("--fit", c.fit);
    add("--access", std::string(to_string(c.params.access)));
  } else if (is_false_sharing_workload(c.workload)) {
    const FalseSharingSpec& f = c.false_sharing;
    add("--object-size", std::to_string(f.object_size));
    add("--objects", std::to_string(f.objects));
    add("--writes", std::to_string(f.writes));
    add("--rounds", std::to_string(f.rounds));
  } else {
    if (uses_slots(c.workload)) add("--slots", std::to_string(c.params.slots_total));
    add("--sizes", std::string(to_string(c.params.sizes)));
    add("--max-size-exp", std::to_string(c.params.max_size_exp));
    add("--iterations", std::to_string(c.params.iterations_per_thread));
    add("--access", std::string(to_string(c.params.access)));
    if (c.workload == kXThreadWorkload) {
      add("--remote-share", nlohmann::json(c.cross_thread.remote_share * 100).dump());
      add("--queue-capacity", std::to_string(c.cross_thread.queue_capacity));
    } else if (c.workload == kLarsonWorkload) {
      add("--rounds", std::to_string(c.cross_thread.rounds));
    } else if (c.workload == kLifetimeWorkload) {
      add("--lifetime", std::string(to_string(c.lifetime.shape)));
      add("--live-bytes", std::to_string(c.lifetime.live_bytes));
    } else if (is_phase_workload(c.workload)) {
      add("--live-bytes", std::to_string(c.phases.live_bytes));
      if (c.workload == kPhasePeakWorkload) {
        add("--drop-share", nlohmann::json(c.phases.drop_share * 100).dump());
        add("--peaks", std::to_string(c.phases.peaks));
        add("--drop-pause-ms", std::to_string(c.phases.pause_ms));
        add("--drop-order", std::string(to_string(c.phases.drop_order)));
      }
    }
  }
  add("--seed", std::to_string(c.params.seed));
  add("--placement", std::string(to_string(c.placement.policy)));
  if (c.placement.reserve_os_pu) args.push_back("--reserve-os-pu");
  if (c.placement.oversubscribe) args.push_back("--oversubscribe");
  if (c.cache_sim) args.push_back("--cache-sim");
  if (c.profile) {
    args.push_back("--profile");
    add("--sample-every", std::to_string(c.profile_spec.sample_every));
  }
  return args;
}

nlohmann::json structure_params_json(const std::string& workload, const StructureParams& s) {
  nlohmann::json j = {{"nodes", s.nodes},           {"node_size", s.node_size},         {"searches", s.searches},
                      {"interleave", s.interleave}, {"churn_percent", s.churn_percent}, {"hints", s.hints}};
  if (workload == kMultiListWorkload) {
    j["heads"] = s.heads;
    j["zipf"] = s.zipf;
  }
  return j;
}

nlohmann::json cell_params_json(const CellSpec& c) {
  if (c.workload == kFittedWorkload) return {{"fit", c.fit}, {"memory_access", to_string(c.params.access)}, {"seed", c.params.seed}};
  if (c.workload == kReplayWorkload)
    return {{"trace", c.replay.trace}, {"memory_access", to_string(c.replay.access)}, {"allocstats_every", c.replay.allocstats_every},
            {"seed", c.params.seed}};
  if (is_false_sharing_workload(c.workload)) {
    nlohmann::json j = c.false_sharing;
    j["seed"] = c.params.seed;
    return j;
  }
  if (draws_sizes(c.workload)) {
    nlohmann::json j = params_json(c.params);
    if (!uses_slots(c.workload)) {
      j.erase("slots_total");
      j.erase("slots_per_thread");
    }
    if (c.workload == kXThreadWorkload) j.update(nlohmann::json{{"remote_share", c.cross_thread.remote_share}, {"queue_capacity", c.cross_thread.queue_capacity}});
    if (c.workload == kLarsonWorkload) j["rounds"] = c.cross_thread.rounds;
    if (c.workload == kLifetimeWorkload) j.update(nlohmann::json(c.lifetime));
    if (is_phase_workload(c.workload)) j.update(nlohmann::json(c.phases));
    return j;
  }
  if (!is_structure_workload(c.workload)) return params_json(c.params);
  nlohmann::json j = structure_params_json(c.workload, c.structure);
  j["seed"] = c.params.seed;
  return j;
}

nlohmann::json params_json(const AllocTestParams& p) {
  return {{"slots_total", p.slots_total},
          {"slots_per_thread", p.slots_per_thread()},
          {"max_size_exp", p.max_size_exp},
          {"iterations_per_thread", p.iterations_per_thread},
          {"memory_access", to_string(p.access)},
          {"size_model", to_string(p.sizes)},
          {"seed", p.seed}};
}

}  // namespace allocstress
