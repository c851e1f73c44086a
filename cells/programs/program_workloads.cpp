// The declared program workload names (see program_workloads.hpp).
#include "cells/programs/program_workloads.hpp"

#include <algorithm>
#include <mutex>

namespace allocstress {

namespace {

std::mutex& names_mutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& names() {  // in the order they were declared (a programs file's order)
  static std::vector<std::string> declared;
  return declared;
}

using Json = nlohmann::json;

void declare_params(const std::string& workload, const Json& params) {
  if (params.is_object() && params.contains("program") && params.at("program").is_object()) declare_program_workload(workload);
}

void declare_workload_params(const Json& block) {
  if (!block.is_object()) return;
  for (const auto& [workload, params] : block.items()) declare_params(workload, params);
}

}  // namespace

void declare_program_workload(const std::string& name) {
  std::lock_guard<std::mutex> lock(names_mutex());
  if (std::find(names().begin(), names().end(), name) == names().end()) names().push_back(name);
}

bool is_declared_program(std::string_view name) {
  std::lock_guard<std::mutex> lock(names_mutex());
  return std::find(names().begin(), names().end(), name) != names().end();
}

std::vector<std::string> declared_program_names() {
  std::lock_guard<std::mutex> lock(names_mutex());
  return names();
}

void forget_declared_programs() {
  std::lock_guard<std::mutex> lock(names_mutex());
  names().clear();
}

void declare_programs_of(const Json& document) {
  if (!document.is_object()) return;
  declare_workload_params(document.value("workload_params", Json()));
  if (const Json& plan = document.value("context", Json::object()).value("plan", Json()); plan.is_object())
    declare_workload_params(plan.value("workload_params", Json()));
  if (const Json& plan = document.value("plan", Json()); plan.is_object()) declare_workload_params(plan.value("workload_params", Json()));
  if (const Json& records = document.value("benchmarks", Json()); records.is_array())
    for (const Json& r : records)
      if (r.is_object() && r.contains("workload") && r.at("workload").is_string())
        declare_params(r.at("workload").get<std::string>(), r.value("params", Json()));
}

}  // namespace allocstress
