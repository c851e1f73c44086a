// Command-line and JSON renderings of a cell.
#include "cell_spec.hpp"

namespace allocstress {

std::vector<std::string> run_arguments(const CellSpec& c) {
  std::vector<std::string> args = {"--allocator",
                                   c.user_library.empty() ? c.allocator : c.allocator + "=" + c.user_library,
                                   "--workload", c.workload,
                                   "--threads", std::to_string(c.params.threads),
                                   "--slots", std::to_string(c.params.slots_total),
                                   "--max-size-exp", std::to_string(c.params.max_size_exp),
                                   "--iterations", std::to_string(c.params.iterations_per_thread),
                                   "--access", std::string(to_string(c.params.access)),
                                   "--seed", std::to_string(c.params.seed),
                                   "--placement", std::string(to_string(c.placement.policy))};
  if (c.placement.reserve_os_pu) args.push_back("--reserve-os-pu");
  if (c.placement.oversubscribe) args.push_back("--oversubscribe");
  return args;
}

nlohmann::json params_json(const AllocTestParams& p) {
  return {{"slots_total", p.slots_total},
          {"slots_per_thread", p.slots_per_thread()},
          {"max_size_exp", p.max_size_exp},
          {"iterations_per_thread", p.iterations_per_thread},
          {"memory_access", to_string(p.access)},
          {"seed", p.seed}};
}

}  // namespace allocstress
