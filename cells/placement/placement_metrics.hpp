// Where an allocator put a workload's live nodes, measured from their addresses (untimed, after
// the search phase):
//   set histogram          how many node start addresses map to each L1 set (set = addr / line
//                          % sets, geometry from hwloc); max_over_mean = 1 is perfectly even;
//   cache-line utilisation requested node bytes / bytes of the distinct cache lines the nodes
//                          touch (1 = no line carries anything but node bytes);
//   page utilisation       requested node bytes / bytes of the distinct pages they touch.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platform/profilers/cache_geometry.hpp"

namespace allocstress {

struct NodeExtent {
  std::uintptr_t start;
  std::size_t bytes;
};

nlohmann::json placement_metrics(std::vector<NodeExtent> nodes, const CacheGeometry& l1, std::size_t page_bytes);

}  // namespace allocstress
