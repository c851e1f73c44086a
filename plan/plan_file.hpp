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
// `cells` lists MatrixPlan::cells() in order: cell i of the file is cell i of the plan, and
// a backend refuses a file whose list does not match the plan it describes (another version of
// allocstress planned it).  Each entry is a cell as `allocstress run --cell` reads it (the
// members it does not know are ignored); `command` is the same cell as flags, for people.
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

// Throws std::runtime_error "FILE: not a plan file (why)" / "FILE: ..." naming what is wrong.
PlanFile read_plan_file(const std::filesystem::path& path);

}  // namespace allocstress
