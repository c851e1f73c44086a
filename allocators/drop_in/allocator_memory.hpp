// What the allocator under test says about its own memory, read through its API found at run time
// with dlsym (BACKGROUND §3, the memory breakdown of a profile run):
//   jemalloc    mallctl "epoch" (refresh), then stats.allocated / active / resident / mapped /
//               metadata / retained;
//   gperftools  MallocExtension_GetNumericProperty: generic.current_allocated_bytes,
//               generic.heap_size (mapped), tcmalloc.pageheap_unmapped_bytes (retained);
//               resident = heap_size - unmapped;
//   mimalloc    mi_process_info: current_rss (resident), current_commit (mapped);
//   glibc       mallinfo2: uordblks + hblkhd (allocated), arena + hblkhd (mapped), keepcost;
// anything else: n/a.  Each figure is {"value": bytes or null, "provenance": "allocator-reported
// (<api> <name>)" or "n/a(<why>)"}.  Only the API of the library malloc resolves to is used.
#pragma once

#include <nlohmann/json.hpp>

namespace allocstress {

// {"api": "<name>", "allocated": {...}, "active": {...}, "resident": {...}, "mapped": {...},
//  "metadata": {...}, "retained": {...}}
nlohmann::json allocator_reported_memory();

}  // namespace allocstress
