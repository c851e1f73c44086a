// hwloc lookup of the L1 data and last-level caches (see cache_geometry.hpp).
#include "platform/profilers/cache_geometry.hpp"

#include <hwloc.h>

#include <bit>
#include <cstdint>

namespace allocstress {

namespace {

CacheGeometry usable_or(CacheGeometry found, CacheGeometry fallback, const char* what) {
  if (found.line == 0 || found.associativity == 0 || found.size == 0) {
    fallback.source = std::string("fallback: hwloc reports no ") + what;
    return fallback;
  }
  const std::size_t sets = found.sets();
  if (!std::has_single_bit(found.line) || sets < 2 || !std::has_single_bit(sets) ||
      sets * found.line * found.associativity != found.size) {
    fallback.source = std::string("fallback: hwloc's ") + what + " (" + std::to_string(found.size) + " B, " +
                      std::to_string(found.associativity) + "-way, " + std::to_string(found.line) +
                      " B lines) has no power-of-two set count";
    return fallback;
  }
  found.source = "hwloc";
  return found;
}

// Smallest depth (is_last = false) or largest depth data/unified cache.
CacheGeometry from_hwloc(bool last_level) {
  CacheGeometry g;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return g;
  if (hwloc_topology_load(topo) == 0) {
    unsigned best_depth = 0;
    for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE}) {
      for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topo, type, nullptr); c != nullptr;
           c = hwloc_get_next_obj_by_type(topo, type, c)) {
        if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
        const unsigned depth = c->attr->cache.depth;
        const bool better = g.size == 0 || (last_level ? depth > best_depth : depth < best_depth);
        if (!better) continue;
        best_depth = depth;
        g.size = std::size_t(c->attr->cache.size);
        g.line = c->attr->cache.linesize;
        g.associativity = c->attr->cache.associativity > 0 ? std::size_t(c->attr->cache.associativity) : 0;
      }
    }
  }
  hwloc_topology_destroy(topo);
  return g;
}

}  // namespace

const CacheGeometry& l1_data_cache() {
  static const CacheGeometry g = usable_or(from_hwloc(false), {32768, 64, 8, ""}, "L1 data cache");
  return g;
}

const CacheGeometry& last_level_cache() {
  static const CacheGeometry g = usable_or(from_hwloc(true), {8u << 20, 64, 16, ""}, "last-level cache");
  return g;
}

}  // namespace allocstress
