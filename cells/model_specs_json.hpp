// JSON forms of the parameters of the workloads beyond the 2018 model (cross-thread, lifetime
// models, memory phases, false sharing), as they appear in a cell's `params` block and in a plan:
//   cross_thread:  {"remote_share": 0.5, "queue_capacity": 1024, "rounds": 16}
//   lifetime:      {"lifetime": "exponential", "live_bytes": 67108864}
//   phases:        {"live_bytes": 67108864, "drop_share": 0.9, "peaks": 2, "pause_ms": 100, "drop_order": "newest"}
//   false_sharing: {"object_size": 8, "objects": 16, "writes": 1000, "rounds": 1000}
// from_json reads what to_json writes (nlohmann's ADL hooks: json(spec), j.get<Spec>()).
#pragma once

#include <nlohmann/json.hpp>

#include "workloads/cross_thread/cross_thread_params.hpp"
#include "workloads/false_sharing/false_sharing_params.hpp"
#include "workloads/lifetimes/lifetime_models.hpp"
#include "workloads/phases/phase_params.hpp"

namespace allocstress {

void to_json(nlohmann::json& j, const CrossThreadSpec& s);
void from_json(const nlohmann::json& j, CrossThreadSpec& s);
void to_json(nlohmann::json& j, const LifetimeModelSpec& s);
void from_json(const nlohmann::json& j, LifetimeModelSpec& s);
void to_json(nlohmann::json& j, const PhaseSpec& s);
void from_json(const nlohmann::json& j, PhaseSpec& s);
void to_json(nlohmann::json& j, const FalseSharingSpec& s);
void from_json(const nlohmann::json& j, FalseSharingSpec& s);

}  // namespace allocstress
