// The command lines of the allocstress processes run/ starts: the one place that writes the CLI's
// own syntax for a child (cell processes, callgrind and strace runs of a cell, drop-in preflight,
// fingerprint probes, Slurm array tasks).
//
// Model: a child is an allocstress executable, a subcommand and its arguments.  A cell crosses as
// a cell file (plan/cell_encoding.hpp), never as flags: cell_command() there writes the flags a
// person types to reproduce a cell, which no backend runs.  A change of the CLI's syntax for a
// child is a change here (and in the command's own cli/ file).
#pragma once

#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"

namespace allocstress {

// This process's executable (/proc/self/exe).  Throws std::runtime_error when it cannot be read.
std::string allocstress_executable();

// `EXE run --cell FILE [--verify-only]`: a cell process measuring (or only checking the preload of)
// the cell in FILE.
std::vector<std::string> run_cell_command(const std::string& executable, const std::string& cell_file, bool verify_only = false);

// `EXE probe --one NAME [--manifest M] [--add-allocator=NAME=PATH]`: the size-class fingerprint of
// the allocator a cell runs, printed as one JSON line (run under its preload).
std::vector<std::string> probe_one_command(const std::string& executable, const Cell& cell);

// `EXE slurm run-cell DIR`: the head of an array task's command (the task id follows).
std::vector<std::string> slurm_run_cell_command(const std::string& executable, const std::string& results_dir);

// The cell the drop-in preflight runs with --verify-only: the resolved allocator `a` on the quick
// preset's alloc-test at 1 thread (only the preload is checked: nothing is measured).
Cell verify_only_cell(const AllocatorSpec& a);

}  // namespace allocstress
