// The conformance preflight of a drop-in allocator: in a fresh process under it, the safety probe
// (`allocstress-safety-probe conformance`) checks what every program assumes of malloc:
//   - every block is aligned to alignof(max_align_t), for every size class;
//   - aligned_alloc, posix_memalign and memalign honour their alignment;
//   - realloc keeps the contents; calloc zeroes;
//   - malloc_usable_size (where the allocator provides it) is at least the size asked.
// A drop-in that fails is still measured where it can run, but every record of it says why it is
// non-conforming and the rankings leave it out (results/verdict.cpp).
#pragma once

#include <string>

#include "platform/process/child_process.hpp"

namespace allocstress {

// "" when the run printed `done` and no `fail` line; else one line: the first failure and how many
// kinds failed, or how the check ended early (a crash names the check it was in).
std::string conformance_failure(const ChildOutcome& run, double timeout_s);

// What the checks before a matrix say about one drop-in: `failure` when it cannot run at all (the
// preload check), `nonconforming` when it runs but breaks malloc's contract.  Both "" = fine.
struct DropInPreflight {
  std::string failure;
  std::string nonconforming;
};

}  // namespace allocstress
