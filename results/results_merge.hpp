// Several results files of one study combined into one (`allocstress programs` runs a matrix for
// the real programs and one per program for its replay and models, then merges them so that one
// table, one report and the fidelity table see every row).
//
// The parts must name distinct workloads (labels make them distinct: `replay:prog-python3`), so
// every cell keeps its own records and aggregates, which are copied unchanged: nothing is
// recomputed across parts, and each part's void baseline stays its own.  The merged context is
// the first part's machine context with:
//   plan: the first part's plan, its per-workload maps (workload_params, workload_inputs) and
//         lists (workloads, skipped, excluded, allocators, thread_counts) the union of all parts'
//         (repetitions and cell_timeout_s the largest);
//   warnings: the union, in order;
//   parts: [{"file", "command_line", "date", "workloads"}] one per part, in order.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace allocstress {

struct ResultsPart {
  std::string file;        // where the part was read from (recorded in context.parts)
  nlohmann::json results;  // a complete results document
};

// pre: parts is not empty.  Throws std::invalid_argument when two parts hold the same workload
// or a part is not a results document.
nlohmann::json merge_results(const std::vector<ResultsPart>& parts);

}  // namespace allocstress
