// Limited cells (CellMode::limited, plan/memory_limit_spec.hpp): one cell process in a memory
// cgroup of its own (platform/memory/memory_cgroup.hpp), made before the process starts and removed when
// it has ended, also when it was killed; a runner killed outright leaves its cgroups to the next
// run, which removes them (remove_stale_limit_cgroups).
//
// The record is the cell's own (its timing and memory figures under the limit) plus a
// `memory_limit` block: the spec, the bytes it resolved to (FxPEAK: F x the median peak RSS of
// the same workload, allocator and threads' ok timing records in this run's journal), the
// controller, what the kernel counted and the outcome:
//   completed    exited ok, the cgroup never reached its limit (v1 failcnt = 0; v2 no max/high event);
//   throttled    exited ok, but the kernel had to reclaim at the limit (v1 failcnt > 0) or throttle
//                above memory.high (v2 high events): it met the limit by giving memory back late;
//   oom-killed   the kernel's OOM killer ended it inside the cgroup: status "oom-killed", a result
//                (the allocator did not fit), not a harness failure;
//   failed       anything else (status failed, with the reason).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/matrix_plan.hpp"
#include "platform/process/child_process.hpp"
#include "results/results_journal.hpp"

namespace allocstress {

// pre: cell.cell.mode == CellMode::limited, plan.memory_limit parses.
nlohmann::json run_limited_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                                const std::filesystem::path& temp_folder, ChildOutcome& outcome, const ResultsJournal& journal);

// The cgroups of runners that no longer run, removed: one line per cgroup for the user.
std::vector<std::string> remove_stale_limit_cgroups();

}  // namespace allocstress
