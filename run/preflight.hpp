// The preload check before a matrix: does malloc really resolve into a drop-in allocator's
// library in a fresh process under its LD_PRELOAD and configuration?  (`allocstress run --verify-only`.)
#pragma once

#include <string>

#include "allocators/allocator_catalog.hpp"

namespace allocstress {

// "" when it does; else how the check failed (exit code and its last stderr line, signal, or
// killed after timeout_s, the matrix's --timeout).
// pre: timeout_s > 0.
std::string preload_check(const std::string& executable, const AllocatorSpec& allocator, const std::string& manifest, double timeout_s);

}  // namespace allocstress
