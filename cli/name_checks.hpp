// Names the user typed that must be known: allocators (of the catalogue) and workloads (of the
// registry).  Checked here, before planning, so that a mistyped name gets "did you mean ..."
// (platform/suggest.hpp) through AllocatorCatalog::find_or_suggest, the one check of a name.
#pragma once

#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"

namespace allocstress {

// Throws UsageError "unknown allocator 'jemaloc': did you mean jemalloc? (accepted: ...; or all;
// or NAME=/path/lib.so[,VAR=VALUE...])" for the first of `names` (a comma-separated list; NAME=PATH
// items and `all` are not names) that `catalog` does not hold.
void check_allocator_names(const AllocatorCatalog& catalog, const std::string& names);

// Throws UsageError "unknown workload 'aloc-test': did you mean alloc-test? (accepted: ...)" for
// the first item of the comma-separated `names` that the workload registry does not hold.
void check_workload_names(const std::string& names);

}  // namespace allocstress
