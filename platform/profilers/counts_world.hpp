// The counts world: what a counts run is given so that it executes the same instructions on every
// run, whatever the host's clock and randomness do.  liballocstress_counts_world.so, built beside
// the allocstress executable from virtual_clock.c (every clock read returns a virtual time) and
// fixed_entropy.c (every request for random bytes is served from one fixed stream), is preloaded
// into the cell or program under callgrind and into its native kernel-event runs.
//
// It goes first in LD_PRELOAD, ahead of the allocator.  The first library that defines a symbol
// wins; it defines no malloc, so the allocator is unchanged, but libc -- preloaded for the system
// row of a real program (cells/programs/program_cell.cpp) -- defines time() too.  While the clock
// came after libc, prog-lua's time(NULL) was the wall clock's, its string-hash seed changed every
// second, and two studies' counts of it under glibc differed by 0.4%.
#pragma once

#include <filesystem>

#include "platform/process/child_process.hpp"

namespace allocstress {

// The library beside this executable.  Throws std::runtime_error naming the file when it is
// missing (a build that did not build the allocstress target).
std::filesystem::path counts_world_library();

// `env` with `library` first in its LD_PRELOAD (before whatever `env` preloads).
EnvironmentChanges in_counts_world(EnvironmentChanges env, const std::filesystem::path& library = counts_world_library());

}  // namespace allocstress
