// The outer process of a profile run (`allocstress run --profile`, or a profile cell of
// `matrix --profile`): the same alloc-test cell (workload, parameters, seed) measured as a
// clearly separate, labelled run (mode "profile"), so that timing runs stay clean.  It
//   1. fingerprints the allocator in a fresh process (`probe --one`): the size classes give the
//      small/medium bound (the first class at least 1 KiB above its predecessor), the
//      large-object threshold the medium/large bound;
//   2. runs pass "sample": sampled latency by class, perf counters, memory breakdown;
//   3. runs pass "syscalls" under strace: memory system calls of the measured phase;
// and prints one record: pass 1's, with the fingerprint and the system calls added.
#pragma once

#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"
#include "platform/process/child_process.hpp"

namespace allocstress {

// pre: cell.mode is profile, cell.profile.pass is "" (the outer process); `spec` is a drop-in.
// Returns the exit code of `run`.
int run_profile(const Cell& cell, const AllocatorSpec& spec);

}  // namespace allocstress
