// Data-cache geometry as hwloc reports it, for placement-aware allocators (eqclass) and the
// cache simulator.  A cache maps address A to set (A / line) % sets; `period` bytes later the
// mapping repeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace allocstress {

struct CacheGeometry {
  std::size_t size = 0, line = 0, associativity = 0;
  std::string source;  // "hwloc", or why a fallback was used

  std::size_t sets() const { return size / (line * associativity); }
  std::size_t period() const { return sets() * line; }
  std::size_t set_of(const void* p) const {
    return std::size_t(reinterpret_cast<std::uintptr_t>(p) / line % sets());
  }
};

// The first L1 data cache; when hwloc cannot describe one with a power-of-two number of sets,
// the 32 KiB, 8-way, 64-byte cache of the Gleipnir experiments (source says why).
const CacheGeometry& l1_data_cache();
// The last-level data or unified cache (same fallback rule; fallback 8 MiB, 16-way, 64 B).
const CacheGeometry& last_level_cache();

}  // namespace allocstress
