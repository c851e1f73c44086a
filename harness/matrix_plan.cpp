// Cell expansion and the JSON form of a plan.
#include "matrix_plan.hpp"

#include <stdexcept>

namespace allocstress {

std::vector<MatrixCell> MatrixPlan::cells() const {
  std::vector<MatrixCell> out;
  for (unsigned rep = 0; rep < repetitions; ++rep)
    for (unsigned t : thread_counts)
      for (const auto& a : allocators) {
        CellSpec spec{a.name, a.origin == "command line" ? a.library_path : "", kAllocTestWorkload, params, placement};
        spec.params.threads = spec.placement.threads = t;
        out.push_back({a.name + "/threads:" + std::to_string(t) + "/rep:" + std::to_string(rep), spec, rep});
      }
  return out;
}

nlohmann::json to_json(const AllocatorSpec& s) {
  return {{"name", s.name},
          {"kind", s.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
          {"library", s.library},
          {"library_path", s.library_path},
          {"package", s.package},
          {"version", s.version},
          {"origin", s.origin},
          {"unavailable_reason", s.unavailable_reason}};
}

AllocatorSpec allocator_spec_from_json(const nlohmann::json& j) {
  AllocatorSpec s;
  s.name = j.at("name").get<std::string>();
  s.kind = j.at("kind") == "in_tree" ? AllocatorKind::in_tree : AllocatorKind::drop_in;
  s.library = j.at("library").get<std::string>();
  s.library_path = j.at("library_path").get<std::string>();
  s.package = j.at("package").get<std::string>();
  s.version = j.at("version").get<std::string>();
  s.origin = j.at("origin").get<std::string>();
  s.unavailable_reason = j.at("unavailable_reason").get<std::string>();
  return s;
}

nlohmann::json MatrixPlan::to_json() const {
  nlohmann::json allocs = nlohmann::json::array(), excl = nlohmann::json::array();
  for (const auto& a : allocators) allocs.push_back(allocstress::to_json(a));
  for (const auto& e : excluded) excl.push_back({{"allocator", allocstress::to_json(e.spec)}, {"status", e.status}, {"reason", e.reason}});
  nlohmann::json plan_params = params_json(params);
  plan_params.erase("slots_per_thread");  // depends on the thread count: given per cell
  return {{"preset", preset},
          {"manifest", manifest},
          {"workload", kAllocTestWorkload},
          {"params", plan_params},
          {"placement", to_string(placement.policy)},
          {"reserve_os_pu", placement.reserve_os_pu},
          {"oversubscribe", placement.oversubscribe},
          {"thread_counts", thread_counts},
          {"repetitions", repetitions},
          {"cell_timeout_s", cell_timeout_s},
          {"allocators", allocs},
          {"excluded", excl}};
}

MatrixPlan MatrixPlan::from_json(const nlohmann::json& j) {
  try {
    MatrixPlan p;
    p.preset = j.at("preset").get<std::string>();
    p.manifest = j.at("manifest").get<std::string>();
    const auto& params = j.at("params");
    p.params.slots_total = params.at("slots_total").get<std::uint64_t>();
    p.params.max_size_exp = params.at("max_size_exp").get<unsigned>();
    p.params.iterations_per_thread = params.at("iterations_per_thread").get<std::uint64_t>();
    p.params.access = parse_memory_access(params.at("memory_access").get<std::string>());
    p.params.seed = params.at("seed").get<std::uint64_t>();
    p.placement.policy = parse_placement(j.at("placement").get<std::string>());
    p.placement.reserve_os_pu = j.at("reserve_os_pu").get<bool>();
    p.placement.oversubscribe = j.at("oversubscribe").get<bool>();
    p.thread_counts = j.at("thread_counts").get<std::vector<unsigned>>();
    p.repetitions = j.at("repetitions").get<unsigned>();
    p.cell_timeout_s = j.at("cell_timeout_s").get<double>();
    for (const auto& a : j.at("allocators")) p.allocators.push_back(allocator_spec_from_json(a));
    for (const auto& e : j.at("excluded"))
      p.excluded.push_back({allocator_spec_from_json(e.at("allocator")), e.at("status").get<std::string>(),
                            e.at("reason").get<std::string>()});
    return p;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not a valid matrix plan: ") + e.what());
  }
}

}  // namespace allocstress
