// One cell in this process: what `allocstress run` does once it has a checked Cell, whether it came
// from flags or from a cell file.
//
//   1. simulate mode, outside valgrind: run the cell once more under callgrind's cache simulator
//      (a child process) and print its record with the simulated figures;
//   2. profile mode, outer process: the three processes of a profile run (profile_run.hpp);
//   3. otherwise: re-execute this process once with the allocator's LD_PRELOAD if it is not in
//      place (the cell goes along as a cell file), check that malloc resolves into the allocator's
//      library (exit 3 if not), prepare the workload's inputs in a forked child if the cell has
//      none (decoding a trace must not allocate through the allocator under test), pin, measure
//      (cells/workload_registry.hpp: run_cell) and print the record as one JSON line.
#pragma once

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"

namespace allocstress {

// pre: check_cell(cell, allocator) passed.  Returns the exit code of `run`: 0, kExitCellFailed
// (the cell failed, its record printed) or kExitUsage; throws UsageError on bad input found late
// (a trace that does not decode, a thread count its inputs contradict).  `verify_only`: stop
// after the preload check and print the provider.
int run_cell_process(Cell cell, const AllocatorSpec& allocator, bool verify_only);

}  // namespace allocstress
