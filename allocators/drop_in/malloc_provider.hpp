// Which shared object `malloc` resolves to in this process, and the preload environment a cell
// needs so that a drop-in allocator really replaces malloc.  A failed LD_PRELOAD is never silent:
// the cell checks the provider before it measures anything.
#pragma once

#include <string>

#include "allocators/allocator_catalog.hpp"
#include "platform/process/child_process.hpp"

namespace allocstress {

// Canonical path of the object that defines the `malloc` this process calls.
std::string malloc_provider_path();
// The same for any dynamic symbol ("(unresolved)" when there is none).
std::string symbol_provider_path(const char* symbol);

// The value LD_PRELOAD must have for `spec` ("" = nothing preloaded): a drop-in whose library
// already provides malloc without preloading (glibc's libc) needs none.
std::string required_preload(const AllocatorSpec& spec);

// The environment a cell process of `spec` must start with: LD_PRELOAD set to
// required_preload(spec) or removed, the configuration's variables (spec.environment) set, and
// ALLOCSTRESS_CELL_PRELOAD recording that it was arranged.
EnvironmentChanges preload_environment(const AllocatorSpec& spec);
inline constexpr const char* kCellPreloadMarker = "ALLOCSTRESS_CELL_PRELOAD";

// The canonical path of the object `malloc` must resolve to in a process of `spec`: the drop-in's
// library where it is preloaded, else the C library.
std::string expected_malloc_provider(const AllocatorSpec& spec);

// "" when malloc resolves into the library `spec` expects (libc for in-tree allocators) and free,
// calloc, realloc and posix_memalign resolve into the same object; else one line naming what
// resolved where and what was expected.
std::string verify_malloc_provider(const AllocatorSpec& spec);

}  // namespace allocstress
