// The plan file: the cells of a matrix written down before any runs, in the form every backend
// executes (`matrix --plan-only -o plan.json`; the Slurm backend keeps one in its results
// directory).  JSON:
//
//   {"format": "allocstress-plan", "version": 1, "created": ISO time, "command_line": "...",
//    "executable": the allocstress that planned it (the one tasks run by default),
//    "context": the machine context where it was planned,
//    "plan": MatrixPlan::to_json() (allocators, workloads, parameters, threads, repetitions ...),
//    "cells": [{"index": 0, "key": "alloc-test/void/threads:1/rep:0", "repetition": 0,
//               ...the cell itself (cell_encoding.hpp: allocator, workload, threads, params ...),
//               "command": ["/path/allocstress", "run", "--allocator", "void", ...]}, ...]}
//
// `cells` lists MatrixPlan::cells() in order: cell i of the file is cell i of the plan.  What runs
// is the plan's cell; a file whose list does not say the same cells is refused, naming the first
// cell and field that differ (an edited cell, or another version of allocstress planned it).
// Each entry is a cell as `allocstress run --cell` reads it (the members it does not know are
// ignored); `command` is the same cell as flags, for people, and must say the same.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "plan/matrix_plan.hpp"

namespace allocstress {

inline constexpr const char* kPlanFileFormat = "allocstress-plan";
inline constexpr int kPlanFileVersion = 2;  // 2: cells are whole cells (cell_encoding.hpp)

struct PlanFile {
  MatrixPlan plan;
  std::vector<MatrixCell> cells;  // plan.cells()
  nlohmann::json context;
  std::string executable, command_line, created;
};

nlohmann::json plan_file_json(const MatrixPlan& plan, const nlohmann::json& context, const std::string& executable,
                              const std::string& command_line);

// How read_plan_file checks each listed cell: its form (its members, its command, the same cell
// as the plan's, its key), or also all that `run --cell` checks before running it here
// (cell_check.hpp: its allocator installed, its parameters for its threads, its mode).
enum class PlanCellChecks { form, as_run_here };

// Throws std::runtime_error "FILE: not a plan file (why)" / "FILE: ..." naming what is wrong; a
// listed cell that fails a check as "FILE: cell 3 (jemalloc x alloc-test x 1 thread): what".
PlanFile read_plan_file(const std::filesystem::path& path, PlanCellChecks checks = PlanCellChecks::form);

}  // namespace allocstress
