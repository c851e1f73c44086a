// The checks of a drop-in before a matrix, each in a fresh process under its LD_PRELOAD and
// configuration: does malloc really resolve into its library (`allocstress run --verify-only --cell`,
// the allocator resolved as the planner resolved it: the child loads no catalogue),
// and does it keep malloc's contract (the conformance check, allocators/safety/conformance.hpp)?
#pragma once

#include <string>

#include "allocators/allocator_catalog.hpp"
#include "allocators/safety/conformance.hpp"

namespace allocstress {

// failure: "" when malloc resolves into the library, else how the check failed (exit code and its
// last stderr line, signal, or killed after timeout_s, the matrix's --timeout).  nonconforming:
// "" when the conformance check passed, else its first failure.
// pre: timeout_s > 0.
DropInPreflight preload_check(const std::string& executable, const AllocatorSpec& allocator, double timeout_s);

}  // namespace allocstress
